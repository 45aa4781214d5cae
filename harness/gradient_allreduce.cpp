#include "harness/gradient_allreduce.h"

#include <torch/torch.h>

#include "compliance/user_error.h"

namespace mlh {

GradientAllReducer::GradientAllReducer(std::vector<torch::Tensor> parameters, const World& world,
                                       int64_t bucket_bytes)
    : parameters_(std::move(parameters)), world_(world) {
  int64_t filled = 0;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const int64_t bytes = parameters_[i].numel() * parameters_[i].element_size();
    if (buckets_.empty() || filled + bytes > bucket_bytes) {
      buckets_.emplace_back();
      filled = 0;
    }
    buckets_.back().push_back(i);
    filled += bytes;
  }
}

void GradientAllReducer::allreduce_sum() {
  if (world_.size() == 1) return;
  torch::NoGradGuard no_grad;
  for (const auto& bucket : buckets_) {
    std::vector<torch::Tensor> grads;
    grads.reserve(bucket.size());
    for (size_t index : bucket) {
      torch::Tensor& param = parameters_[index];
      if (!param.grad().defined()) param.mutable_grad() = torch::zeros_like(param);
      grads.push_back(param.grad().reshape({-1}));
    }
    torch::Tensor flat = grads.size() == 1 ? grads.front().contiguous() : torch::cat(grads);
    world_.comm().allreduce_sum(flat);
    int64_t offset = 0;
    for (size_t index : bucket) {
      torch::Tensor& param = parameters_[index];
      const int64_t n = param.numel();
      param.grad().copy_(flat.narrow(0, offset, n).view_as(param));
      offset += n;
    }
  }
}

void GradientAllReducer::broadcast_parameters() {
  if (world_.size() == 1) return;
  torch::NoGradGuard no_grad;
  for (auto& param : parameters_) {
    torch::Tensor data = param.detach().contiguous();
    world_.comm().broadcast(data, 0);
    if (!data.is_same(param)) param.detach().copy_(data);
  }
}

}  // namespace mlh
