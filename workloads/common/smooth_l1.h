// The smooth-L1 loss with a transition point beta, as Mask R-CNN's reference writes it
// (maskrcnn_benchmark/layers/smooth_l1_loss.py): per element, with d = |input - target|,
//   0.5 d^2 / beta  where d < beta,   d - 0.5 beta  elsewhere,
// summed (the reference's size_average=False). The RPN uses beta 1/9, the box head 1. SSD's loss has
// its own (common/ssd_loss.h).
#pragma once

#include <torch/types.h>

namespace mlh::common {

// input and target of one shape (floating); a 0-d tensor of their dtype on their device,
// differentiable in both. beta > 0 (beta = 0 is the plain L1 sum).
torch::Tensor smooth_l1_loss_sum(const torch::Tensor& input, const torch::Tensor& target, double beta);

}  // namespace mlh::common
