// The ResNet classifier's training step: the model, its optimizer over parameter_groups(), and the
// label-smoothed cross-entropy summed over each gradient shard (harness/train_step.h makes it the
// global batch's mean). Training (ResNetWorkload::train_epoch) and `mlharness bench` both step
// through ResNetTrainer::train_on, bench through make_train_bench_step (harness/bench.h), so bench times the
// step that training runs (tests/workloads/resnet_trainer_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "harness/bench.h"
#include "harness/optimizer.h"
#include "harness/train_step.h"
#include "harness/world.h"
#include "workloads/common/resnet.h"

namespace mlh::resnet {

// The parameters by how the optimizer treats them: conv and FC weights (decayed; LARS-adapted),
// the FC bias (decayed, as the reference's L2 covers every non-batch-norm variable; not adapted),
// and batch norm's scale and shift (neither).
std::vector<ParameterGroup> parameter_groups(common::ResNet& model, double weight_decay);

// One gradient shard: images [N, C, H, W] and their labels [N] on the model's device, in the
// memory format it trains in. N may be 0 (every image of the shard was skipped).
struct ImageShard {
  torch::Tensor images, labels;
};

// This rank's shards of one global batch of `global_count` images, in shard order.
struct ResNetBatch {
  std::vector<ImageShard> shards;
  int64_t global_count = 0;
};

class ResNetTrainer {
 public:
  // `model` already sits on options.device in the memory format it trains in, and `optimizer` was
  // built over its parameters. Broadcasts rank 0's weights (every rank builds its trainer).
  ResNetTrainer(common::ResNet model, std::unique_ptr<Optimizer> optimizer, double label_smoothing,
                const World& world, TrainStepOptions options);

  // One step on `batch`, the model in training mode (the caller sets it); returns this rank's summed loss.
  torch::Tensor train_on(const ResNetBatch& batch);

  common::ResNet& model() { return model_; }
  TrainStep& step() { return step_; }

 private:
  common::ResNet model_;
  double label_smoothing_;
  TrainStep step_;
};

}  // namespace mlh::resnet
