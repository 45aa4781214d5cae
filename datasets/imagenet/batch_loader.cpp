#include "datasets/imagenet/batch_loader.h"

#include <utility>

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
  check_image_loading_options(options, "imagenet loader");
  check_option(options.image_size >= 1,
               "image_size is " + std::to_string(options.image_size) + "; it must be positive");
  check_option(options.train || options.eval_resize >= options.image_size,
               "eval_resize " + std::to_string(options.eval_resize) + " is below image_size " +
                   std::to_string(options.image_size) + "; the centre crop must fit");
  return options;
}

BadImagePolicy parse_bad_image_policy(const std::string& name) {
  if (name == "fail") return BadImagePolicy::kFail;
  if (name == "skip") return BadImagePolicy::kSkip;
  throw UserError("on_bad_image: unknown policy '" + name + "'; use fail or skip");
}

BatchLoader::BatchLoader(const ImageFolder& folder, LoaderOptions options)
    : folder_(folder),
      options_(check_loader_options(options)),
      images_(
          options_, int64_t{3} * options.image_size * options.image_size, folder.size(),
          [this](int32_t index, int64_t epoch, ImageSample& sample) { decode(index, epoch, sample); },
          options.allocate_pixels) {}

BatchLoader::~BatchLoader() = default;

void BatchLoader::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  images_.start(std::move(batches), epoch);
}

ImageBatch BatchLoader::next() {
  return images_.next([this](const SampleBatch<ImageSample>& samples) { return labelled(samples); });
}

ImageBatch BatchLoader::next_into(const std::function<uint8_t*(int64_t count)>& images_for) {
  return images_.next_into(
      [this](const SampleBatch<ImageSample>& samples) { return labelled(samples); }, images_for);
}

ImageBatch BatchLoader::next_in_place() {
  return images_.next_in_place(
      [this](const SampleBatch<ImageSample>& samples) { return labelled(samples); });
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

void BatchLoader::recycle(ImageBatch batch) { images_.recycle(std::move(batch.images)); }

int64_t BatchLoader::skipped_total() const { return images_.skipped_total(); }

std::vector<std::string> BatchLoader::skipped_files() const { return images_.skipped_files(); }

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
