// Box arithmetic shared by the detection workloads (SSD, spec/workloads.md §3; Mask R-CNN, §4).
// A box tensor is [..., 4] floating point, in one of two formats:
//   ltrb: (left, top, right, bottom);  xywh: (centre x, centre y, width, height).
// Every function keeps its inputs' device and dtype and broadcasts over leading dimensions.
#pragma once

#include <torch/types.h>

namespace mlh::common {

torch::Tensor ltrb_to_xywh(const torch::Tensor& boxes_ltrb);
torch::Tensor xywh_to_ltrb(const torch::Tensor& boxes_xywh);

// How a box's extent is read from its corners.
//   kContinuous: right - left (SSD's boxes, normalised to the image);
//   kInclusivePixels: right - left + 1, the last pixel counted (Mask R-CNN's boxes in pixels, the
//   reference's TO_REMOVE = 1 in boxlist_iou and its NMS kernel).
enum class BoxExtent { kContinuous, kInclusivePixels };

// Pairwise IoU of ltrb boxes: a [..., N, 4] and b [..., M, 4] give [..., N, M]. Negative extents of
// the intersection count 0. Two empty boxes that do not touch give 0/0 = NaN, as the MLPerf SSD
// reference's calc_iou_tensor does (callers that compare with `<` treat NaN as an overlap).
torch::Tensor box_iou(const torch::Tensor& a_ltrb, const torch::Tensor& b_ltrb,
                      BoxExtent extent = BoxExtent::kContinuous);

// The SSD offset coding's variances (the reference's DefaultBoxes scale_xy, scale_wh).
struct BoxCodingVariances {
  double xy = 0.1;
  double wh = 0.2;
};

// Offsets of boxes against default boxes, both xywh; default boxes [D, 4] broadcast against boxes
// [..., D, 4]:
//   ((x - x_d) / (xy w_d), (y - y_d) / (xy h_d), ln(w / w_d) / wh, ln(h / h_d) / wh),
// evaluated as the reference's Loss._loc_vec does ((1/xy) (x - x_d) / w_d, (1/wh) ln(w / w_d)).
torch::Tensor encode_boxes(const torch::Tensor& boxes_xywh, const torch::Tensor& defaults_xywh,
                           const BoxCodingVariances& variances = {});

// The inverse of encode_boxes, xywh out: (xy o_x w_d + x_d, xy o_y h_d + y_d, exp(wh o_w) w_d,
// exp(wh o_h) h_d), as the reference's Encoder.scale_back_batch.
torch::Tensor decode_boxes(const torch::Tensor& offsets, const torch::Tensor& defaults_xywh,
                           const BoxCodingVariances& variances = {});

// Index of the first maximum along `dim` (int64), given the maxima (values.amax(dim)), whatever the
// device's max kernel does with ties: matching that breaks ties by the lowest index on every device.
torch::Tensor first_argmax(const torch::Tensor& values, const torch::Tensor& maxima, int64_t dim);

}  // namespace mlh::common
