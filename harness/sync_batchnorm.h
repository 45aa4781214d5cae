// BatchNorm2d whose training-mode statistics span a group of ranks (synchronised BatchNorm, as
// NVIDIA's SSD and PyTorch's SyncBatchNorm use it), for per-device batches too small for BatchNorm's
// own statistics: 4 images per GPU normalised over 8 GPUs are normalised over 32.
//
// SyncBatchNorm2d is a BatchNorm2d (the same parameters, buffers, names and state dicts; `as<
// torch::nn::BatchNorm2d>()` finds it) that behaves exactly as BatchNorm2d, the same call, until
// set_batchnorm_group gives it a group of more than one rank. From then on, in training mode, its
// forward all-reduces the per-channel count, sum and sum of squares over the group (in double, through
// the World's communicator) and normalises by the group's mean and biased variance; its backward
// all-reduces the per-channel sums of dy and dy * xhat, so the input's gradient is the gradient of the
// group's summed loss. The weight's and bias's gradients stay this rank's (the data-parallel gradient
// reduction sums them). Running statistics follow BatchNorm2d's rule with the group's statistics
// (unbiased variance over the group's count). Eval mode is BatchNorm2d's.
//
// Every rank of a group must run the same forward and backward passes in the same order, an empty
// batch included (it contributes a count of 0). The workloads' trainers therefore run the model on an
// empty gradient shard when BatchNorm is synchronised (workloads/*_trainer.cpp).
#pragma once

#include <cstdint>
#include <string>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/pimpl.h>

#include "harness/world.h"

namespace mlh {

// Ranks sharing BatchNorm statistics: consecutive blocks of `size` ranks of `world` (group g holds
// ranks [g * size, (g + 1) * size)). A size of 1 (or no world) is every rank on its own.
struct BatchNormGroup {
  const World* world = nullptr;
  int size = 1;

  bool synchronised() const { return world != nullptr && size > 1; }
};

// The group of `size` ranks of `world`. Throws UserError naming `key` when size is below 1 or does not
// divide the world's size.
BatchNormGroup make_batchnorm_group(const World& world, int64_t size, const std::string& key);

// Training-mode batch norm of x [N, C, H, W] (any memory format; N may be 0 on some ranks) over the
// group, as an autograd function of x, weight and bias (either may be undefined: no affine). Updates
// running_mean and running_var (when defined) by `momentum`. A collective of the group in forward
// and in backward. A group batch of one value per channel has no variance: the statistics are then
// not finite (BatchNorm2d throws there; this does not read its count back to the host).
torch::Tensor sync_batch_norm(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                              torch::Tensor running_mean, torch::Tensor running_var, double momentum, double eps,
                              const BatchNormGroup& group);

class SyncBatchNorm2dImpl : public torch::nn::BatchNorm2dImpl {
 public:
  using torch::nn::BatchNorm2dImpl::BatchNorm2dImpl;

  torch::Tensor forward(const torch::Tensor& input);
  // "mlh::SyncBatchNorm2d(C, eps=..., momentum=..., group=N)". Defined out of line: the class's key
  // function, so its vtables are emitted once, in sync_batchnorm.cpp.
  void pretty_print(std::ostream& stream) const override;
  void set_group(const BatchNormGroup& group) { group_ = group; }
  const BatchNormGroup& group() const { return group_; }

 private:
  BatchNormGroup group_;
};
TORCH_MODULE(SyncBatchNorm2d);

// Gives every SyncBatchNorm2d of `model` (any depth) `group`. Returns how many it set.
int64_t set_batchnorm_group(torch::nn::Module& model, const BatchNormGroup& group);

}  // namespace mlh
