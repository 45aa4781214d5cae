#include "workloads/common/ssd_loss.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::common {

torch::Tensor ssd_loss(const torch::Tensor& ploc, const torch::Tensor& plabel, const torch::Tensor& gloc,
                       const torch::Tensor& glabel) {
  MLH_ASSERT(ploc.dim() == 3 && ploc.size(1) == 4 && ploc.sizes() == gloc.sizes());
  MLH_ASSERT(plabel.dim() == 3 && plabel.size(0) == ploc.size(0) && plabel.size(2) == ploc.size(2));
  MLH_ASSERT(glabel.dim() == 2 && glabel.size(0) == ploc.size(0) && glabel.size(1) == ploc.size(2));
  namespace F = torch::nn::functional;
  const int64_t default_count = ploc.size(2);
  const torch::Tensor positive = glabel > 0;  // [N, D]
  const torch::Tensor positive_count = positive.sum(1);
  const torch::Tensor positive_weight = positive.to(ploc.scalar_type());

  const torch::Tensor smooth_l1 =
      F::smooth_l1_loss(ploc, gloc.to(ploc.scalar_type()), F::SmoothL1LossFuncOptions().reduction(torch::kNone)).sum(1);
  const torch::Tensor localisation = (positive_weight * smooth_l1).sum(1);

  const torch::Tensor confidence =
      F::cross_entropy(plabel, glabel, F::CrossEntropyFuncOptions().reduction(torch::kNone));  // [N, D]
  const torch::Tensor negative_loss = confidence.detach().masked_fill(positive, 0);
  const torch::Tensor by_loss = std::get<1>(negative_loss.sort(/*stable=*/true, 1, /*descending=*/true));
  const torch::Tensor rank = torch::empty_like(by_loss).scatter_(
      1, by_loss, torch::arange(default_count, by_loss.options()).expand_as(by_loss));
  const torch::Tensor hard_negative_count = (3 * positive_count).clamp_max(default_count).unsqueeze(1);
  const torch::Tensor hard_negative_weight = (rank < hard_negative_count).to(confidence.scalar_type());
  const torch::Tensor classification = (confidence * (positive_weight + hard_negative_weight)).sum(1);

  const torch::Tensor has_positive = (positive_count > 0).to(ploc.scalar_type());
  const torch::Tensor per_image =
      (localisation + classification) * has_positive / positive_count.to(ploc.scalar_type()).clamp_min(1e-6);
  return per_image.mean(0);
}

}  // namespace mlh::common
