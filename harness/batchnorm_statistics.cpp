#include "harness/batchnorm_statistics.h"

#include <string>
#include <vector>

#include <torch/torch.h>

namespace mlh {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int64_t average_batchnorm_statistics(torch::nn::Module& model, const World& world) {
  std::vector<torch::Tensor> statistics;
  for (const auto& item : model.named_buffers(/*recurse=*/true))
    if (ends_with(item.key(), "running_mean") || ends_with(item.key(), "running_var"))
      statistics.push_back(item.value());
  if (world.size() == 1 || statistics.empty()) return static_cast<int64_t>(statistics.size());
  torch::NoGradGuard no_grad;
  const torch::Device device = world.comm().device();
  std::vector<torch::Tensor> flat_parts;
  flat_parts.reserve(statistics.size());
  for (const torch::Tensor& s : statistics) flat_parts.push_back(s.reshape({-1}).to(device, torch::kFloat));
  torch::Tensor flat = torch::cat(flat_parts);
  world.comm().allreduce_sum(flat);
  flat.div_(static_cast<double>(world.size()));
  int64_t offset = 0;
  for (torch::Tensor& s : statistics) {
    s.copy_(flat.narrow(0, offset, s.numel()).view(s.sizes()));
    offset += s.numel();
  }
  return static_cast<int64_t>(statistics.size());
}

}  // namespace mlh
