#include "workloads/common/box_ops.h"

#include <torch/torch.h>

namespace mlh::common {

namespace {
torch::Tensor xy_of(const torch::Tensor& boxes) { return boxes.narrow(-1, 0, 2); }
torch::Tensor second_pair_of(const torch::Tensor& boxes) { return boxes.narrow(-1, 2, 2); }
}  // namespace

torch::Tensor ltrb_to_xywh(const torch::Tensor& boxes_ltrb) {
  const torch::Tensor left_top = xy_of(boxes_ltrb);
  const torch::Tensor right_bottom = second_pair_of(boxes_ltrb);
  return torch::cat({0.5 * (left_top + right_bottom), right_bottom - left_top}, -1);
}

torch::Tensor xywh_to_ltrb(const torch::Tensor& boxes_xywh) {
  const torch::Tensor centre = xy_of(boxes_xywh);
  const torch::Tensor half_size = 0.5 * second_pair_of(boxes_xywh);
  return torch::cat({centre - half_size, centre + half_size}, -1);
}

torch::Tensor box_iou(const torch::Tensor& a_ltrb, const torch::Tensor& b_ltrb, BoxExtent extent) {
  const double last_pixel = extent == BoxExtent::kInclusivePixels ? 1.0 : 0.0;
  const torch::Tensor a = a_ltrb.unsqueeze(-2);  // [..., N, 1, 4]
  const torch::Tensor b = b_ltrb.unsqueeze(-3);  // [..., 1, M, 4]
  const torch::Tensor left_top = torch::max(xy_of(a), xy_of(b));
  const torch::Tensor right_bottom = torch::min(second_pair_of(a), second_pair_of(b));
  const torch::Tensor overlap = (right_bottom - left_top + last_pixel).clamp_min(0);
  const torch::Tensor intersection = overlap.select(-1, 0) * overlap.select(-1, 1);
  const torch::Tensor a_size = second_pair_of(a) - xy_of(a) + last_pixel;
  const torch::Tensor b_size = second_pair_of(b) - xy_of(b) + last_pixel;
  const torch::Tensor a_area = a_size.select(-1, 0) * a_size.select(-1, 1);
  const torch::Tensor b_area = b_size.select(-1, 0) * b_size.select(-1, 1);
  return intersection / (a_area + b_area - intersection);
}

torch::Tensor encode_boxes(const torch::Tensor& boxes_xywh, const torch::Tensor& defaults_xywh,
                           const BoxCodingVariances& variances) {
  const torch::Tensor defaults = defaults_xywh.to(boxes_xywh.device(), boxes_xywh.scalar_type());
  const torch::Tensor offset_xy = (1.0 / variances.xy) * (xy_of(boxes_xywh) - xy_of(defaults)) / second_pair_of(defaults);
  const torch::Tensor offset_wh = (1.0 / variances.wh) * (second_pair_of(boxes_xywh) / second_pair_of(defaults)).log();
  return torch::cat({offset_xy, offset_wh}, -1);
}

torch::Tensor decode_boxes(const torch::Tensor& offsets, const torch::Tensor& defaults_xywh,
                           const BoxCodingVariances& variances) {
  const torch::Tensor defaults = defaults_xywh.to(offsets.device(), offsets.scalar_type());
  const torch::Tensor centre = (variances.xy * xy_of(offsets)) * second_pair_of(defaults) + xy_of(defaults);
  const torch::Tensor size = (variances.wh * second_pair_of(offsets)).exp() * second_pair_of(defaults);
  return torch::cat({centre, size}, -1);
}

torch::Tensor first_argmax(const torch::Tensor& values, const torch::Tensor& maxima, int64_t dim) {
  const int64_t length = values.size(dim);
  std::vector<int64_t> shape(static_cast<size_t>(values.dim()), 1);
  shape[static_cast<size_t>(dim)] = length;
  const torch::Tensor positions =
      torch::arange(length, values.options().dtype(torch::kLong)).view(shape).expand(values.sizes());
  return positions.masked_fill(values != maxima.unsqueeze(dim), length).amin(dim);
}

}  // namespace mlh::common
