// Where a rank computes. One process per device: under mpirun, local rank r uses CUDA device
// r mod (visible devices) when this build has CUDA and the machine shows a GPU; otherwise the CPU.
// Workloads put their model and batches on `rank_device`; the engine and bench synchronise it
// before reading a clock.
#pragma once

#include <string>

#include <torch/types.h>

#include "harness/world.h"

namespace mlh {

// `requested` is "auto" (CUDA when available, else CPU), "cpu" or "cuda". Throws UserError for an
// unknown name, or for "cuda" when this build or machine has no CUDA device.
torch::Device rank_device(const World& world, const std::string& requested = "auto");

// Waits for the device's queued work (a no-op on the CPU).
void synchronize_device(const torch::Device& device);

// "cpu" or "cuda:1".
std::string device_name(const torch::Device& device);

}  // namespace mlh
