#include "datasets/imagenet/batch_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/user_error.h"
#include "datasets/imagenet/transforms.h"

namespace mlh::imagenet {
namespace {

// A JPEG's end-of-image marker must lie among its last bytes (after trailing zero padding is
// dropped); a few bytes of slack allow for writers that append a newline or similar.
constexpr size_t kEndOfImageWindowBytes = 64;

bool is_jpeg(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
}

bool has_end_of_image_marker(const std::vector<uint8_t>& bytes) {
  size_t end = bytes.size();
  while (end > 0 && bytes[end - 1] == 0) --end;
  const size_t begin = end > kEndOfImageWindowBytes ? end - kEndOfImageWindowBytes : 0;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xD9) return true;
  }
  return false;
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
  if (is_jpeg(bytes) && !has_end_of_image_marker(bytes)) {
    return "not a decodable image (truncated JPEG: no end-of-image marker)";
  }
  try {
    // EXIF orientation is ignored, as TF's decode_jpeg does.
    *bgr = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data()),
                        cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& error) {
    return "not a decodable image (OpenCV: " + error.msg + ")";
  }
  if (bgr->empty()) return "not a decodable image (OpenCV cannot decode it)";
  return "";
}

void check_option(bool holds, const std::string& message) {
  if (!holds) throw UserError("imagenet loader: " + message);
}

const LoaderOptions& checked(const LoaderOptions& options) {
  check_option(options.threads >= 1, "threads is " + std::to_string(options.threads) +
                                          "; use at least 1 worker thread");
  check_option(options.prefetch_batches >= 1,
               "prefetch_batches is " + std::to_string(options.prefetch_batches) +
                   "; prefetch at least 1 batch");
  check_option(options.image_size >= 1,
               "image_size is " + std::to_string(options.image_size) + "; it must be positive");
  check_option(options.train || options.eval_resize >= options.image_size,
               "eval_resize " + std::to_string(options.eval_resize) + " is below image_size " +
                   std::to_string(options.image_size) + "; the centre crop must fit");
  return options;
}

SampleLoaderOptions sample_loader_options(const LoaderOptions& options) {
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

BadImagePolicy parse_bad_image_policy(const std::string& name) {
  if (name == "fail") return BadImagePolicy::kFail;
  if (name == "skip") return BadImagePolicy::kSkip;
  throw UserError("on_bad_image: unknown policy '" + name + "'; use fail or skip");
}

BatchLoader::BatchLoader(const ImageFolder& folder, LoaderOptions options)
    : folder_(folder),
      options_(checked(options)),
      image_floats_(int64_t{3} * options.image_size * options.image_size),
      samples_(
          sample_loader_options(options),
          [this](int32_t index, int64_t epoch, ImageSlot& slot) { decode(index, epoch, slot); },
          [this](SampleBatch<ImageSlot>& batch) { open_batch(batch); }) {
  cv::setNumThreads(1);
}

BatchLoader::~BatchLoader() = default;

void BatchLoader::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  for (const std::vector<int32_t>& batch : batches) {
    for (const int32_t index : batch) MLH_ASSERT(index >= 0 && index < folder_.size());
  }
  samples_.start(std::move(batches), epoch);
}

ImageBatch BatchLoader::next() {
  std::vector<float> images;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (!spare_images_.empty()) {
      images = std::move(spare_images_.back());
      spare_images_.pop_back();
    }
  }
  ImageBatch batch = next_into([&](int64_t count) {
    // Every value is written (a skipped image's zeros included): a recycled buffer needs no clearing.
    images.resize(static_cast<size_t>(count * image_floats_));
    return images.data();
  });
  batch.images = std::move(images);
  return batch;
}

ImageBatch BatchLoader::next_into(const std::function<float*(int64_t count)>& images_for) {
  SampleBatch<ImageSlot> samples = samples_.next();
  ImageBatch batch;
  batch.count = samples.size();
  batch.skipped = samples.skipped_count;
  batch.labels.resize(static_cast<size_t>(batch.count));
  float* const images = images_for(batch.count);
  std::shared_ptr<Pixels> pixels;  // a skipped image's slot no longer points at it
  for (const ImageSlot& slot : samples.samples) {
    if (slot.pixels != nullptr) {
      pixels = slot.pixels;
      break;
    }
  }
  // One copy of the whole batch: glibc streams a copy this size past the cache.
  if (pixels != nullptr) {
    std::memcpy(images, pixels->floats.get(), static_cast<size_t>(batch.count * image_floats_) * sizeof(float));
  }
  for (size_t i = 0; i < samples.indices.size(); ++i) {
    if (samples.skipped[i] != 0) {
      float* out = images + static_cast<int64_t>(i) * image_floats_;
      std::fill(out, out + image_floats_, 0.0f);
      batch.labels[i] = -1;
    } else {
      batch.labels[i] = folder_.labels[static_cast<size_t>(samples.indices[i])];
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

void BatchLoader::open_batch(SampleBatch<ImageSlot>& batch) {
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
    batch.samples[i] = ImageSlot{pixels, pixels->floats.get() + static_cast<int64_t>(i) * image_floats_};
  }
}

void BatchLoader::recycle(ImageBatch batch) {
  if (batch.images.capacity() == 0) return;
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spare_images_.size() < 2) spare_images_.push_back(std::move(batch.images));
}

int64_t BatchLoader::skipped_total() const { return samples_.skipped_total(); }

std::vector<std::string> BatchLoader::skipped_files() const { return samples_.skipped_sources(); }

void BatchLoader::decode(int32_t index, int64_t epoch, ImageSlot& slot) const {
  const std::string& path = folder_.files[static_cast<size_t>(index)];
  cv::Mat bgr;
  const std::string bad_reason = decode_image(path, &bgr);
  if (!bad_reason.empty()) throw BadSample(path, bad_reason, "set on_bad_image: skip to skip such files");
  if (options_.train) {
    const TrainAugmentation augmentation =
        draw_train_augmentation(bgr.cols, bgr.rows, options_.seed, epoch, index, options_.random_flip);
    train_transform(bgr, augmentation.crop, augmentation.flip, options_.image_size, slot.out);
  } else {
    eval_transform(bgr, options_.eval_resize, options_.image_size, slot.out);
  }
}

}  // namespace mlh::imagenet
