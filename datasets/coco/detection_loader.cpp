#include "datasets/coco/detection_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/user_error.h"

namespace mlh::coco {
namespace {

constexpr const char* kSkipHint = "set on_bad_image: skip to skip such files";
// A JPEG's end-of-image marker must lie among its last bytes (after trailing zero padding).
constexpr size_t kEndOfImageWindowBytes = 64;

bool is_truncated_jpeg(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8) return false;
  size_t end = bytes.size();
  while (end > 0 && bytes[end - 1] == 0) --end;
  const size_t begin = end > kEndOfImageWindowBytes ? end - kEndOfImageWindowBytes : 0;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xD9) return false;
  }
  return true;
}

// Reads and decodes `path` into 8-bit BGR. Returns why it is a bad image, or "" when it is fine.
std::string decode_image(const std::string& path, cv::Mat* bgr) {
  thread_local std::vector<uint8_t> bytes;
  errno = 0;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    return std::string("cannot be read (") + (errno != 0 ? std::strerror(errno) : "open failed") +
           ")";
  }
  const std::streamoff size = file.tellg();
  if (size < 0) return "cannot be read (cannot tell its size)";
  bytes.resize(static_cast<size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), size)) return "cannot be read (read failed)";
  if (bytes.empty()) return "not a decodable image (empty file)";
  if (is_truncated_jpeg(bytes)) return "not a decodable image (truncated JPEG: no end-of-image marker)";
  try {
    *bgr = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data()),
                        cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& error) {
    return "not a decodable image (OpenCV: " + error.msg + ")";
  }
  if (bgr->empty()) return "not a decodable image (OpenCV cannot decode it)";
  return "";
}

void check_option(bool holds, const std::string& message) {
  if (!holds) throw UserError("coco detection loader: " + message);
}

const DetectionLoaderOptions& checked(const DetectionLoaderOptions& options) {
  check_option(options.threads >= 1, "threads is " + std::to_string(options.threads) +
                                          "; use at least 1 worker thread");
  check_option(options.prefetch_batches >= 1,
               "prefetch_batches is " + std::to_string(options.prefetch_batches) +
                   "; prefetch at least 1 batch");
  check_ssd_transform_options(options.transform, "coco detection loader");
  return options;
}

SampleLoaderOptions sample_loader_options(const DetectionLoaderOptions& options) {
  SampleLoaderOptions sample_options;
  sample_options.threads = options.threads;
  sample_options.prefetch_batches = options.prefetch_batches;
  sample_options.on_bad_sample = options.on_bad_image;
  sample_options.on_skip = [](const BadSample& bad) {
    std::cerr << ("warning: skipping " + bad.source() + ": " + bad.reason() + "\n") << std::flush;
  };
  return sample_options;
}

}  // namespace

void normalised_boxes_of(const Annotations& annotations, const Image& image,
                         std::vector<float>& boxes_ltrb, std::vector<int64_t>& labels) {
  MLH_ASSERT(image.width >= 1 && image.height >= 1);
  boxes_ltrb.clear();
  labels.clear();
  const double width = static_cast<double>(image.width);
  const double height = static_cast<double>(image.height);
  for (const int32_t a : image.annotations) {
    const Annotation& annotation = annotations.annotations[static_cast<size_t>(a)];
    const auto left = static_cast<float>(std::clamp(annotation.x / width, 0.0, 1.0));
    const auto top = static_cast<float>(std::clamp(annotation.y / height, 0.0, 1.0));
    const auto right = static_cast<float>(std::clamp((annotation.x + annotation.w) / width, 0.0, 1.0));
    const auto bottom = static_cast<float>(std::clamp((annotation.y + annotation.h) / height, 0.0, 1.0));
    if (!(right > left && bottom > top)) continue;
    boxes_ltrb.insert(boxes_ltrb.end(), {left, top, right, bottom});
    labels.push_back(annotation.label);
  }
}

DetectionLoader::DetectionLoader(const Annotations& annotations, std::string image_folder,
                                 DetectionLoaderOptions options)
    : annotations_(annotations),
      image_folder_(std::move(image_folder)),
      options_(checked(options)),
      image_floats_(int64_t{3} * options.transform.out_size * options.transform.out_size),
      samples_(
          sample_loader_options(options),
          [this](int32_t index, int64_t epoch, Sample& sample) { decode(index, epoch, sample); },
          [this](SampleBatch<Sample>& batch) { open_batch(batch); }) {
  cv::setNumThreads(1);
}

DetectionLoader::~DetectionLoader() = default;

void DetectionLoader::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  const auto image_count = static_cast<int64_t>(annotations_.images.size());
  for (const std::vector<int32_t>& batch : batches) {
    for (const int32_t index : batch) MLH_ASSERT(index >= 0 && index < image_count);
  }
  samples_.start(std::move(batches), epoch);
}

