#include "workloads/common/smooth_l1.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::common {

torch::Tensor smooth_l1_loss_sum(const torch::Tensor& input, const torch::Tensor& target, double beta) {
  MLH_ASSERT(input.sizes() == target.sizes());
  MLH_ASSERT(beta >= 0.0);
  // ATen's kernel is the same piecewise formula, in one pass (and with the L1 gradient at beta = 0,
  // where the reference's where() would divide by zero).
  return torch::smooth_l1_loss(input, target, at::Reduction::Sum, beta);
}

}  // namespace mlh::common
