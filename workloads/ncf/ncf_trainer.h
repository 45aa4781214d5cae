// NCF's training step: NeuMF, Adam, and the binary cross-entropy summed over each gradient shard
// (harness/train_step.h makes it the global batch's mean). Training (NcfWorkload::train_epoch) and
// `mlharness bench` both step through NcfTrainer::train_on, bench through make_train_bench_step (harness/bench.h),
// so bench times the step that training runs (tests/workloads/ncf_trainer_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "harness/bench.h"
#include "harness/fused_adam.h"
#include "harness/train_step.h"
#include "harness/world.h"
#include "workloads/ncf/neumf.h"

namespace mlh::ncf {

// One gradient shard of a batch: (user, item) pairs and their 0/1 labels (float).
struct NcfShard {
  torch::Tensor user, item, label;
};

// This rank's shards of one global batch of `global_count` samples, in shard order.
struct NcfBatch {
  std::vector<NcfShard> shards;
  int64_t global_count = 0;
};

class NcfTrainer {
 public:
  // Moves `model` to `device` and broadcasts rank 0's weights (TrainStep's constructor: every rank
  // builds its trainer).
  NcfTrainer(NeuMF model, AdamOptions adam, const World& world, Precision precision = Precision::kFp32,
             torch::Device device = torch::kCPU);

  // One step on `batch` (its tensors on the trainer's device); returns this rank's summed loss.
  torch::Tensor train_on(const NcfBatch& batch);

  NeuMF& model() { return model_; }
  TrainStep& step() { return step_; }

 private:
  NeuMF model_;
  TrainStep step_;
};

}  // namespace mlh::ncf
