// Mask R-CNN's box regression coding (spec/workloads.md §4), as the MLPerf v0.7 reference's BoxCoder
// (maskrcnn_benchmark/modeling/box_coder.py). Boxes are ltrb in pixels with the reference's inclusive
// convention: a box's width is right - left + 1 (height likewise), its centre left + width / 2.
// For a proposal p and a reference (ground-truth) box g, with weights (wx, wy, ww, wh):
//   code = (wx (x_g - x_p) / w_p, wy (y_g - y_p) / h_p, ww ln(w_g / w_p), wh ln(h_g / h_p)).
// Decoding divides by the weights, clamps the width and height codes from above at xform_clip
// (ln(1000 / 16), so a box grows at most 62.5 times) and gives back
//   (x - w / 2, y - h / 2, x + w / 2 - 1, y + h / 2 - 1).
// Everything runs on the inputs' device in their dtype, elementwise: no host synchronisation.
#pragma once

#include <cmath>

#include <torch/types.h>

namespace mlh::common {

struct BoxCoderWeights {
  double x = 1.0;
  double y = 1.0;
  double w = 1.0;
  double h = 1.0;
};

// The reference's weights: the RPN's (MODEL.RPN.BBOX_REG_WEIGHTS) and the box head's
// (MODEL.ROI_HEADS.BBOX_REG_WEIGHTS).
inline constexpr BoxCoderWeights kRpnBoxCoderWeights{1.0, 1.0, 1.0, 1.0};
inline constexpr BoxCoderWeights kRoiBoxCoderWeights{10.0, 10.0, 5.0, 5.0};

class BoxCoder {
 public:
  explicit BoxCoder(BoxCoderWeights weights, double xform_clip = std::log(1000.0 / 16.0))
      : weights_(weights), xform_clip_(xform_clip) {}

  // The codes of reference_boxes [..., 4] against proposals [..., 4] (leading dimensions broadcast):
  // [..., 4], in the proposals' dtype and on their device (reference_boxes are moved there).
  torch::Tensor encode(const torch::Tensor& reference_boxes, const torch::Tensor& proposals) const;

  // The boxes that codes [..., 4k] (k boxes per row, e.g. one per class) describe against boxes
  // [..., 4] (leading dimensions broadcast): [..., 4k] ltrb, in the codes' dtype and on their device
  // (boxes are moved there).
  torch::Tensor decode(const torch::Tensor& codes, const torch::Tensor& boxes) const;

  const BoxCoderWeights& weights() const { return weights_; }
  double xform_clip() const { return xform_clip_; }

 private:
  BoxCoderWeights weights_;
  double xform_clip_;
};

}  // namespace mlh::common
