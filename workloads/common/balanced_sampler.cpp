#include "workloads/common/balanced_sampler.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::common {

namespace {

// The first `quota` (a 0-d int64 tensor on the device) of `candidates` [P] bool, in the order in which
// `permutation` [P] visits them.
torch::Tensor first_in_order(const torch::Tensor& candidates, const torch::Tensor& permutation,
                             const torch::Tensor& quota) {
  const torch::Tensor visited = candidates.index_select(0, permutation);
  const torch::Tensor taken = visited & (visited.cumsum(0) <= quota);
  return torch::zeros_like(candidates).scatter_(0, permutation, taken);
}

}  // namespace

SampledMasks sample_balanced(const torch::Tensor& labels, const BalancedSamplerOptions& options,
                             torch::Generator& generator) {
  MLH_ASSERT(labels.dim() == 1);
  MLH_ASSERT(options.batch_size_per_image >= 0 && options.positive_fraction >= 0.0 &&
             options.positive_fraction <= 1.0);
  const torch::Tensor permutation =
      torch::randperm(labels.size(0), generator, labels.options().dtype(torch::kLong));
  const torch::Tensor positive_candidates = labels >= 1;
  const torch::Tensor negative_candidates = labels == 0;
  const auto positive_quota = static_cast<int64_t>(static_cast<double>(options.batch_size_per_image) *
                                                   options.positive_fraction);
  const torch::Tensor positives_taken = positive_candidates.sum().clamp_max(positive_quota);
  SampledMasks masks;
  masks.positive = first_in_order(positive_candidates, permutation,
                                  torch::full({}, positive_quota, permutation.options()));
  masks.negative =
      first_in_order(negative_candidates, permutation, options.batch_size_per_image - positives_taken);
  return masks;
}

std::vector<SampledMasks> sample_balanced(const std::vector<torch::Tensor>& labels_per_image,
                                          const BalancedSamplerOptions& options, torch::Generator& generator) {
  std::vector<SampledMasks> masks;
  masks.reserve(labels_per_image.size());
  for (const torch::Tensor& labels : labels_per_image) masks.push_back(sample_balanced(labels, options, generator));
  return masks;
}

}  // namespace mlh::common
