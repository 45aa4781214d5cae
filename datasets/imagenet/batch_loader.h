// The ImageNet batches of the ResNet workload: an ImageBatchLoader (datasets/image_batch_loader.h)
// whose per-sample decode reads a JPEG (datasets/image_files.h), at the largest DCT reduction that the
// image's crop allows, and applies the MLPerf transform straight into the image's slice of its batch's
// buffer as 8-bit RGB, HWC, so the fixed-size images stack as they are decoded. The model's input is
// those bytes normalised (datasets/imagenet/normalize.h), on the device that trains. Threads,
// prefetching, plan order, errors and skipping are the SampleLoader's. Per-sample results depend only
// on (seed, epoch, sample index): not on thread count, batch composition or rank.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "datasets/batch_pixels.h"
#include "datasets/image_batch_loader.h"
#include "datasets/imagenet/folder.h"

namespace mlh::imagenet {

// What to do with a file that cannot be read or decoded: stop with a UserError, or skip it.
using BadImagePolicy = BadSamplePolicy;
BadImagePolicy parse_bad_image_policy(const std::string& name);  // "fail" | "skip", else UserError

struct LoaderOptions : ImageLoadingOptions {  // threads, prefetch_batches, on_bad_image
  int image_size = 224;
  int eval_resize = 256;  // short side before the eval centre crop (>= image_size)
  bool train = true;      // train: random crop + flip (draw_train_augmentation); else eval transform
  bool random_flip = true;
  // Decode a JPEG at 1/2, 1/4 or 1/8 of its size where the crop (train: train_reduction) or the
  // resize (eval: eval_reduction) still has enough pixels; the crop's geometry stays the seed's.
  bool reduced_decode = true;
  uint64_t seed = 0;
  // Where the workers decode each batch (BatchBytes::Allocate): the consumer's memory, taken by
  // next_in_place() without a copy. Unset: the loader's own reused buffers.
  BatchBytes::Allocate allocate_pixels;
};

// `options` when every value is in range, else a UserError naming the option.
const LoaderOptions& check_loader_options(const LoaderOptions& options);

struct ImageBatch {
  int64_t count = 0;            // slots: the number of indices asked for
  std::vector<uint8_t> images;  // count * image_size * image_size * 3: RGB, HWC per image
  BatchBytes::Memory memory;    // next_in_place(): the images where the workers wrote them, same layout
  std::vector<int64_t> labels;  // count; -1 for a slot whose image was skipped (zero pixels)
  int64_t skipped = 0;          // slots skipped in this batch
};

// Sample `index` of `folder` in `epoch` as BatchLoader decodes it: read, decoded (at the reduction the
// options allow) and transformed into out_hwc (image_size^2 x 3 bytes, RGB, HWC). Throws BadSample for
// a bad image (as below). Thread-safe. (For a loader that decodes on a GPU: the images it leaves to
// the CPU.)
void decode_sample(const ImageFolder& folder, const LoaderOptions& options, int32_t index, int64_t epoch,
                   uint8_t* out_hwc);

// A bad image is one read_image_file (datasets/image_files.h) rejects: a file that is missing or
// unreadable, that OpenCV cannot decode, or a truncated JPEG. Under kSkip each one prints a line
// "warning: skipping <path>: <reason>" to stderr when it is met.
class BatchLoader {
 public:
  // Keeps a reference to `folder`, which must outlive the loader. Throws UserError for options out
  // of range. The rest is ImageBatchLoader's (datasets/image_batch_loader.h): the workers, plan
  // order, errors, skipping and pixel buffers; a batch lists indices into folder.files.
  BatchLoader(const ImageFolder& folder, LoaderOptions options);
  ~BatchLoader();  // stops and joins the workers; safe while they are mid-batch
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch);
  ImageBatch next();  // the pixels in the batch's own `images`
  // The pixels in memory the caller owns (a pinned tensor's, say): a copy of the batch less.
  ImageBatch next_into(const std::function<uint8_t*(int64_t count)>& images_for);
  // The pixels where options.allocate_pixels had the workers write them (batch.memory): no copy.
  ImageBatch next_in_place();
  void recycle(ImageBatch batch);  // its `images` for a later next()
  int64_t skipped_total() const;
  std::vector<std::string> skipped_files() const;

 private:
  struct ImageSample {
    BatchBytes::Slot pixels;
  };
  void decode(int32_t index, int64_t epoch, ImageSample& sample) const;
  ImageBatch labelled(const SampleBatch<ImageSample>& samples) const;  // count, skipped, labels

  const ImageFolder& folder_;
  const LoaderOptions options_;
  ImageBatchLoader<uint8_t, ImageSample> images_;  // last: its workers use the members above
};

}  // namespace mlh::imagenet
