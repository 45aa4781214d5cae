#include "workloads/resnet/image_source.h"

#include <cstring>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "base/user_error.h"
#include "datasets/batch_pixels.h"
#include "datasets/counter_random.h"
#include "datasets/imagenet/normalize.h"

namespace mlh::resnet {

IdxImageSource::IdxImageSource(LabeledImages images, IdxAugmentation augmentation)
    : images_(std::move(images)), augmentation_(augmentation) {
  MLH_ASSERT(images_.rows == images_.cols);
}

void IdxImageSource::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  plan_ = std::move(batches);
  next_batch_ = 0;
  epoch_ = epoch;
}

// Normalised images with, for training, a random flip and a random crop from the zero-padded image.
HostBatch IdxImageSource::next() {
  MLH_ASSERT(next_batch_ < plan_.size());
  const std::vector<int32_t>& indices = plan_[next_batch_++];
  const int64_t n = static_cast<int64_t>(indices.size());
  const int64_t rows = images_.rows, cols = images_.cols;
  const IdxAugmentation& a = augmentation_;
  const int64_t pad = a.augment ? a.crop_padding : 0;
  torch::Tensor images = torch::empty({n, 1, rows, cols}, staging(torch::kFloat));
  torch::Tensor labels = torch::empty({n}, staging(torch::kLong));
  float* out = images.data_ptr<float>();
  int64_t* label_out = labels.data_ptr<int64_t>();
  const float scale = static_cast<float>(1.0 / (255.0 * a.pixel_std));
  const float shift = static_cast<float>(a.pixel_mean / a.pixel_std);
  at::parallel_for(0, n, 64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t sample = indices[static_cast<size_t>(i)];
      const uint64_t r = a.augment ? counter_random(a.seed, 0x696d616765ULL + epoch_, sample) : 0;
      const bool flip = a.augment && a.random_flip && (r & 1);
      const int64_t dy = pad ? static_cast<int64_t>((r >> 8) % (2 * pad + 1)) - pad : 0;
      const int64_t dx = pad ? static_cast<int64_t>((r >> 24) % (2 * pad + 1)) - pad : 0;
      const uint8_t* src = images_.pixels.data() + sample * rows * cols;
      float* dst = out + i * rows * cols;
      for (int64_t y = 0; y < rows; ++y) {
        for (int64_t x = 0; x < cols; ++x) {
          const int64_t sy = y + dy, sx0 = x + dx;
          const int64_t sx = flip ? cols - 1 - sx0 : sx0;
          const bool inside = sy >= 0 && sy < rows && sx0 >= 0 && sx0 < cols;
          dst[y * cols + x] = (inside ? src[sy * cols + sx] : 0) * scale - shift;
        }
      }
      label_out[i] = images_.labels[static_cast<size_t>(sample)];
    }
  });
  return {images, labels};
}

JpegFolderSource::JpegFolderSource(imagenet::ImageFolder folder, imagenet::LoaderOptions options,
                                   int64_t label_offset)
    : folder_(std::make_unique<imagenet::ImageFolder>(std::move(folder))),
      options_(std::move(options)),
      image_size_(options_.image_size),
      label_offset_(label_offset) {
  imagenet::check_loader_options(options_);  // a bad option fails here, not at start()
}

void JpegFolderSource::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  if (loader_ == nullptr) {
    imagenet::LoaderOptions options = options_;
    if (staged_for_gpu()) {
      const torch::TensorOptions pinned = staging(torch::kByte);
      options.allocate_pixels = [pinned](int64_t values) {
        auto memory = std::make_shared<torch::Tensor>(torch::empty({values}, pinned));
        return BatchBytes::Memory{memory->data_ptr<uint8_t>(), memory};
      };
    }
    loader_ = std::make_unique<imagenet::BatchLoader>(*folder_, std::move(options));
  }
  loader_->start(std::move(batches), epoch);
}

HostBatch JpegFolderSource::next() {
  MLH_ASSERT(loader_ != nullptr);
  torch::Tensor images;
  imagenet::ImageBatch batch;
  if (staged_for_gpu()) {
    batch = loader_->next_in_place();
    const std::vector<int64_t> shape{batch.count, image_size_, image_size_, 3};
    if (batch.count == 0) {
      images = torch::empty(shape, staging(torch::kByte));
    } else {
      const auto& memory = *std::static_pointer_cast<torch::Tensor>(batch.memory.owner);
      images = memory.narrow(0, 0, batch.count * image_size_ * image_size_ * 3).view(shape);
    }
  } else {
    // The loader stacks the images straight into the tensor (it reuses its own per-image buffers).
    batch = loader_->next_into([&](int64_t count) {
      images = torch::empty({count, image_size_, image_size_, 3}, staging(torch::kByte));
      return images.data_ptr<uint8_t>();
    });
  }
  torch::Tensor labels = torch::empty({batch.count}, staging(torch::kLong));
  std::memcpy(labels.data_ptr<int64_t>(), batch.labels.data(), batch.labels.size() * sizeof(int64_t));
  if (label_offset_ != 0) labels.add_(labels.ge(0).to(torch::kLong) * label_offset_);
  return {images, labels};
}

torch::Tensor JpegFolderSource::model_input(const torch::Tensor& images) const {
  return imagenet::normalize_images(images);
}

}  // namespace mlh::resnet