DetectionBatch DetectionLoader::next() {
  std::vector<float> images;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (!spare_images_.empty()) {
      images = std::move(spare_images_.back());
      spare_images_.pop_back();
    }
  }
  DetectionBatch batch = next_into([&](int64_t count) {
    // Every value is written (a skipped image's zeros included): a recycled buffer needs no clearing.
    images.resize(static_cast<size_t>(count * image_floats_));
    return images.data();
  });
  batch.images = std::move(images);
  return batch;
}

DetectionBatch DetectionLoader::next_into(const std::function<float*(int64_t count)>& images_for) {
  SampleBatch<Sample> samples = samples_.next();
  DetectionBatch batch;
  batch.count = samples.size();
  batch.skipped = samples.skipped_count;
  batch.targets.resize(static_cast<size_t>(batch.count));
  float* const images = images_for(batch.count);
  std::shared_ptr<Pixels> pixels;  // a skipped image's sample no longer points at it
  for (const Sample& sample : samples.samples) {
    if (sample.pixels != nullptr) {
      pixels = sample.pixels;
      break;
    }
  }
  if (pixels != nullptr) {
    std::memcpy(images, pixels->floats.get(),
                static_cast<size_t>(batch.count * image_floats_) * sizeof(float));
  }
  for (size_t i = 0; i < samples.indices.size(); ++i) {
    const Image& image = annotations_.images[static_cast<size_t>(samples.indices[i])];
    DetectionTarget& target = batch.targets[i];
    target.image_id = image.id;
    target.width = image.width;
    target.height = image.height;
    if (samples.skipped[i] != 0) {
      float* out = images + static_cast<int64_t>(i) * image_floats_;
      std::fill(out, out + image_floats_, 0.0f);
      target.skipped = true;
    } else {
      target.boxes_ltrb = std::move(samples.samples[i].boxes_ltrb);
      target.labels = std::move(samples.samples[i].labels);
    }
  }
  samples.samples.clear();  // now `pixels` is the buffer's one owner
  if (pixels != nullptr) {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (spare_pixels_.size() <= static_cast<size_t>(options_.prefetch_batches)) {
      spare_pixels_.push_back(std::move(pixels));
    }
  }
  return batch;
}

void DetectionLoader::open_batch(SampleBatch<Sample>& batch) {
  const int64_t floats = batch.size() * image_floats_;
  if (floats == 0) return;
  std::shared_ptr<Pixels> pixels;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (!spare_pixels_.empty()) {
      pixels = std::move(spare_pixels_.back());
      spare_pixels_.pop_back();
    }
  }
  if (pixels == nullptr) pixels = std::make_shared<Pixels>();
  if (pixels->capacity < floats) {
    // Not zero-filled (this runs under the loader's lock): every image is written by its decode, or
    // zeroed by next_into when skipped.
    pixels->floats.reset(new float[static_cast<size_t>(floats)]);
    pixels->capacity = floats;
  }
  for (size_t i = 0; i < batch.samples.size(); ++i) {
    Sample& sample = batch.samples[i];
    sample.pixels = pixels;
    sample.out = pixels->floats.get() + static_cast<int64_t>(i) * image_floats_;
  }
}

void DetectionLoader::recycle(DetectionBatch batch) {
  if (batch.images.capacity() == 0) return;
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spare_images_.size() < 2) spare_images_.push_back(std::move(batch.images));
}

int64_t DetectionLoader::skipped_total() const { return samples_.skipped_total(); }

std::vector<std::string> DetectionLoader::skipped_files() const {
  return samples_.skipped_sources();
}

void DetectionLoader::decode(int32_t index, int64_t epoch, Sample& sample) const {
  const Image& image = annotations_.images[static_cast<size_t>(index)];
  const std::string path = (std::filesystem::path(image_folder_) / image.file_name).string();
  cv::Mat bgr;
  const std::string bad_reason = decode_image(path, &bgr);
  if (!bad_reason.empty()) throw BadSample(path, bad_reason, kSkipHint);
  if (bgr.cols != image.width || bgr.rows != image.height) {
    throw BadSample(path,
                    "decoded size " + std::to_string(bgr.cols) + "x" + std::to_string(bgr.rows) +
                        " differs from the annotations' width x height " +
                        std::to_string(image.width) + "x" + std::to_string(image.height) + " (" +
                        annotations_.path + ", image id " + std::to_string(image.id) + ")",
                    kSkipHint);
  }
  normalised_boxes_of(annotations_, image, sample.boxes_ltrb, sample.labels);
  if (options_.train) {
    const SsdAugmentation augmentation =
        draw_ssd_augmentation(sample.boxes_ltrb, options_.transform, options_.seed, epoch, index);
    ssd_train_transform(bgr, augmentation, options_.transform, sample.boxes_ltrb, sample.labels,
                        sample.out);
  } else {
    ssd_eval_transform(bgr, options_.transform.out_size, sample.out);
  }
}

}  // namespace mlh::coco
