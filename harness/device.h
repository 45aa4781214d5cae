// Where a rank computes, decided by the engine (`--device`, the config key `device`) before any
// CUDA call: one process per GPU, local rank r on GPU r of its node, which becomes the process's
// current CUDA device; the CPU when asked, or when this build or machine has no GPU. Workloads get
// the device in RunContext / BenchSpec; the engine and bench synchronise it before reading a clock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "harness/world.h"

namespace mlh {

// The decision alone: `requested` is "auto" (CUDA when a GPU is visible, else CPU), "cpu" or
// "cuda"; the rank is `local_rank` of `local_size` ranks on its node, which shows `visible_gpus`.
// When the launcher bound one GPU to each rank (`own_gpu_bound`, see one_gpu_bound_per_rank) the
// rank takes the one GPU it sees. Throws UserError (one line) for an unknown name, for "cuda"
// without a GPU, and for more ranks on a node than GPUs when the ranks would use GPUs.
torch::Device choose_rank_device(const std::string& requested, int local_rank, int local_size, int visible_gpus,
                                 bool own_gpu_bound = false);

// Whether the launcher gave each rank of a node a GPU of its own (`srun --gpus-per-task=1`, or a
// wrapper that sets CUDA_VISIBLE_DEVICES per rank): more than one rank, each seeing exactly one GPU,
// no two naming the same one. The arguments are the node's ranks' CUDA_VISIBLE_DEVICES and counts.
bool one_gpu_bound_per_rank(const std::vector<std::string>& node_cuda_visible_devices,
                            const std::vector<int>& node_visible_gpus);

// GPUs this process sees (0 in a build without CUDA, or without a driver).
int visible_gpu_count();

// A CUDA device's compute capability as major * 10 + minor (75 for a T4, 90 for an H200); 0 for
// the CPU.
int cuda_compute_capability(const torch::Device& device);

// choose_rank_device for this rank and machine; a chosen GPU becomes the current CUDA device.
torch::Device rank_device(const World& world, const std::string& requested = "auto");

// How GPUs do their arithmetic (the engine's settings cudnn_benchmark, cudnn_deterministic,
// allow_tf32): cuDNN's autotuner, deterministic algorithms only (with a warning where an op has
// none), and TF32 tensor cores for fp32 matrix products, convolutions and RNNs (Ampere and newer;
// through libtorch_compat.h's set_cuda_tf32, which uses LibTorch 2.11's fp32 precision setting).
// Process-wide; set before the model runs. Inert on the CPU. `precision fp32-strict` turns TF32
// off afterwards (apply_precision_to_gpu_math, harness/mixed_precision.h).
struct GpuMath {
  bool cudnn_benchmark = true;
  bool cudnn_deterministic = false;
  bool allow_tf32 = true;
};
void configure_gpu_math(const GpuMath& math);

// Counts the host's waits on a GPU between start() and stop(): LibTorch's CUDA sync debug mode in
// "warn" makes every synchronizing call (a tensor read like .item(), a blocking copy, a stream
// synchronize) emit a warning, which the counter's warning handler counts and drops; other warnings
// pass on. Counts the thread that constructed it (the autograd engine replays its threads' warnings
// there when backward ends). Can count only in a CUDA build on a CUDA device (can_count).
class HostSyncCounter {
 public:
  static bool can_count(const torch::Device& device);
  explicit HostSyncCounter(const torch::Device& device);
  ~HostSyncCounter();
  HostSyncCounter(const HostSyncCounter&) = delete;
  HostSyncCounter& operator=(const HostSyncCounter&) = delete;
  void start();
  void stop();
  int64_t count() const;

 private:
  struct Counting;
  std::unique_ptr<Counting> counting_;  // null when it cannot count
};

// Waits for the device's queued work (a no-op on the CPU).
void synchronize_device(const torch::Device& device);

// "cpu" or "cuda:1".
std::string device_name(const torch::Device& device);

// The GPU's name ("NVIDIA H200") for a CUDA device; the CPU's model (/proc/cpuinfo) otherwise.
std::string device_model(const torch::Device& device);

// Options for a host tensor that is filled on the CPU and then copied to `device`: page-locked
// (pinned) when the device is a GPU, so that `.to(device, /*non_blocking=*/true)` is a real
// asynchronous copy; ordinary memory on the CPU.
torch::TensorOptions host_staging_options(torch::ScalarType dtype, const torch::Device& device);

// `host` on `device`: the same tensor when it is already there, else an asynchronous copy (from
// pinned memory; see host_staging_options).
torch::Tensor to_device(const torch::Tensor& host, const torch::Device& device);

// A CPU tensor in ordinary (pageable) memory on `device` without the host waiting: on a GPU it is
// copied into pinned memory on the host, then asynchronously to the GPU (a blocking pageable copy
// would wait for the GPU's queue); on the CPU it is `host` itself.
torch::Tensor stage_to_device(const torch::Tensor& host, const torch::Device& device);

}  // namespace mlh
