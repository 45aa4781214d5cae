#include "datasets/batch_pixels.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/user_error.h"

namespace mlh {

template <class Pixel>
BasicBatchPixels<Pixel>::BasicBatchPixels(int64_t image_values, int prefetch_batches, Allocate allocate)
    : image_values_(image_values),
      buffers_kept_(allocate ? 0 : static_cast<size_t>(prefetch_batches) + 1),
      allocate_(std::move(allocate)) {
  MLH_ASSERT(image_values >= 1 && prefetch_batches >= 1);
}

template <class Pixel>
std::shared_ptr<typename BasicBatchPixels<Pixel>::Buffer> BasicBatchPixels<Pixel>::take_buffer(int64_t images) {
  const int64_t values = images * image_values_;
  if (values == 0) return nullptr;
  std::shared_ptr<Buffer> buffer;
  {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (!spare_buffers_.empty()) {
      buffer = std::move(spare_buffers_.back());
      spare_buffers_.pop_back();
    }
  }
  if (buffer == nullptr) buffer = std::make_shared<Buffer>();
  if (buffer->capacity < values) {
    if (allocate_) {
      buffer->memory = allocate_(values);
      MLH_ASSERT(buffer->memory.values != nullptr);
    } else {
      std::shared_ptr<Pixel[]> own(new Pixel[static_cast<size_t>(values)]);
      buffer->memory = Memory{own.get(), std::move(own)};
    }
    buffer->capacity = values;
  }
  return buffer;
}

template <class Pixel>
void BasicBatchPixels<Pixel>::copy_images(std::shared_ptr<Buffer> buffer, const std::vector<uint8_t>& skipped,
                                          Pixel* images) {
  const auto count = static_cast<int64_t>(skipped.size());
  // One copy of the whole batch: glibc streams a copy this size past the cache.
  if (buffer != nullptr) {
    std::memcpy(images, buffer->memory.values, static_cast<size_t>(count * image_values_) * sizeof(Pixel));
  }
  for (int64_t i = 0; i < count; ++i) {
    if (skipped[static_cast<size_t>(i)] != 0) {
      Pixel* out = images + i * image_values_;
      std::fill(out, out + image_values_, Pixel{0});
    }
  }
  if (buffer != nullptr) {
    std::lock_guard<std::mutex> lock(spares_mutex_);
    if (spare_buffers_.size() < buffers_kept_) spare_buffers_.push_back(std::move(buffer));
  }
}

template <class Pixel>
typename BasicBatchPixels<Pixel>::Memory BasicBatchPixels<Pixel>::hand_over_buffer(
    std::shared_ptr<Buffer> buffer, const std::vector<uint8_t>& skipped) {
  MLH_ASSERT(allocate_ != nullptr);
  const auto count = static_cast<int64_t>(skipped.size());
  if (count == 0) return {};
  if (buffer == nullptr) buffer = take_buffer(count);  // every image skipped: zeros below
  for (int64_t i = 0; i < count; ++i) {
    if (skipped[static_cast<size_t>(i)] != 0) {
      Pixel* out = buffer->memory.values + i * image_values_;
      std::fill(out, out + image_values_, Pixel{0});
    }
  }
  return std::move(buffer->memory);
}

template <class Pixel>
std::vector<Pixel> BasicBatchPixels<Pixel>::take_spare_images() {
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spare_images_.empty()) return {};
  std::vector<Pixel> images = std::move(spare_images_.back());
  spare_images_.pop_back();
  return images;
}

template <class Pixel>
void BasicBatchPixels<Pixel>::recycle(std::vector<Pixel> images) {
  if (images.capacity() == 0) return;
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spare_images_.size() < 2) spare_images_.push_back(std::move(images));
}

template class BasicBatchPixels<float>;
template class BasicBatchPixels<uint8_t>;

}  // namespace mlh
