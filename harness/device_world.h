// The world a run computes in on its device: NCCL between the ranks' GPUs in a CUDA build of more
// than one rank, else the world as MPI made it. The one place that picks a communicator for a
// device, so the world itself (harness/world.h) knows no implementation but MPI's.
#pragma once

#include <torch/types.h>

#include "harness/world.h"

namespace mlh {

// `world` with the communicator for `device` (the engine's, harness/device.h): NCCL on the rank's
// GPU (one communicator per job: its unique id from rank 0 over MPI, which stays the control plane)
// when the device is a GPU and the world has more than one rank; else `world` itself. A collective.
World world_on_device(const World& world, const torch::Device& device);

}  // namespace mlh
