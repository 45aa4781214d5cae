// What the run is on: device model and count, and the platform label used in result paths.
#pragma once

#include <string>

#include <torch/types.h>

namespace mlh {

struct PlatformInfo {
  std::string device_model;  // "Tesla T4", or the CPU model from /proc/cpuinfo
  int device_count = 1;      // GPUs in the job (one per rank), or ranks on CPU
  bool cuda = false;         // the ranks compute on GPUs
  // e.g. "1xTesla-T4", "2xIntel-Xeon-Gold-6230" (spaces to '-', no '/'), safe as a folder name.
  std::string label() const;
};

// The platform of a job of `world_size` ranks, each computing on a device like `device` (rank 0's).
PlatformInfo detect_platform(int world_size, const torch::Device& device);

// A string safe as one path component: letters, digits, '.', '_' and '-' kept, others as '-'.
std::string sanitize_path_component(const std::string& text);

}  // namespace mlh
