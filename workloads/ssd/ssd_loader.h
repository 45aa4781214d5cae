// The COCO batches of the SSD workload: an ImageBatchLoader (datasets/image_batch_loader.h) whose
// per-sample decode reads an image's JPEG (datasets/image_files.h), turns its annotations into
// normalised ltrb boxes and applies the SSD train or eval transform (ssd_transforms.h) straight into
// the image's slice of its batch's buffer. Threads, prefetching, plan order, errors and skipping are
// the SampleLoader's.
// Per-sample results depend only on (seed, epoch, image index): not on thread count, batch
// composition or rank.
//
// Boxes: pixel [x, y, w, h] becomes [x/W, y/H, (x+w)/W, (y+h)/H] (W, H the image's size), clipped to
// [0, 1]; boxes with no width or height left are dropped (the reference keeps them, but their
// log-size regression target is infinite). Crowd boxes are kept, as the reference keeps them. An image
// left with no box is kept, uncropped.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "datasets/batch_pixels.h"
#include "datasets/coco/annotations.h"
#include "datasets/image_batch_loader.h"
#include "workloads/ssd/ssd_transforms.h"

namespace mlh::ssd {

struct SsdLoaderOptions : ImageLoadingOptions {  // threads, prefetch_batches, on_bad_image
  SsdTransformOptions transform;  // out_size for both; the rest for training only
  bool train = true;              // train: draw_ssd_augmentation + ssd_train_transform; else eval
  uint64_t seed = 0;
};

// One image's ground truth after its transform.
struct DetectionTarget {
  std::vector<float> boxes_ltrb;  // 4 per box, normalised to the transformed image
  std::vector<int64_t> labels;    // contiguous 1..num_classes, one per box
  int64_t image_id = 0;           // COCO's id (set for skipped images too)
  int64_t width = 0, height = 0;  // the original image's size, pixels (from the annotations)
  bool skipped = false;           // a bad image skipped: zero pixels, no boxes
};

struct DetectionBatch {
  int64_t count = 0;          // slots: the number of indices asked for
  std::vector<float> images;  // count * 3 * out_size * out_size, CHW RGB per image
  std::vector<DetectionTarget> targets;  // count
  int64_t skipped = 0;                   // slots skipped in this batch
};

// Pixel [x, y, w, h] boxes of `image` as normalised ltrb boxes and labels, as described above.
void normalised_boxes_of(const coco::Annotations& annotations, const coco::Image& image,
                         std::vector<float>& boxes_ltrb, std::vector<int64_t>& labels);

// A bad image is one read_image_file (datasets/image_files.h) rejects (a file that is missing or
// unreadable, that OpenCV cannot decode, or a truncated JPEG), or one whose decoded size differs from
// the annotations' width and height. It throws BadSample "<path>: <reason>". Under kSkip each one
// prints "warning: skipping <path>: <reason>" to stderr when it is met. EXIF orientation is ignored
// (as PIL's Image.open, which the reference uses).
class SsdLoader {
 public:
  // Keeps a reference to `annotations`, which must outlive the loader; image i is
  // <image_folder>/<annotations.images[i].file_name>. Throws UserError for options out of range.
  // The rest is ImageBatchLoader's (datasets/image_batch_loader.h): the workers, plan order, errors,
  // skipping and pixel buffers; a batch lists indices into annotations.images.
  SsdLoader(const coco::Annotations& annotations, std::string image_folder, SsdLoaderOptions options);
  ~SsdLoader();  // stops and joins the workers; safe while they are mid-batch
  SsdLoader(const SsdLoader&) = delete;
  SsdLoader& operator=(const SsdLoader&) = delete;

  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch);
  DetectionBatch next();  // the pixels in the batch's own `images`
  DetectionBatch next_into(const std::function<float*(int64_t count)>& images_for);
  void recycle(DetectionBatch batch);  // its `images` for a later next()
  int64_t skipped_total() const;
  std::vector<std::string> skipped_files() const;
  int64_t image_floats() const { return images_.image_values(); }  // 3 * out_size * out_size

 private:
  struct Sample {
    BatchPixels::Slot pixels;
    std::vector<float> boxes_ltrb;
    std::vector<int64_t> labels;
  };
  void decode(int32_t index, int64_t epoch, Sample& sample) const;
  DetectionBatch targets_of(SampleBatch<Sample>& samples) const;  // moves the samples' boxes out

  const coco::Annotations& annotations_;
  const std::string image_folder_;
  const SsdLoaderOptions options_;
  ImageBatchLoader<float, Sample> images_;  // last: its workers use the members above
};

}  // namespace mlh::ssd
