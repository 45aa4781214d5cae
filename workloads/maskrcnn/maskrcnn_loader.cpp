#include "workloads/maskrcnn/maskrcnn_loader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "datasets/coco/images.h"
#include "datasets/counter_random.h"

namespace mlh::maskrcnn {
namespace {

constexpr const char* kLoaderName = "maskrcnn loader";
// Flip draws: stream kFlipStreamBase + epoch, draw `index`; apart from other workloads' streams.
constexpr uint64_t kFlipStreamBase = 0x6d61736b72636e00ULL;  // "maskrcn\0"

void check_option(bool holds, const std::string& message) {
  if (!holds) throw UserError(std::string(kLoaderName) + ": " + message);
}

const MaskRcnnLoaderOptions& checked(const MaskRcnnLoaderOptions& options) {
  check_maskrcnn_loader_options(options);
  return options;
}

// Level v of output channel c as the reference normalises it: ToTensor's v / 255, TO_BGR255's * 255
// (pixel_scale), then (x - mean) / std, each in float32.
std::array<std::array<float, 256>, 3> channel_values_of(const MaskRcnnLoaderOptions& options) {
  std::array<std::array<float, 256>, 3> values{};
  for (size_t c = 0; c < 3; ++c) {
    for (int v = 0; v < 256; ++v) {
      const float unit = static_cast<float>(v) / 255.0f;
      const float level = unit * options.pixel_scale;
      values[c][static_cast<size_t>(v)] = (level - options.pixel_means[c]) / options.pixel_stds[c];
    }
  }
  return values;
}

int64_t round_up(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

}  // namespace

void check_maskrcnn_loader_options(const MaskRcnnLoaderOptions& options) {
  check_image_loading_options(options, kLoaderName);
  check_option(options.min_size >= 1,
               "min_size is " + std::to_string(options.min_size) + "; use a short side of at least 1");
  check_option(options.max_size >= 1,
               "max_size is " + std::to_string(options.max_size) + "; use a long side of at least 1");
  check_option(options.size_divisibility >= 1, "size_divisibility is " +
                                                   std::to_string(options.size_divisibility) +
                                                   "; use at least 1 (1: no rounding)");
  check_option(options.pixel_scale > 0.0f,
               "pixel_scale is " + std::to_string(options.pixel_scale) + "; use a positive scale (255 or 1)");
  for (const float std : options.pixel_stds) {
    check_option(std > 0.0f, "pixel_stds holds " + std::to_string(std) + "; use positive stds");
  }
}

ImageSize resized_size(int64_t width, int64_t height, int64_t min_size, int64_t max_size) {
  MLH_ASSERT(width >= 1 && height >= 1 && min_size >= 1 && max_size >= 1);
  int64_t size = min_size;
  const auto short_side = static_cast<double>(std::min(width, height));
  const auto long_side = static_cast<double>(std::max(width, height));
  if (long_side / short_side * static_cast<double>(size) > static_cast<double>(max_size)) {
    // Python's round: to nearest, halves to even (the default rounding mode's nearbyint).
    size = static_cast<int64_t>(std::nearbyint(static_cast<double>(max_size) * short_side / long_side));
  }
  ImageSize resized;
  if ((width <= height && width == size) || (height <= width && height == size)) {
    resized = {height, width};
  } else if (width < height) {
    resized = {size * height / width, size};
  } else {
    resized = {size, size * width / height};
  }
  resized.height = std::max<int64_t>(resized.height, 1);
  resized.width = std::max<int64_t>(resized.width, 1);
  return resized;
}

bool draws_flip(uint64_t seed, int64_t epoch, int32_t index) {
  return (counter_random(seed, kFlipStreamBase + static_cast<uint64_t>(epoch), static_cast<uint64_t>(index)) >>
          63) != 0;
}

void transform_targets(const coco::Annotations& annotations, const coco::Image& image,
                       const ImageSize& resized, bool flip, HostTargets& targets) {
  MLH_ASSERT(image.width >= 1 && image.height >= 1 && resized.width >= 1 && resized.height >= 1);
  targets.boxes_ltrb.clear();
  targets.labels.clear();
  targets.masks.clear();
  targets.flipped = flip;
  // BoxList.clip_to_image on the original image (TO_REMOVE = 1).
  const auto x_max = static_cast<float>(image.width - 1);
  const auto y_max = static_cast<float>(image.height - 1);
  // BoxList.resize / Polygons.resize: ratios in double, applied as float32 scalars.
  const auto ratio_x = static_cast<float>(static_cast<double>(resized.width) / static_cast<double>(image.width));
  const auto ratio_y = static_cast<float>(static_cast<double>(resized.height) / static_cast<double>(image.height));
  const auto width = static_cast<float>(resized.width);
  const auto flipped_x = [&](float x) { return (width - x) - 1.0f; };  // transpose(FLIP_LEFT_RIGHT)
  for (const int32_t a : image.annotations) {
    const coco::Annotation& annotation = annotations.annotations[static_cast<size_t>(a)];
    if (annotation.iscrowd) continue;
    const auto x = static_cast<float>(annotation.x);
    const auto y = static_cast<float>(annotation.y);
    const auto w = static_cast<float>(annotation.w);
    const auto h = static_cast<float>(annotation.h);
    // xywh -> xyxy with TO_REMOVE = 1, then clip_to_image(remove_empty=True).
    float x1 = std::clamp(x, 0.0f, x_max);
    float y1 = std::clamp(y, 0.0f, y_max);
    float x2 = std::clamp(x + std::max(w - 1.0f, 0.0f), 0.0f, x_max);
    float y2 = std::clamp(y + std::max(h - 1.0f, 0.0f), 0.0f, y_max);
    if (!(x2 > x1 && y2 > y1)) continue;
    x1 *= ratio_x;
    x2 *= ratio_x;
    y1 *= ratio_y;
    y2 *= ratio_y;
    if (flip) {
      const float left = flipped_x(x2);
      x2 = flipped_x(x1);
      x1 = left;
    }
    targets.boxes_ltrb.insert(targets.boxes_ltrb.end(), {x1, y1, x2, y2});
    targets.labels.push_back(annotation.label);

    const coco::Segmentation& segmentation = annotation.segmentation;
    if (segmentation.kind == coco::Segmentation::Kind::kRle) {
      throw UserError(annotations.path + ": annotation id " + std::to_string(annotation.id) +
                      " is a non-crowd RLE mask; Mask R-CNN's loader takes polygon masks only, as the "
                      "reference does");
    }
    coco::Segmentation mask;
    mask.kind = segmentation.kind;
    mask.polygons.reserve(segmentation.polygons.size());
    for (const std::vector<double>& polygon : segmentation.polygons) {
      std::vector<double>& out = mask.polygons.emplace_back(polygon.size());
      for (size_t k = 0; k < polygon.size(); ++k) {
        float value = static_cast<float>(polygon[k]) * (k % 2 == 0 ? ratio_x : ratio_y);
        if (flip && k % 2 == 0) value = flipped_x(value);
        out[k] = value;
      }
    }
    targets.masks.push_back(std::move(mask));
  }
}

std::vector<int32_t> training_image_indices(const coco::Annotations& annotations) {
  std::vector<int32_t> kept;
  for (size_t i = 0; i < annotations.images.size(); ++i) {
    // has_valid_annotation: some object (crowds count) whose box is not "empty" (w or h <= 1).
    const std::vector<int32_t>& objects = annotations.images[i].annotations;
    const bool valid = std::any_of(objects.begin(), objects.end(), [&](int32_t a) {
      const coco::Annotation& annotation = annotations.annotations[static_cast<size_t>(a)];
      return annotation.w > 1.0 && annotation.h > 1.0;
    });
    if (valid) kept.push_back(static_cast<int32_t>(i));
  }
  return kept;
}

std::vector<ImageTargets> targets_on_device(const std::vector<HostTargets>& targets, torch::Device device) {
  const bool to_gpu = !device.is_cpu();
  const auto host = [&](torch::ScalarType type) { return torch::TensorOptions(type).pinned_memory(to_gpu); };
  std::vector<ImageTargets> on_device;
  on_device.reserve(targets.size());
  for (const HostTargets& target : targets) {
    const auto objects = static_cast<int64_t>(target.labels.size());
    MLH_ASSERT(target.boxes_ltrb.size() == 4 * target.labels.size() && target.masks.size() == target.labels.size());
    torch::Tensor boxes = torch::empty({objects, 4}, host(torch::kFloat32));
    torch::Tensor labels = torch::empty({objects}, host(torch::kInt64));
    if (objects > 0) {
      std::memcpy(boxes.data_ptr<float>(), target.boxes_ltrb.data(), target.boxes_ltrb.size() * sizeof(float));
      std::memcpy(labels.data_ptr<int64_t>(), target.labels.data(), target.labels.size() * sizeof(int64_t));
    }
    if (to_gpu) {
      boxes = boxes.to(device, /*non_blocking=*/true);
      labels = labels.to(device, /*non_blocking=*/true);
    }
    on_device.push_back(ImageTargets{std::move(boxes), std::move(labels), target.masks});
  }
  return on_device;
}

MaskRcnnLoader::MaskRcnnLoader(const coco::Annotations& annotations, std::string image_folder,
                               MaskRcnnLoaderOptions options)
    : annotations_(annotations),
      image_folder_(std::move(image_folder)),
      options_(checked(options)),
      channel_values_(channel_values_of(options_)),
      samples_(sample_loader_options(options_),
               [this](int32_t index, int64_t epoch, Sample& sample) { decode(index, epoch, sample); }) {
  detail::use_one_opencv_thread();
}

MaskRcnnLoader::~MaskRcnnLoader() = default;

void MaskRcnnLoader::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  for (const std::vector<int32_t>& batch : batches) {
    for (const int32_t index : batch) {
      MLH_ASSERT(index >= 0 && static_cast<size_t>(index) < annotations_.images.size());
    }
  }
  samples_.start(std::move(batches), epoch);
}

MaskRcnnBatch MaskRcnnLoader::next() {
  SampleBatch<Sample> samples = samples_.next();
  MaskRcnnBatch batch = collate(samples);
  samples_.recycle(std::move(samples));
  return batch;
}

int64_t MaskRcnnLoader::skipped_total() const { return samples_.skipped_total(); }

std::vector<std::string> MaskRcnnLoader::skipped_files() const { return samples_.skipped_sources(); }

void MaskRcnnLoader::decode(int32_t index, int64_t epoch, Sample& sample) const {
  const coco::Image& image = annotations_.images[static_cast<size_t>(index)];
  const cv::Mat bgr = coco::read_annotated_image(annotations_, image, image_folder_, kSkipBadImageHint);
  sample.size = resized_size(image.width, image.height, options_.min_size, options_.max_size);
  const bool flip = options_.train && draws_flip(options_.seed, epoch, index);
  transform_targets(annotations_, image, sample.size, flip, sample.targets);

  // The reference resizes with PIL's BILINEAR; see the header.
  cv::Mat resized;
  if (sample.size.width == bgr.cols && sample.size.height == bgr.rows) {
    resized = bgr;
  } else {
    cv::resize(bgr, resized, cv::Size(static_cast<int>(sample.size.width), static_cast<int>(sample.size.height)),
               0, 0, cv::INTER_LINEAR);
  }
  const int64_t height = sample.size.height;
  const int64_t width = sample.size.width;
  sample.pixels.resize(static_cast<size_t>(3 * height * width));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = resized.ptr<uint8_t>(static_cast<int>(y));
    for (int64_t c = 0; c < 3; ++c) {
      const std::array<float, 256>& values = channel_values_[static_cast<size_t>(c)];
      const int64_t source_channel = options_.rgb ? 2 - c : c;  // OpenCV's images are BGR
      float* out = sample.pixels.data() + (c * height + y) * width;
      for (int64_t x = 0; x < width; ++x) {
        const int64_t source = flip ? width - 1 - x : x;
        out[x] = values[row[3 * source + source_channel]];
      }
    }
  }
}

