// The one data-parallel training step. Every workload trains through it, and `mlharness bench`
// times it on synthetic inputs, so bench measures the step that training runs. One call:
//   1. drops every gradient;
//   2. for each of this rank's gradient shards k: runs shard_loss(k) under the precision's autocast
//      (it returns the shard's summed loss), and back-propagates loss * loss_scale / loss_divisor;
//   3. sums the shards in a fixed pairwise order, then across ranks (harness/gradient_allreduce.h),
//      so the gradient is the global batch's, bitwise alike on 1 or 2 CPU ranks;
//   4. unscales; a step whose gradients are not all finite is skipped (fp16 loss scaling) by the
//      optimizer on the device, told by the loss scaler's found_inf;
//   5. clips the global gradient norm when asked (on the device), and lets the optimizer step.
// The loss it returns and keeps stays where it was computed. Nothing in a step reads the device
// back: no host sync and no collective per step beyond the gradients'.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "harness/gradient_allreduce.h"
#include "harness/mixed_precision.h"
#include "harness/optimizer.h"
#include "harness/workload.h"
#include "harness/world.h"

namespace mlh {

struct TrainStepOptions {
  Precision precision = Precision::kFp32;
  torch::Device device = torch::kCPU;
  double gradient_clip_norm = 0;  // the global L2 norm; 0: no clipping
};

class TrainStep {
 public:
  // The shard's summed loss (a scalar); an undefined tensor for a shard with no samples.
  using ShardLoss = std::function<torch::Tensor(int64_t shard)>;

  // Broadcasts rank 0's parameters to every rank (a collective: every rank constructs its step).
  TrainStep(std::vector<torch::Tensor> parameters, std::unique_ptr<Optimizer> optimizer, const World& world,
            TrainStepOptions options = {});

  // One step over `local_shards` shards; loss_divisor is what makes the summed loss the global
  // batch's mean (its samples, tokens or sentences, over all ranks). Returns this rank's summed loss.
  torch::Tensor run(int64_t local_shards, double loss_divisor, const ShardLoss& shard_loss);

  void set_learning_rate(double learning_rate) { optimizer_->set_learning_rate(learning_rate); }
  const Optimizer& optimizer() const { return *optimizer_; }
  const TrainStepOptions& options() const { return options_; }
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  // Steps skipped because the fp16 gradients overflowed.
  int64_t skipped_steps() const { return loss_scaler_.skipped_steps(); }

  // The summed loss of every step since the last call, over all ranks, and starts the sum again.
  // A collective: every rank calls it (once an epoch).
  double take_loss_sum();
  // The epoch's figures for the engine: `samples`, the loss sum (take_loss_sum) over `loss_divisor`,
  // and the steps skipped since the last call. A collective, once an epoch.
  TrainStats take_epoch_stats(int64_t samples, double loss_divisor);

  // The optimizer's and the loss scaler's state, under "optimizer/" and "loss_scaler/" (checkpoints,
  // harness/checkpoint.h). The parameters themselves belong to the model's state.
  void save_state(TrainingState& state) const;
  void load_state(const TrainingState& state);

 private:
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<Optimizer> optimizer_;
  const World& world_;
  TrainStepOptions options_;
  PairwiseGradientSum shard_sum_;
  GradientAllReducer reducer_;
  DynamicLossScaler loss_scaler_;
  torch::Tensor loss_sum_;  // double, on the device
  int64_t skipped_steps_taken_ = 0;
};

// clip_grad_norm_'s arithmetic (L2) without its read-back: the gradients of `parameters` are
// multiplied by min(1, max_norm / (norm + 1e-6)), a tensor on their device, where norm is their
// global L2 norm. Returns the norm (0-dim, on the device; undefined when no parameter has a gradient).
torch::Tensor clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm);

// A trainer's part of a checkpoint: `model`'s parameters and buffers under "model/", the step's
// optimizer and loss scaler, and the learning-rate schedule's step counter; load_training returns it.
void save_training(TrainingState& state, const torch::nn::Module& model, const TrainStep& step,
                   int64_t schedule_step = 0);
int64_t load_training(const TrainingState& state, torch::nn::Module& model, TrainStep& step);

}  // namespace mlh
