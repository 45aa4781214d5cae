#include "workloads/common/proposal_matcher.h"

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/box_ops.h"

namespace mlh::common {

torch::Tensor match_proposals(const torch::Tensor& quality, const ProposalMatcherOptions& options) {
  MLH_ASSERT(quality.dim() == 2);
  MLH_ASSERT(options.low_threshold <= options.high_threshold);
  const int64_t predictions = quality.size(1);
  const torch::TensorOptions index_options = quality.options().dtype(torch::kLong);
  if (quality.size(0) == 0) return torch::full({predictions}, kBelowLowThreshold, index_options);
  if (predictions == 0) return torch::empty({0}, index_options);

  const torch::Tensor best_quality = quality.amax(0);
  const torch::Tensor best_gt = first_argmax(quality, best_quality, 0);
  torch::Tensor matches = best_gt.masked_fill(best_quality < options.low_threshold, kBelowLowThreshold)
                              .masked_fill((best_quality >= options.low_threshold) &
                                               (best_quality < options.high_threshold),
                                           kBetweenThresholds);
  if (options.allow_low_quality_matches) {
    const torch::Tensor best_for_some_gt = (quality == quality.amax(1, /*keepdim=*/true)).any(0);
    matches = torch::where(best_for_some_gt, best_gt, matches);
  }
  return matches;
}

}  // namespace mlh::common
