#include "workloads/ssd/ssd_loader.h"

#include <algorithm>
#include <utility>

#include <opencv2/core.hpp>

#include "base/user_error.h"
#include "datasets/coco/images.h"

namespace mlh::ssd {
namespace {

const SsdLoaderOptions& checked(const SsdLoaderOptions& options) {
  check_image_loading_options(options, "ssd loader");
  check_ssd_transform_options(options.transform, "ssd loader");
  return options;
}

}  // namespace

void normalised_boxes_of(const coco::Annotations& annotations, const coco::Image& image,
                         std::vector<float>& boxes_ltrb, std::vector<int64_t>& labels) {
  MLH_ASSERT(image.width >= 1 && image.height >= 1);
  boxes_ltrb.clear();
  labels.clear();
  const double width = static_cast<double>(image.width);
  const double height = static_cast<double>(image.height);
  for (const int32_t a : image.annotations) {
    const coco::Annotation& annotation = annotations.annotations[static_cast<size_t>(a)];
    const auto left = static_cast<float>(std::clamp(annotation.x / width, 0.0, 1.0));
    const auto top = static_cast<float>(std::clamp(annotation.y / height, 0.0, 1.0));
    const auto right = static_cast<float>(std::clamp((annotation.x + annotation.w) / width, 0.0, 1.0));
    const auto bottom = static_cast<float>(std::clamp((annotation.y + annotation.h) / height, 0.0, 1.0));
    if (!(right > left && bottom > top)) continue;
    boxes_ltrb.insert(boxes_ltrb.end(), {left, top, right, bottom});
    labels.push_back(annotation.label);
  }
}

SsdLoader::SsdLoader(const coco::Annotations& annotations, std::string image_folder, SsdLoaderOptions options)
    : annotations_(annotations),
      image_folder_(std::move(image_folder)),
      options_(checked(options)),
      images_(options_, int64_t{3} * options.transform.out_size * options.transform.out_size,
              static_cast<int64_t>(annotations.images.size()),
              [this](int32_t index, int64_t epoch, Sample& sample) { decode(index, epoch, sample); }) {}

SsdLoader::~SsdLoader() = default;

void SsdLoader::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  images_.start(std::move(batches), epoch);
}

DetectionBatch SsdLoader::next() {
  return images_.next([this](SampleBatch<Sample>& samples) { return targets_of(samples); });
}

DetectionBatch SsdLoader::next_into(const std::function<float*(int64_t count)>& images_for) {
  return images_.next_into([this](SampleBatch<Sample>& samples) { return targets_of(samples); },
                           images_for);
}

DetectionBatch SsdLoader::targets_of(SampleBatch<Sample>& samples) const {
  DetectionBatch batch;
  batch.count = samples.size();
  batch.skipped = samples.skipped_count;
  batch.targets.resize(static_cast<size_t>(batch.count));
  for (size_t i = 0; i < samples.indices.size(); ++i) {
    const coco::Image& image = annotations_.images[static_cast<size_t>(samples.indices[i])];
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
  return batch;
}

void SsdLoader::recycle(DetectionBatch batch) { images_.recycle(std::move(batch.images)); }

int64_t SsdLoader::skipped_total() const { return images_.skipped_total(); }

std::vector<std::string> SsdLoader::skipped_files() const { return images_.skipped_files(); }

void SsdLoader::decode(int32_t index, int64_t epoch, Sample& sample) const {
  const coco::Image& image = annotations_.images[static_cast<size_t>(index)];
  const cv::Mat bgr = coco::read_annotated_image(annotations_, image, image_folder_, kSkipBadImageHint);
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

}  // namespace mlh::ssd
