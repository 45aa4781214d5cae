// The pixel buffers of a loader of fixed-size images built on a SampleLoader (sample_loader.h), as
// the ImageNet and COCO loaders are: each batch's images are decoded straight into their slices of one
// batch-wide buffer, so they stack as they are decoded, and the consumer takes them with one copy into
// memory it owns. The workers' buffers and the consumer's are both reused from batch to batch: fresh
// memory's zero fill and page faults (~0.6 MB per 224 x 224 image) can cost more than the decode
// (measured: 330 vs 915 images/s per thread). Pixel is the element type: float for COCO's normalised
// images, uint8_t for ImageNet's 8-bit ones (BatchPixels, BatchBytes). Thread-safe.
//
// With an allocator (the consumer's memory: pinned memory that a GPU copies from, say) the workers
// decode into buffers it gives, and hand_over() passes a delivered batch's buffer itself to the
// consumer: no copy at all. Such buffers are never reused here; the allocator's owner decides when
// the memory is free again (a CUDA host allocator, once the copies that read it are done).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "datasets/sample_loader.h"

namespace mlh {

template <class Pixel>
class BasicBatchPixels {
 public:
  // One batch's memory from an allocator: `values` points into what `owner` keeps alive.
  struct Memory {
    Pixel* values = nullptr;
    std::shared_ptr<void> owner;
  };
  // Memory for `values` values (>= 1), uninitialised; called by the loader's workers' lock holder.
  using Allocate = std::function<Memory(int64_t values)>;
  struct Buffer {  // one batch's pixels
    Memory memory;  // uninitialised until written
    int64_t capacity = 0;
  };
  // One image's place in its batch's buffer; empty for a skipped image.
  struct Slot {
    std::shared_ptr<Buffer> buffer;
    Pixel* out = nullptr;  // image_values values, all of which the decode writes
  };

  // image_values: values per image (>= 1). Keeps up to prefetch_batches + 1 batch buffers of its own;
  // with `allocate`, every batch's buffer comes from it instead and none is kept.
  BasicBatchPixels(int64_t image_values, int prefetch_batches, Allocate allocate = nullptr);
  int64_t image_values() const { return image_values_; }

  // The loader's SampleLoader::OpenBatch: points each sample's `pixels` (a Slot member) at its image
  // in one buffer, a spare one where there is one. Never zero-fills (this runs under the loader's
  // lock): each image is written by its decode, or zeroed by take_images when skipped.
  template <class Sample>
  void open_batch(SampleBatch<Sample>& batch);

  // Copies a delivered batch's images into `images` (batch.size() * image_values values), zeros for
  // skipped samples, then clears batch.samples and keeps their buffer for a later batch: move out
  // whatever else the samples hold first.
  template <class Sample>
  void take_images(SampleBatch<Sample>& batch, Pixel* images);

  // The delivered batch's buffer itself, the skipped images' pixels zeroed in place, its first
  // batch.size() * image_values values the batch's images; then clears batch.samples as take_images
  // does. Only with an allocator (else an InternalError). Empty Memory for a batch of no samples.
  template <class Sample>
  Memory hand_over(SampleBatch<Sample>& batch);

  // A loader's next() made of its next_into(images_for): the pixels go into the returned batch's own
  // `images` vector, one given back by recycle() where there is one.
  template <class NextInto>
  auto next_with_own_images(NextInto next_into);
  // Hands a consumed batch's `images` back for next_with_own_images to reuse. Keeps up to 2.
  void recycle(std::vector<Pixel> images);

 private:
  std::shared_ptr<Buffer> take_buffer(int64_t images);  // nullptr for no images
  template <class Sample>
  static std::shared_ptr<Buffer> buffer_of(SampleBatch<Sample>& batch);  // then clears batch.samples
  void copy_images(std::shared_ptr<Buffer> buffer, const std::vector<uint8_t>& skipped, Pixel* images);
  Memory hand_over_buffer(std::shared_ptr<Buffer> buffer, const std::vector<uint8_t>& skipped);
  std::vector<Pixel> take_spare_images();

  const int64_t image_values_;
  const size_t buffers_kept_;
  const Allocate allocate_;
  std::mutex spares_mutex_;
  std::vector<std::shared_ptr<Buffer>> spare_buffers_;
  std::vector<std::vector<Pixel>> spare_images_;  // given back by recycle()
};

using BatchPixels = BasicBatchPixels<float>;
using BatchBytes = BasicBatchPixels<uint8_t>;
extern template class BasicBatchPixels<float>;
extern template class BasicBatchPixels<uint8_t>;

template <class Pixel>
template <class Sample>
void BasicBatchPixels<Pixel>::open_batch(SampleBatch<Sample>& batch) {
  const std::shared_ptr<Buffer> buffer = take_buffer(batch.size());
  if (buffer == nullptr) return;
  for (size_t i = 0; i < batch.samples.size(); ++i) {
    batch.samples[i].pixels =
        Slot{buffer, buffer->memory.values + static_cast<int64_t>(i) * image_values_};
  }
}

template <class Pixel>
template <class Sample>
std::shared_ptr<typename BasicBatchPixels<Pixel>::Buffer> BasicBatchPixels<Pixel>::buffer_of(
    SampleBatch<Sample>& batch) {
  std::shared_ptr<Buffer> buffer;  // a skipped sample no longer points at it
  for (const Sample& sample : batch.samples) {
    if (sample.pixels.buffer != nullptr) {
      buffer = sample.pixels.buffer;
      break;
    }
  }
  batch.samples.clear();  // now `buffer` is its one owner
  return buffer;
}

template <class Pixel>
template <class Sample>
void BasicBatchPixels<Pixel>::take_images(SampleBatch<Sample>& batch, Pixel* images) {
  copy_images(buffer_of(batch), batch.skipped, images);
}

template <class Pixel>
template <class Sample>
typename BasicBatchPixels<Pixel>::Memory BasicBatchPixels<Pixel>::hand_over(SampleBatch<Sample>& batch) {
  return hand_over_buffer(buffer_of(batch), batch.skipped);
}

template <class Pixel>
template <class NextInto>
auto BasicBatchPixels<Pixel>::next_with_own_images(NextInto next_into) {
  std::vector<Pixel> images = take_spare_images();
  auto batch = next_into([&](int64_t count) {
    // Every value is written (a skipped image's zeros included): a recycled buffer needs no clearing.
    images.resize(static_cast<size_t>(count * image_values_));
    return images.data();
  });
  batch.images = std::move(images);
  return batch;
}

}  // namespace mlh
