#include "datasets/coco/detection_loader.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <utility>

#include <opencv2/core.hpp>

#include "base/user_error.h"
#include "datasets/image_files.h"

namespace mlh::coco {
namespace {

constexpr const char* kSkipHint = "set on_bad_image: skip to skip such files";
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
      pixels_(int64_t{3} * options.transform.out_size * options.transform.out_size,
              options.prefetch_batches),
      samples_(
          sample_loader_options(options),
          [this](int32_t index, int64_t epoch, Sample& sample) { decode(index, epoch, sample); },
          [this](SampleBatch<Sample>& batch) { pixels_.open_batch(batch); }) {
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
  return pixels_.next_with_own_images(
      [this](const auto& images_for) { return next_into(images_for); });
}

DetectionBatch DetectionLoader::next_into(const std::function<float*(int64_t count)>& images_for) {
  SampleBatch<Sample> samples = samples_.next();
  DetectionBatch batch;
  batch.count = samples.size();
  batch.skipped = samples.skipped_count;
  batch.targets.resize(static_cast<size_t>(batch.count));
  float* const images = images_for(batch.count);
  for (size_t i = 0; i < samples.indices.size(); ++i) {
    const Image& image = annotations_.images[static_cast<size_t>(samples.indices[i])];
    DetectionTarget& target = batch.targets[i];
    target.image_id = image.id;
    target.width = image.width;
    target.height = image.height;
    if (samples.skipped[i] != 0) {
      target.skipped = true;
    } else {
      target.boxes_ltrb = std::move(samples.samples[i].boxes_ltrb);
      target.labels = std::move(samples.samples[i].labels);
    }
  }
  pixels_.take_images(samples, images);
  return batch;
}

void DetectionLoader::recycle(DetectionBatch batch) { pixels_.recycle(std::move(batch.images)); }

int64_t DetectionLoader::skipped_total() const { return samples_.skipped_total(); }

std::vector<std::string> DetectionLoader::skipped_files() const {
  return samples_.skipped_sources();
}

void DetectionLoader::decode(int32_t index, int64_t epoch, Sample& sample) const {
  const Image& image = annotations_.images[static_cast<size_t>(index)];
  const std::string path = (std::filesystem::path(image_folder_) / image.file_name).string();
  const cv::Mat bgr = read_image_file(path, kSkipHint);
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
                        sample.pixels.out);
  } else {
    ssd_eval_transform(bgr, options_.transform.out_size, sample.pixels.out);
  }
}

}  // namespace mlh::coco
