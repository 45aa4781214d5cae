// Run-length masks as pycocotools' mask API defines them (maskApi.c of pycocotools 2.0 on PyPI),
// result for result: Mask R-CNN's mask AP is measured on these. No LibTorch here.
//
// - A mask of height x width pixels is read column by column (column-major, as numpy's Fortran
//   order); `counts` alternate runs of 0s and 1s, starting with 0s (a mask whose first pixel is set
//   starts with a count of 0). Every function here gives the counts pycocotools gives, zero-length
//   runs included.
// - The compressed form is COCO's `counts` string: each count in 6-bit groups, 5 bits of value and a
//   continuation bit, as characters from '0' (48), the last group's 0x10 the sign; from the fourth
//   count on, the difference from the count two before is written.
// - Sizes: height * width must be below 2^32 (pycocotools' counts and areas are 32-bit).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlh::coco {

// A binary mask, run-length encoded (see above). An empty `counts` is no mask (pycocotools' m = 0).
struct RunLengthMask {
  int64_t height = 0, width = 0;
  std::vector<uint32_t> counts;

  bool operator==(const RunLengthMask& other) const {
    return height == other.height && width == other.width && counts == other.counts;
  }
};

// Builds counts from runs of pixels in column-major order, as rleEncode counts them: a count ends
// where the value changes, the first is of 0s (0 when the first pixel is set), and no other count is
// 0. For encoders that know their pixels in stretches (a pasted box amid zeros).
class RunLengthWriter {
 public:
  void add(bool value, uint64_t num_pixels) {
    if (num_pixels == 0) return;
    if (value != value_) {
      counts_.push_back(static_cast<uint32_t>(run_));
      value_ = value;
      run_ = 0;
    }
    run_ += num_pixels;
  }
  std::vector<uint32_t> finish() {
    counts_.push_back(static_cast<uint32_t>(run_));
    return std::move(counts_);
  }

 private:
  bool value_ = false;
  uint64_t run_ = 0;
  std::vector<uint32_t> counts_;
};

// rleEncode: a height x width mask held column by column (pixel (row, column) at
// column * height + row), nonzero bytes set. `encode_row_major_mask` takes the image layout
// (row * width + column) and gives the same RLE as encoding its transpose, without a copy.
RunLengthMask encode_column_major_mask(const uint8_t* pixels, int64_t height, int64_t width);
RunLengthMask encode_row_major_mask(const uint8_t* pixels, int64_t height, int64_t width);

// rleDecode: the mask column by column, 0 or 1 a byte.
std::vector<uint8_t> decode_to_column_major(const RunLengthMask& mask);

// rleToString and rleFrString. decode_rle_string returns "" or what is wrong with `text` (a
// character outside '0'..'o', a count cut short, a count outside 0..2^32-1), leaving `counts` as far
// as it got; pycocotools reads such strings into wrapped counts instead.
std::string encode_rle_string(const std::vector<uint32_t>& counts);
std::string decode_rle_string(const std::string& text, std::vector<uint32_t>& counts);

// rleArea: the number of set pixels.
uint64_t mask_area(const RunLengthMask& mask);

// rleToBbox: [x, y, width, height] of the set pixels, in pixels; all 0 for a mask of fewer than two
// counts. As PyPI's pycocotools 2.0 computes it (the 2015 cocodataset code differs only for counts
// with empty runs of 1s): a run of 1s that continues into a later column makes the box span the
// whole height; counts whose runs of 1s are all empty give a wrapped (about 2^32) width and height.
std::array<double, 4> mask_box(const RunLengthMask& mask);

// rleMerge over `masks`: their union, or their intersection when `intersect`. None gives a 0 x 0
// mask with no counts; masks of different sizes give the same (pycocotools' answer, not an error).
RunLengthMask merge_masks(const std::vector<const RunLengthMask*>& masks, bool intersect);

// bbIou of a detection's and a ground truth's boxes, [x, y, width, height]: intersection over union,
// or over the detection's area when the ground truth is crowd; 0 when they do not overlap. In
// maskApi.c's operation order, so the box AP of COCOeval comes out bit for bit.
double box_iou(const std::array<double, 4>& detection_box, const std::array<double, 4>& ground_truth_box, bool crowd);

// rleIou of one detection and one ground truth, given their mask_box()es: the bounding boxes are
// compared first (box_iou, with the crowd rule) and a pair whose boxes do not overlap is 0 without
// walking the runs; masks of different sizes give -1; otherwise intersection over union, or over the
// detection's area when the ground truth is crowd; 0 when the masks do not intersect.
double mask_iou(const RunLengthMask& detection, const std::array<double, 4>& detection_box,
                const RunLengthMask& ground_truth, const std::array<double, 4>& ground_truth_box, bool crowd);

// mask.iou(detections, ground_truths, iscrowd) of pycocotools: [detection][ground truth], row by row.
std::vector<double> mask_ious(const std::vector<RunLengthMask>& detections,
                              const std::vector<RunLengthMask>& ground_truths, const std::vector<bool>& crowd);

// rleFrPoly: one polygon (x0, y0, x1, y1, ... in image pixels) rasterised the way pycocotools does,
// bit for bit: the outline is walked at 5x resolution, and where it crosses a pixel column's centre
// line the column's fill toggles. An odd trailing number is ignored, as frPyObjects ignores it. Points outside
// the image are fine (clipped). Throws UserError for a coordinate that is not finite or lies beyond
// +-1e8 (where pycocotools' integer arithmetic overflows), or a size of 2^32 pixels or more. Work is
// proportional to the outline's length in 1/5 pixels; memory to the columns it crosses.
RunLengthMask polygon_to_mask(const std::vector<double>& xy, int64_t height, int64_t width);

// A multi-part object: the union of its polygons (frPyObjects then merge, as COCO.annToRLE does).
// No polygons: an empty height x width mask.
RunLengthMask polygons_to_mask(const std::vector<std::vector<double>>& polygons, int64_t height, int64_t width);

}  // namespace mlh::coco
