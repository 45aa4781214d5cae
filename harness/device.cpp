#include "harness/device.h"

#include <torch/cuda.h>

#include "base/user_error.h"

namespace mlh {

torch::Device rank_device(const World& world, const std::string& requested) {
  if (requested != "auto" && requested != "cpu" && requested != "cuda")
    throw UserError("device '" + requested + "' is not one of auto, cpu, cuda");
  if (requested == "cpu") return torch::Device(torch::kCPU);
  const int64_t visible = torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  if (visible == 0) {
    if (requested == "cuda")
      throw UserError("device 'cuda' asked for, but this build or machine has no CUDA device "
                      "(rebuild against a CUDA LibTorch, or use device: cpu)");
    return torch::Device(torch::kCPU);
  }
  return torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(world.local_rank() % visible));
}

void synchronize_device(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::string device_name(const torch::Device& device) { return device.str(); }

}  // namespace mlh
