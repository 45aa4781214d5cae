// BatchNorm running statistics averaged over ranks. Data-parallel ranks train on different samples,
// so each rank's BatchNorm layers keep their own running mean and variance; an evaluation sharded
// over ranks would then judge each shard by another model. Before every evaluation the workloads
// with BatchNorm (ResNet; SSD and Mask R-CNN) replace each rank's statistics by their mean over the
// ranks, as the SSD reference does, with one flat all-reduce on the communicator's device.
#pragma once

#include <torch/nn/module.h>

#include "harness/world.h"

namespace mlh {

// Averages every `running_mean` and `running_var` buffer of `model` (any depth) over the ranks, in
// place. A collective: every rank calls it with the same model. A no-op on a world of one.
// Returns the number of buffers averaged.
int64_t average_batchnorm_statistics(torch::nn::Module& model, const World& world);

}  // namespace mlh
