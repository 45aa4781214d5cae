#include "harness/gradient_allreduce.h"

#include <torch/torch.h>

#include "base/user_error.h"

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

PairwiseGradientSum::PairwiseGradientSum(std::vector<torch::Tensor> parameters)
    : parameters_(std::move(parameters)) {}

void PairwiseGradientSum::take_shard() {
  Partial next;
  for (auto& param : parameters_) {
    torch::Tensor grad = param.grad();
    next.grads.push_back(grad.defined() ? grad : torch::zeros_like(param));
    param.mutable_grad().reset();
  }
  // Merge equal levels: the left (older) operand first, as the tree's in-order sum.
  while (!stack_.empty() && stack_.back().level == next.level) {
    Partial left = std::move(stack_.back());
    stack_.pop_back();
    for (size_t i = 0; i < left.grads.size(); ++i) left.grads[i].add_(next.grads[i]);
    left.level += 1;
    next = std::move(left);
  }
  stack_.push_back(std::move(next));
}

void PairwiseGradientSum::store_sum() {
  MLH_ASSERT(!stack_.empty());
  // A power-of-two shard count leaves one partial; otherwise fold right to left.
  Partial total = std::move(stack_.back());
  stack_.pop_back();
  while (!stack_.empty()) {
    Partial left = std::move(stack_.back());
    stack_.pop_back();
    for (size_t i = 0; i < left.grads.size(); ++i) left.grads[i].add_(total.grads[i]);
    total = std::move(left);
  }
  for (size_t i = 0; i < parameters_.size(); ++i) parameters_[i].mutable_grad() = total.grads[i];
}

int64_t resolve_gradient_shards(int64_t shards, int world_size, const std::string& key) {
  if (shards == 0) return world_size;
  if (shards < 0 || (shards & (shards - 1)) != 0)
    throw UserError("key '" + key + "' is " + std::to_string(shards) +
                    "; it must be a power of two, or 0 for one shard per rank");
  if (shards % world_size != 0)
    throw UserError("key '" + key + "' is " + std::to_string(shards) + ", which " +
                    std::to_string(world_size) + " ranks cannot share evenly; use a multiple of the rank count, or 0");
  return shards;
}

int64_t shards_per_rank(int64_t shards, int world_size, const std::string& key) {
  return resolve_gradient_shards(shards, world_size, key) / world_size;
}

}  // namespace mlh
