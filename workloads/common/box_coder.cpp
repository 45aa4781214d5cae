#include "workloads/common/box_coder.h"

#include <vector>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::common {

namespace {

// A box's width, height and centre in the inclusive pixel convention.
struct Extent {
  torch::Tensor width, height, centre_x, centre_y;
};

Extent extent_of(const torch::Tensor& boxes_ltrb) {
  const torch::Tensor left = boxes_ltrb.select(-1, 0);
  const torch::Tensor top = boxes_ltrb.select(-1, 1);
  Extent extent;
  extent.width = boxes_ltrb.select(-1, 2) - left + 1;
  extent.height = boxes_ltrb.select(-1, 3) - top + 1;
  extent.centre_x = left + 0.5 * extent.width;
  extent.centre_y = top + 0.5 * extent.height;
  return extent;
}

}  // namespace

torch::Tensor BoxCoder::encode(const torch::Tensor& reference_boxes, const torch::Tensor& proposals) const {
  MLH_ASSERT(reference_boxes.dim() >= 1 && reference_boxes.size(-1) == 4);
  MLH_ASSERT(proposals.dim() >= 1 && proposals.size(-1) == 4);
  const Extent proposal = extent_of(proposals);
  const Extent target = extent_of(reference_boxes.to(proposals.device(), proposals.scalar_type()));
  return torch::stack({weights_.x * (target.centre_x - proposal.centre_x) / proposal.width,
                       weights_.y * (target.centre_y - proposal.centre_y) / proposal.height,
                       weights_.w * torch::log(target.width / proposal.width),
                       weights_.h * torch::log(target.height / proposal.height)},
                      -1);
}

torch::Tensor BoxCoder::decode(const torch::Tensor& codes, const torch::Tensor& boxes) const {
  MLH_ASSERT(codes.dim() >= 1 && codes.size(-1) % 4 == 0);
  MLH_ASSERT(boxes.dim() >= 1 && boxes.size(-1) == 4);
  std::vector<int64_t> per_box = codes.sizes().vec();
  per_box.back() /= 4;
  per_box.push_back(4);
  const torch::Tensor split = codes.reshape(per_box);  // [..., k, 4]
  // Each box against its row's k codes: [..., 1].
  const Extent box = extent_of(boxes.to(codes.device(), codes.scalar_type()).unsqueeze(-2));
  const torch::Tensor dx = split.select(-1, 0) / weights_.x;
  const torch::Tensor dy = split.select(-1, 1) / weights_.y;
  const torch::Tensor dw = (split.select(-1, 2) / weights_.w).clamp_max(xform_clip_);
  const torch::Tensor dh = (split.select(-1, 3) / weights_.h).clamp_max(xform_clip_);
  const torch::Tensor centre_x = dx * box.width + box.centre_x;
  const torch::Tensor centre_y = dy * box.height + box.centre_y;
  const torch::Tensor width = torch::exp(dw) * box.width;
  const torch::Tensor height = torch::exp(dh) * box.height;
  const torch::Tensor decoded = torch::stack(
      {centre_x - 0.5 * width, centre_y - 0.5 * height, centre_x + 0.5 * width - 1, centre_y + 0.5 * height - 1}, -1);
  std::vector<int64_t> out = decoded.sizes().vec();
  out.pop_back();
  out.back() *= 4;
  return decoded.reshape(out);
}

}  // namespace mlh::common