MaskRcnnBatch MaskRcnnLoader::collate(SampleBatch<Sample>& samples) const {
  MaskRcnnBatch batch;
  const auto count = samples.size();
  batch.skipped = samples.skipped_count;
  batch.image_sizes.resize(static_cast<size_t>(count));
  batch.targets.resize(static_cast<size_t>(count));
  int64_t padded_height = 0;
  int64_t padded_width = 0;
  for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
    const coco::Image& image = annotations_.images[static_cast<size_t>(samples.indices[i])];
    HostTargets& target = batch.targets[i];
    if (samples.skipped[i] != 0) {
      batch.image_sizes[i] = resized_size(image.width, image.height, options_.min_size, options_.max_size);
      target.skipped = true;
    } else {
      batch.image_sizes[i] = samples.samples[i].size;
      target = std::move(samples.samples[i].targets);
    }
    target.image_id = image.id;
    target.width = image.width;
    target.height = image.height;
    padded_height = std::max(padded_height, batch.image_sizes[i].height);
    padded_width = std::max(padded_width, batch.image_sizes[i].width);
  }
  padded_height = round_up(padded_height, options_.size_divisibility);
  padded_width = round_up(padded_width, options_.size_divisibility);

  // Each value is written once: the image's rows and the zeros right of and below them.
  batch.images = torch::empty({count, 3, padded_height, padded_width}, torch::kFloat32);
  float* const images = batch.images.data_ptr<float>();
  const int64_t plane = padded_height * padded_width;
  for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
    const bool skipped = samples.skipped[i] != 0;
    const int64_t height = skipped ? 0 : batch.image_sizes[i].height;
    const int64_t width = skipped ? 0 : batch.image_sizes[i].width;
    const float* pixels = samples.samples[i].pixels.data();
    for (int64_t c = 0; c < 3; ++c) {
      float* out = images + (static_cast<int64_t>(i) * 3 + c) * plane;
      for (int64_t y = 0; y < height; ++y) {
        float* row = out + y * padded_width;
        std::copy(pixels + (c * height + y) * width, pixels + (c * height + y + 1) * width, row);
        std::fill(row + width, row + padded_width, 0.0f);
      }
      std::fill(out + height * padded_width, out + plane, 0.0f);
    }
  }
  return batch;
}

}  // namespace mlh::maskrcnn
