// The COCO batches of Mask R-CNN (spec/workloads.md §4), as the MLPerf v0.7 reference makes them
// (maskrcnn_benchmark's COCODataset, transforms, BoxList, SegmentationMask, BatchCollator): a
// SampleLoader (datasets/sample_loader.h) whose per-sample decode reads an image's JPEG on the worker
// threads (coco::read_annotated_image), resizes it to its own size (short side min_size, long side at
// most max_size), maybe flips it and writes it as BGR on the 0-255 scale less the means, CHW float
// (or, with rgb and pixel_scale 1, as torchvision's ToTensor and Normalize: RGB on 0-1, normalised);
// the consumer's thread then pads the batch's images with zeros into one tensor. Threads,
// prefetching, plan order, errors and skipping are the SampleLoader's. Per-sample results depend only
// on (seed, epoch, image index): not on thread count, batch composition or rank.
//
// Ground truth, as the reference's dataset and transforms, in float32 step for step:
// - crowd objects are dropped; a box [x, y, w, h] becomes (x, y, x + max(w - 1, 0), y + max(h - 1, 0))
//   (image_targets.h's inclusive pixels), clamped to [0, W - 1] x [0, H - 1] of the original image,
//   and dropped, with its mask and label, unless x2 > x1 and y2 > y1;
// - then resized: x coordinates (boxes' and polygons') times W' / W, y times H' / H, each ratio
//   taken in double and rounded to float32;
// - then, when flipped, x becomes W' - x - 1 (boxes' x1 and x2 swap).
// Masks must be polygons: a non-crowd RLE object is a UserError (the reference has no resize for
// one); an object whose polygons were all dropped by the reader stays Segmentation::Kind::kNone.
//
// Pixels differ from the reference's: the resize is OpenCV's bilinear on the 8-bit image, the
// reference's PIL's BILINEAR, which filters over a wider support when shrinking and rounds
// differently; COCO's images are mostly enlarged (640 x 480 -> 1066 x 800), where both interpolate
// the same two neighbours per axis and should differ only in rounding (not measured here).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "datasets/coco/annotations.h"
#include "datasets/image_batch_loader.h"
#include "datasets/sample_loader.h"
#include "workloads/maskrcnn/image_targets.h"

