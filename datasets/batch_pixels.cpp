#include "datasets/batch_pixels.h"

#include <algorithm>
#include <cstring>

#include "base/user_error.h"

namespace mlh {

BatchPixels::BatchPixels(int64_t image_floats, int prefetch_batches)
    : image_floats_(image_floats), buffers_kept_(static_cast<size_t>(prefetch_batches) + 1) {
  MLH_ASSERT(image_floats >= 1 && prefetch_batches >= 1);
}

std::shared_ptr<BatchPixels::Buffer> BatchPixels::take_buffer(int64_t images) {
  const int64_t floats = images * image_floats_;
  if (floats == 0) return nullptr;
  std::shared_ptr<Buffer> buffer;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (!spare_buffers_.empty()) {
      buffer = std::move(spare_buffers_.back());
      spare_buffers_.pop_back();
    }
  }
  if (buffer == nullptr) buffer = std::make_shared<Buffer>();
  if (buffer->capacity < floats) {
    buffer->floats.reset(new float[static_cast<size_t>(floats)]);
    buffer->capacity = floats;
  }
  return buffer;
}

void BatchPixels::copy_images(std::shared_ptr<Buffer> buffer, const std::vector<uint8_t>& skipped,
                              float* images) {
  const auto count = static_cast<int64_t>(skipped.size());
  // One copy of the whole batch: glibc streams a copy this size past the cache.
  if (buffer != nullptr) {
    std::memcpy(images, buffer->floats.get(),
                static_cast<size_t>(count * image_floats_) * sizeof(float));
  }
  for (int64_t i = 0; i < count; ++i) {
    if (skipped[static_cast<size_t>(i)] != 0) {
      float* out = images + i * image_floats_;
      std::fill(out, out + image_floats_, 0.0f);
    }
  }
  if (buffer != nullptr) {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (spare_buffers_.size() < buffers_kept_) spare_buffers_.push_back(std::move(buffer));
  }
}

std::vector<float> BatchPixels::take_spare_images() {
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spare_images_.empty()) return {};
  std::vector<float> images = std::move(spare_images_.back());
  spare_images_.pop_back();
  return images;
}

void BatchPixels::recycle(std::vector<float> images) {
  if (images.capacity() == 0) return;
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spare_images_.size() < 2) spare_images_.push_back(std::move(images));
}

}  // namespace mlh
