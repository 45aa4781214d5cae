#include "datasets/imagenet/batch_loader.h"

#include <iostream>
#include <utility>

#include <opencv2/core.hpp>

#include "base/user_error.h"
#include "datasets/image_files.h"
#include "datasets/imagenet/transforms.h"

namespace mlh::imagenet {
namespace {

void check_option(bool holds, const std::string& message) {
  if (!holds) throw UserError("imagenet loader: " + message);
}

}  // namespace

const LoaderOptions& check_loader_options(const LoaderOptions& options) {
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

BadImagePolicy parse_bad_image_policy(const std::string& name) {
  if (name == "fail") return BadImagePolicy::kFail;
  if (name == "skip") return BadImagePolicy::kSkip;
  throw UserError("on_bad_image: unknown policy '" + name + "'; use fail or skip");
}

BatchLoader::BatchLoader(const ImageFolder& folder, LoaderOptions options)
    : folder_(folder),
      options_(check_loader_options(options)),
      pixels_(int64_t{3} * options.image_size * options.image_size, options.prefetch_batches,
              options.allocate_pixels),
      samples_(
          sample_loader_options(options),
          [this](int32_t index, int64_t epoch, ImageSample& sample) { decode(index, epoch, sample); },
          [this](SampleBatch<ImageSample>& batch) { pixels_.open_batch(batch); }) {
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
  return pixels_.next_with_own_images(
      [this](const auto& images_for) { return next_into(images_for); });
}

ImageBatch BatchLoader::next_into(const std::function<uint8_t*(int64_t count)>& images_for) {
  SampleBatch<ImageSample> samples = samples_.next();
  ImageBatch batch = labelled(samples);
  pixels_.take_images(samples, images_for(batch.count));
  return batch;
}

ImageBatch BatchLoader::next_in_place() {
  SampleBatch<ImageSample> samples = samples_.next();
  ImageBatch batch = labelled(samples);
  batch.memory = pixels_.hand_over(samples);
  return batch;
}

ImageBatch BatchLoader::labelled(const SampleBatch<ImageSample>& samples) const {
  ImageBatch batch;
  batch.count = samples.size();
  batch.skipped = samples.skipped_count;
  batch.labels.resize(static_cast<size_t>(batch.count));
  for (size_t i = 0; i < samples.indices.size(); ++i) {
    batch.labels[i] =
        samples.skipped[i] != 0 ? -1 : folder_.labels[static_cast<size_t>(samples.indices[i])];
  }
  return batch;
}

void BatchLoader::recycle(ImageBatch batch) { pixels_.recycle(std::move(batch.images)); }

int64_t BatchLoader::skipped_total() const { return samples_.skipped_total(); }

std::vector<std::string> BatchLoader::skipped_files() const { return samples_.skipped_sources(); }

void BatchLoader::decode(int32_t index, int64_t epoch, ImageSample& sample) const {
  decode_sample(folder_, options_, index, epoch, sample.pixels.out);
}

void decode_sample(const ImageFolder& folder, const LoaderOptions& options, int32_t index, int64_t epoch,
                   uint8_t* out_hwc) {
  const auto augmentation_of = [&](int width, int height) {
    return draw_train_augmentation(width, height, options.seed, epoch, index, options.random_flip);
  };
  // Train: the crop box only, at the reduction it allows. Eval: the whole image.
  const ChooseRegion choose_region = [&](int width, int height) {
    DecodeRegion region;
    if (options.train) {
      const CropBox box = augmentation_of(width, height).crop;
      region = DecodeRegion{1, box.x, box.y, box.width, box.height};
      if (options.reduced_decode) region.reduction = train_reduction(box, options.image_size);
    } else if (options.reduced_decode) {
      region.reduction = eval_reduction(width, height, options.eval_resize);
    }
    return region;
  };
  const ReducedImage image = read_image_file_reduced(folder.files[static_cast<size_t>(index)],
                                                     kSkipBadImageHint, choose_region);
  if (options.train) {
    const TrainAugmentation augmentation = augmentation_of(image.original_width, image.original_height);
    train_transform(image, augmentation.crop, augmentation.flip, options.image_size, out_hwc);
  } else {
    eval_transform(image, options.eval_resize, options.image_size, out_hwc);
  }
}

}  // namespace mlh::imagenet