namespace mlh::maskrcnn {

struct MaskRcnnLoaderOptions : ImageLoadingOptions {  // threads, prefetch_batches, on_bad_image
  int64_t min_size = 800;   // INPUT.MIN_SIZE_TRAIN / _TEST
  int64_t max_size = 1333;  // INPUT.MAX_SIZE_TRAIN / _TEST
  bool train = true;        // train: a left-right flip with probability 0.5; eval: none
  uint64_t seed = 0;
  // Channel c of the output is (v / 255 * pixel_scale - pixel_means[c]) / pixel_stds[c] for 8-bit level
  // v; the channels are B, G, R (the reference's TO_BGR255), or R, G, B with rgb.
  bool rgb = false;
  float pixel_scale = 255.0f;
  std::array<float, 3> pixel_means = {102.9801f, 115.9465f, 122.7717f};
  std::array<float, 3> pixel_stds = {1.0f, 1.0f, 1.0f};
  int64_t size_divisibility = 32;  // padded sides are multiples of it (1: no rounding)
};

// Throws UserError "maskrcnn loader: <option> is <value>; <fix>" for options out of range
// (min_size, max_size or size_divisibility below 1, a std or pixel_scale not positive, threads,
// prefetch_batches).
void check_maskrcnn_loader_options(const MaskRcnnLoaderOptions& options);

// The resized size of a width x height image, as the reference's Resize.get_size: the short side
// becomes min_size, unless the long side would then pass max_size, in which case the short side is
// round(max_size * short / long) (Python's round: halves to even); the long side is
// floor(short' * long / short); an image whose short side already has the size is kept. Sides
// below 1 are raised to 1 (the reference fails on such a sliver).
ImageSize resized_size(int64_t width, int64_t height, int64_t min_size, int64_t max_size);

// One image's ground truth after its transform (see above), on the host.
struct HostTargets {
  std::vector<float> boxes_ltrb;           // 4 per object, pixels of the resized image, inclusive
  std::vector<int64_t> labels;             // contiguous 1..num_classes, one per object
  std::vector<coco::Segmentation> masks;   // one per object, pixels of the resized image
  int64_t image_id = 0;                    // COCO's id (set for skipped images too)
  int64_t width = 0, height = 0;           // the original image's size (from the annotations)
  bool flipped = false;
  bool skipped = false;                    // a bad image skipped: zero pixels, no objects
};

// The targets of `image` resized to `resized` and flipped when `flip`, as described above: fills
// boxes_ltrb, labels, masks and flipped (the rest is the caller's). Throws UserError for a non-crowd
// RLE object, naming annotations.path and the annotation id.
void transform_targets(const coco::Annotations& annotations, const coco::Image& image,
                       const ImageSize& resized, bool flip, HostTargets& targets);

// Whether image `index` is flipped in `epoch` of a training run under `seed` (probability 0.5).
bool draws_flip(uint64_t seed, int64_t epoch, int32_t index);

struct MaskRcnnBatch {
  // [N, 3, H_pad, W_pad] float32 on the CPU: image i in [i, :, :h_i, :w_i], zeros around it (a
  // skipped image all zeros); H_pad, W_pad the batch's largest sides rounded up to
  // size_divisibility ([0, 3, 0, 0] for no images).
  torch::Tensor images;
  std::vector<ImageSize> image_sizes;  // N: each image's size before padding (a skipped image's is
                                       // the size it would have had)
  std::vector<HostTargets> targets;    // N
  int64_t skipped = 0;                 // images skipped in this batch
};

// The training images as the reference keeps them (COCODataset with
// remove_images_without_annotations, v0.7): those with at least one object, crowd or not, whose box
// has both w and h above 1. Indices into annotations.images, ascending.
std::vector<int32_t> training_image_indices(const coco::Annotations& annotations);

// `targets`' boxes and labels on `device` (pinned, non-blocking copies to a GPU), masks copied.
std::vector<ImageTargets> targets_on_device(const std::vector<HostTargets>& targets, torch::Device device);

// A bad image is one coco::read_annotated_image rejects (datasets/coco/images.h): BadSample
// "<path>: <reason>"; under kSkip each prints "warning: skipping <path>: <reason>" when it is met.
// A non-crowd RLE object (transform_targets) fails its batch under either policy.
class MaskRcnnLoader {
 public:
  // Keeps a reference to `annotations`, which must outlive the loader; image i is
  // <image_folder>/<annotations.images[i].file_name>. Throws UserError for options out of range.
  MaskRcnnLoader(const coco::Annotations& annotations, std::string image_folder, MaskRcnnLoaderOptions options);
  ~MaskRcnnLoader();  // stops and joins the workers; safe while they are mid-batch
  MaskRcnnLoader(const MaskRcnnLoader&) = delete;
  MaskRcnnLoader& operator=(const MaskRcnnLoader&) = delete;

  // Starts decoding `batches` (indices into annotations.images) for `epoch`, replacing any previous
  // plan, as SampleLoader::start.
  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch);
  // The next batch of the plan, in plan order, as SampleLoader::next: under kFail, the UserError of
  // the batch's first bad image, naming the file.
  MaskRcnnBatch next();
  int64_t skipped_total() const;                  // in delivered batches
  std::vector<std::string> skipped_files() const;  // in delivery order (the first 100)

 private:
  struct Sample {
    std::vector<float> pixels;  // 3 x height x width, CHW
    ImageSize size;
    HostTargets targets;
  };
  void decode(int32_t index, int64_t epoch, Sample& sample) const;
  MaskRcnnBatch collate(SampleBatch<Sample>& samples) const;  // moves the samples' targets out

  const coco::Annotations& annotations_;
  const std::string image_folder_;
  const MaskRcnnLoaderOptions options_;
  std::array<std::array<float, 256>, 3> channel_values_;  // B, G, R: level -> normalised value
  SampleLoader<Sample> samples_;  // last: its workers use the members above
};

}  // namespace mlh::maskrcnn
