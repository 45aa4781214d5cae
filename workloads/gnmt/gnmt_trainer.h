// GNMT and its one training step (harness/train_step.h): Adam at the learning rate set before each
// step, the global gradient norm clipped, the label-smoothed loss summed over each gradient shard's
// predicted target tokens and divided by the global batch's sentence pairs (the reference's loss).
// Training (train_translation_epoch) and `mlharness bench` (harness/bench.h make_train_bench_step) both
// step through train_on, so bench times the step that training runs
// (tests/workloads/gnmt_trainer_test.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include <torch/torch.h>

#include "harness/fused_adam.h"
#include "harness/train_step.h"
#include "harness/world.h"
#include "workloads/common/translation_steps.h"
#include "workloads/gnmt/gnmt.h"

namespace mlh::gnmt {

struct GnmtTrainerOptions {
  explicit GnmtTrainerOptions(GnmtOptions model) : model_(std::move(model)) {}
  TORCH_ARG(GnmtOptions, model);
  TORCH_ARG(AdamOptions, adam);             // its learning rate is whatever step().set_learning_rate last set
  TORCH_ARG(double, label_smoothing) = 0.1;
  TORCH_ARG(TrainStepOptions, step);        // precision, device and the gradient clip norm
};

class GnmtTrainer {
 public:
  // Builds the model on the options' device, its weights drawn from torch's generator as it stands
  // (seed it first). A collective: every rank builds its trainer; `world` must outlive it.
  GnmtTrainer(const GnmtTrainerOptions& options, const World& world);

  // One step over this rank's batch.shards of a global batch whose loss_divisor is its sentence
  // pairs; batch.shard(k) gives shard k's ids, BOS ... EOS on both sides (undefined: an empty
  // shard). The target's BOS is fed, not predicted. Returns this rank's summed loss.
  torch::Tensor train_on(const TranslationBatch& batch);

  Gnmt& model() { return model_; }
  TrainStep& step() { return *step_; }

 private:
  Gnmt model_;
  torch::Device device_;
  double label_smoothing_;
  std::unique_ptr<TrainStep> step_;
};

}  // namespace mlh::gnmt
