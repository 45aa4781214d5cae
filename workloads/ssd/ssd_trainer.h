// SSD's training step: the model, SGD over every parameter (the reference's torch SGD: weight decay on
// all of them), and the SSD loss (workloads/common/ssd_loss.h) on targets matched to the default
// boxes (workloads/common/box_matching.h) on the model's device. Training (SsdWorkload::train_epoch)
// and `mlharness bench` both step through SsdTrainer::train_on, so bench times the step training runs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "harness/optimizer.h"
#include "harness/train_step.h"
#include "harness/world.h"
#include "workloads/common/default_boxes.h"
#include "workloads/ssd/ssd300.h"

namespace mlh::ssd {

// One gradient shard on the model's device: images [N, 3, S, S] and, per image, its boxes [G, 4]
// (ltrb, normalised to the image) and labels [G] (int64, 1..C-1). N may be 0.
struct DetectionShard {
  torch::Tensor images;
  std::vector<torch::Tensor> boxes_ltrb, labels;
};

// This rank's shards of one global batch of `global_count` images, in shard order.
struct SsdBatch {
  std::vector<DetectionShard> shards;
  int64_t global_count = 0;
};

class SsdTrainer {
 public:
  // `model` sits on options.device; `defaults` are the model's default boxes (any device). Broadcasts
  // rank 0's weights (every rank builds its trainer).
  SsdTrainer(Ssd300 model, const common::DefaultBoxes& defaults, std::unique_ptr<Optimizer> optimizer,
             const World& world, TrainStepOptions options);

  // One step on `batch`, the model in training mode (the caller sets it); returns this rank's summed
  // loss (each image's loss, as ssd_loss defines it, summed).
  torch::Tensor train_on(const SsdBatch& batch);

  Ssd300& model() { return model_; }
  TrainStep& step() { return step_; }
  const common::DefaultBoxes& default_boxes() const { return defaults_; }

 private:
  Ssd300 model_;
  common::DefaultBoxes defaults_;  // on the model's device
  TrainStep step_;
};

// Every parameter in one SGD group with the weight decay, as torch.optim.SGD(model.parameters()).
std::unique_ptr<Optimizer> make_ssd_sgd(Ssd300& model, double learning_rate, double momentum, double weight_decay);

}  // namespace mlh::ssd
