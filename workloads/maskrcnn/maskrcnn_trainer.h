// Mask R-CNN's training step: the model's five losses (mask_rcnn.h) through the one data-parallel
// step (harness/train_step.h), with the reference's SGD groups. Training (the workload) and
// `mlharness bench` both step through MaskRcnnTrainer::train_on.
//
// The reference averages each GPU's batch losses over GPUs (DDP); here each gradient shard plays a
// GPU: its loss is its batch's, and the step divides their sum by the global batch's shard count. So
// the gradient depends on the shards, not on how ranks hold them. The anchors' and proposals' random
// sampling of a shard draws from a generator seeded by (step seed, shard's index in the global batch):
// the same global batch samples alike on one rank or several.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "harness/optimizer.h"
#include "harness/train_step.h"
#include "harness/world.h"
#include "workloads/maskrcnn/image_targets.h"
#include "workloads/maskrcnn/mask_rcnn.h"

namespace mlh::maskrcnn {

// One gradient shard on the model's device: padded images [n, 3, H, W], each image's size and targets.
struct MaskRcnnShard {
  torch::Tensor images;
  std::vector<ImageSize> image_sizes;
  std::vector<ImageTargets> targets;
  int64_t global_index = 0;  // the shard's place among the global batch's shards
};

// This rank's shards of one global batch of `global_shards` shards.
struct MaskRcnnStepBatch {
  std::vector<MaskRcnnShard> shards;
  int64_t global_shards = 1;
  uint64_t sampling_seed = 0;  // the step's: shard k samples from a generator seeded by (this, k)
};

class MaskRcnnTrainer {
 public:
  // `model` sits on options.device. Broadcasts rank 0's weights (every rank builds its trainer).
  MaskRcnnTrainer(MaskRcnn model, std::unique_ptr<Optimizer> optimizer, const World& world, TrainStepOptions options);

  // One step on `batch`, the model in training mode (the caller sets it); returns this rank's summed
  // shard losses (each the MaskRcnnLosses total of its shard).
  torch::Tensor train_on(const MaskRcnnStepBatch& batch);

  MaskRcnn& model() { return model_; }
  TrainStep& step() { return step_; }

 private:
  MaskRcnn model_;
  TrainStep step_;
};

// The reference's make_optimizer: every trainable parameter at weight_decay and the base rate, but
// biases (names ending "bias") at bias_weight_decay and bias_learning_rate_factor times the rate.
struct MaskRcnnSgdOptions {
  double learning_rate = 0.02;
  double momentum = 0.9;
  double weight_decay = 1e-4;
  double bias_learning_rate_factor = 2.0;
  double bias_weight_decay = 0.0;
};
std::unique_ptr<Optimizer> make_maskrcnn_sgd(MaskRcnn& model, const MaskRcnnSgdOptions& options);

// A generator on `device`'s type seeded with `seed` (CPU, or the CUDA device's in a CUDA build).
torch::Generator sampling_generator(const torch::Device& device, uint64_t seed);

}  // namespace mlh::maskrcnn
