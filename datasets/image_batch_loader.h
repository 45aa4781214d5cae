// What every loader of fixed-size images shares (ImageNet's, SSD's COCO loader, the next image
// workload's): a SampleLoader (sample_loader.h) whose per-sample decode writes one image straight into
// its slice of its batch's buffer (BasicBatchPixels, batch_pixels.h); the options that drive it; the
// bad-image policy and its warning line; the three ways a consumer takes a batch's pixels. A loader
// built on it says only how a sample decodes and what else its batch carries (labels, boxes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "datasets/batch_pixels.h"
#include "datasets/sample_loader.h"

namespace mlh {

// The options every image loader has; a loader's options extend them.
struct ImageLoadingOptions {
  int threads = 1;           // worker threads (>= 1)
  int prefetch_batches = 2;  // batches decoded ahead of the one the consumer holds (>= 1)
  BadSamplePolicy on_bad_image = BadSamplePolicy::kFail;
};

// The hint a bad image's BadSample carries.
inline constexpr const char* kSkipBadImageHint = "set on_bad_image: skip to skip such files";

// Throws UserError "<loader_name>: threads is 0; use at least 1 worker thread" (prefetch_batches
// alike) for options out of range.
void check_image_loading_options(const ImageLoadingOptions& options, const std::string& loader_name);

// The SampleLoader's options: threads, prefetching and the bad-image policy; under kSkip each bad
// image prints "warning: skipping <path>: <reason>" to stderr when it is met.
SampleLoaderOptions sample_loader_options(const ImageLoadingOptions& options);

namespace detail {
void use_one_opencv_thread();  // cv::setNumThreads(1), process-wide
}  // namespace detail

// Sample: default-constructible, with a member `pixels` (BasicBatchPixels<Pixel>::Slot), the image's
// place in its batch's buffer, all of whose values its decode writes. Per-sample results are the
// decode's: they depend on what it reads of (index, epoch) only, not on threads or batches.
template <class Pixel, class Sample>
class ImageBatchLoader {
 public:
  using Pixels = BasicBatchPixels<Pixel>;
  using Decode = typename SampleLoader<Sample>::Decode;

  // `options` already checked; image_values: values per image; plans may hold the indices
  // [0, sample_count). Starts the workers (idle until start()) and sets OpenCV's own thread count to 1
  // (process-wide) so decodes do not oversubscribe. With `allocate` the workers decode into the
  // consumer's memory (next_in_place).
  ImageBatchLoader(const ImageLoadingOptions& options, int64_t image_values, int64_t sample_count,
                   Decode decode, typename Pixels::Allocate allocate = nullptr)
      : sample_count_(sample_count),
        pixels_(image_values, options.prefetch_batches, std::move(allocate)),
        samples_(sample_loader_options(options), std::move(decode),
                 [this](SampleBatch<Sample>& batch) { pixels_.open_batch(batch); }) {
    detail::use_one_opencv_thread();
  }

  // Destroying the loader stops and joins the workers; safe while they are mid-batch.

  // Starts decoding `batches` for `epoch`, replacing any previous plan: batches of the old plan not
  // yet delivered are dropped.
  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
    for (const std::vector<int32_t>& batch : batches) {
      for (const int32_t index : batch) MLH_ASSERT(index >= 0 && index < sample_count_);
    }
    samples_.start(std::move(batches), epoch);
  }

  // The next batch of the plan, in plan order; blocks until it is ready. Throws the UserError of the
  // batch's first bad image in plan order under kFail, naming the file; that batch is then dropped and
  // the next call moves on. Calling past the end of the plan is an InternalError.
  // describe(samples) makes the batch from its samples (count, skipped, labels, targets), moving out
  // whatever they hold but their pixels. Then next_into writes the pixels, zeros for a skipped image,
  // into images_for(batch.count), memory the caller owns.
  template <class Describe>
  auto next_into(Describe describe, const std::function<Pixel*(int64_t count)>& images_for) {
    SampleBatch<Sample> samples = samples_.next();
    auto batch = describe(samples);
    pixels_.take_images(samples, images_for(batch.count));
    return batch;
  }
  // As next_into, into the batch's own `images` vector (one given back by recycle() where there is one).
  template <class Describe>
  auto next(Describe describe) {
    return pixels_.next_with_own_images(
        [&](const auto& images_for) { return next_into(describe, images_for); });
  }
  // As next_into, but the pixels stay where the allocator's memory took them: batch.memory (empty for
  // a batch of no slots), no copy. Needs an allocator (else an InternalError).
  template <class Describe>
  auto next_in_place(Describe describe) {
    SampleBatch<Sample> samples = samples_.next();
    auto batch = describe(samples);
    batch.memory = pixels_.hand_over(samples);
    return batch;
  }
  // Hands a consumed batch's `images` back so a later next() reuses it. Keeps up to 2.
  void recycle(std::vector<Pixel> images) { pixels_.recycle(std::move(images)); }

  int64_t skipped_total() const { return samples_.skipped_total(); }  // in delivered batches
  // Their paths, in delivery order (the first 100).
  std::vector<std::string> skipped_files() const { return samples_.skipped_sources(); }
  int64_t image_values() const { return pixels_.image_values(); }

 private:
  const int64_t sample_count_;
  Pixels pixels_;
  SampleLoader<Sample> samples_;  // last: its workers use the members above
};

}  // namespace mlh
