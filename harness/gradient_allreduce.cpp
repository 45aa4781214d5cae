#include "harness/gradient_allreduce.h"

#include <algorithm>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh {

std::vector<std::vector<size_t>> plan_gradient_buckets(const std::vector<int64_t>& parameter_bytes,
                                                       int64_t bucket_bytes) {
  std::vector<std::vector<size_t>> buckets;
  int64_t filled = 0;
  for (size_t i = parameter_bytes.size(); i-- > 0;) {
    if (buckets.empty() || filled + parameter_bytes[i] > bucket_bytes) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(i);
    filled += parameter_bytes[i];
  }
  return buckets;
}

// What the hooks and the step share: each bucket's flat buffer, where each parameter sits in it,
// and which gradients the armed backward pass has delivered.
struct GradientAllReducer::State {
  struct Bucket {
    std::vector<size_t> parameters;
    std::vector<int64_t> offsets;   // of each parameter in `flat`
    torch::Tensor flat;             // allocated at the first overlapped step
    int64_t delivered = 0;
    bool reduced = false;
  };
  Communicator* communicator = nullptr;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;     // parameter index -> bucket
  std::vector<size_t> slot_of;       // parameter index -> position in its bucket
  std::vector<bool> delivered;       // parameter index -> gradient copied into the flat buffer
  bool armed = false;

  // A hook's call: backward has produced parameter `parameter`'s gradient.
  void on_gradient(size_t parameter, const torch::Tensor& grad) {
    if (!armed || delivered[parameter]) return;
    Bucket& bucket = buckets[bucket_of[parameter]];
    bucket.flat.narrow(0, bucket.offsets[slot_of[parameter]], grad.numel()).copy_(grad.reshape({-1}));
    delivered[parameter] = true;
    if (++bucket.delivered == static_cast<int64_t>(bucket.parameters.size())) {
      communicator->allreduce_sum(bucket.flat);
      bucket.reduced = true;
    }
  }
};

GradientAllReducer::GradientAllReducer(std::vector<torch::Tensor> parameters, const World& world,
                                       int64_t bucket_bytes)
    : parameters_(std::move(parameters)), world_(world), state_(std::make_shared<State>()) {
  std::vector<int64_t> bytes;
  for (const auto& p : parameters_) bytes.push_back(p.numel() * p.element_size());
  state_->communicator = &world_.comm();
  state_->bucket_of.resize(parameters_.size());
  state_->slot_of.resize(parameters_.size());
  state_->delivered.assign(parameters_.size(), false);
  for (auto& indices : plan_gradient_buckets(bytes, bucket_bytes)) {
    State::Bucket bucket;
    int64_t offset = 0;
    for (size_t slot = 0; slot < indices.size(); ++slot) {
      state_->bucket_of[indices[slot]] = state_->buckets.size();
      state_->slot_of[indices[slot]] = slot;
      bucket.offsets.push_back(offset);
      offset += parameters_[indices[slot]].numel();
    }
    bucket.parameters = std::move(indices);
    state_->buckets.push_back(std::move(bucket));
  }
  can_overlap_ = world_.size() > 1 && !parameters_.empty();
  for (const auto& p : parameters_)
    can_overlap_ = can_overlap_ && p.requires_grad() && p.device() == world_.comm().device() &&
                   p.scalar_type() == parameters_.front().scalar_type();
  if (!can_overlap_) return;
  // The hooks live as long as the parameters; they hold the state weakly, so a reducer that is gone
  // leaves hooks that do nothing.
  const std::weak_ptr<State> weak_state = state_;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    parameters_[i].register_hook([weak_state, i](const torch::Tensor& grad) {
      if (const auto state = weak_state.lock()) state->on_gradient(i, grad);
    });
  }
}

GradientAllReducer::~GradientAllReducer() = default;

std::vector<std::vector<size_t>> GradientAllReducer::buckets() const {
  std::vector<std::vector<size_t>> parameters;
  for (const auto& bucket : state_->buckets) parameters.push_back(bucket.parameters);
  return parameters;
}

void GradientAllReducer::reduce_during_next_backward() {
  if (!can_overlap_) return;
  for (auto& bucket : state_->buckets) {
    if (!bucket.flat.defined()) {
      int64_t total = 0;
      for (size_t index : bucket.parameters) total += parameters_[index].numel();
      bucket.flat = torch::empty({total}, parameters_[bucket.parameters.front()].options().requires_grad(false));
    }
    bucket.delivered = 0;
    bucket.reduced = false;
  }
  std::fill(state_->delivered.begin(), state_->delivered.end(), false);
  state_->armed = true;
}

void GradientAllReducer::allreduce_sum() {
  reduced_during_backward_ = 0;
  if (world_.size() == 1) return;
  torch::NoGradGuard no_grad;
  const bool armed = state_->armed;
  state_->armed = false;
  for (auto& bucket : state_->buckets) {
    if (armed && bucket.reduced) {
      ++reduced_during_backward_;
    } else if (armed) {
      // Gradients that backward did not produce (unused parameters) count as zeros.
      for (size_t slot = 0; slot < bucket.parameters.size(); ++slot) {
        const size_t index = bucket.parameters[slot];
        if (state_->delivered[index]) continue;
        torch::Tensor part = bucket.flat.narrow(0, bucket.offsets[slot], parameters_[index].numel());
        const torch::Tensor grad = parameters_[index].grad();
        if (grad.defined()) part.copy_(grad.reshape({-1}));
        else part.zero_();
      }
      world_.comm().allreduce_sum(bucket.flat);
    } else {
      std::vector<torch::Tensor> grads;
      grads.reserve(bucket.parameters.size());
      for (size_t index : bucket.parameters) {
        torch::Tensor& param = parameters_[index];
        if (!param.grad().defined()) param.mutable_grad() = torch::zeros_like(param);
        grads.push_back(param.grad().reshape({-1}));
      }
      bucket.flat = grads.size() == 1 ? grads.front().contiguous() : torch::cat(grads);
      world_.comm().allreduce_sum(bucket.flat);
    }
    for (size_t slot = 0; slot < bucket.parameters.size(); ++slot) {
      torch::Tensor& param = parameters_[bucket.parameters[slot]];
      if (!param.grad().defined()) param.mutable_grad() = torch::zeros_like(param);
      param.grad().copy_(bucket.flat.narrow(0, bucket.offsets[slot], param.numel()).view_as(param));
    }
    if (!armed) bucket.flat = torch::Tensor();  // the non-overlapped path's buffer is per step
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
