#include "harness/gradient_allreduce.h"

#include <algorithm>

#include <torch/csrc/autograd/utils/lambda_post_hook.h>
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

namespace {

// The gradient of `parameter` as a view of `flat` from element `offset`: with the parameter's own
// strides where its memory is dense (channels-last included, so the optimizer sees the layout of
// the parameter, as AccumulateGrad would make it), else contiguous.
torch::Tensor gradient_view(const torch::Tensor& flat, const torch::Tensor& parameter, int64_t offset) {
  if (parameter.is_non_overlapping_and_dense()) return flat.as_strided(parameter.sizes(), parameter.strides(), offset);
  return flat.narrow(0, offset, parameter.numel()).view(parameter.sizes());
}

}  // namespace

// What the hooks and the step share: the parameters, each bucket's flat buffer with its
// parameters' gradients as views of it, which gradients the armed backward pass has delivered, and
// the next bucket to start.
struct GradientAllReducer::State {
  struct Bucket {
    std::vector<size_t> parameters;
    std::vector<int64_t> offsets;      // of each parameter in `flat`
    torch::Tensor flat;                // allocated at the first armed step
    std::vector<torch::Tensor> views;  // each parameter's gradient in `flat`
    int64_t delivered = 0;
  };
  std::vector<torch::Tensor> parameters;
  Communicator* communicator = nullptr;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;     // parameter index -> bucket
  std::vector<size_t> slot_of;       // parameter index -> position in its bucket
  std::vector<bool> delivered;       // parameter index -> its gradient is complete in its view
  size_t next_bucket = 0;            // buckets start in index order, on every rank alike
  bool armed = false;

  // AccumulateGrad's post hook: backward has accumulated parameter `parameter`'s gradient.
  void on_gradient(size_t parameter) {
    if (!armed || delivered[parameter]) return;
    delivered[parameter] = true;
    Bucket& bucket = buckets[bucket_of[parameter]];
    const torch::Tensor& view = bucket.views[slot_of[parameter]];
    torch::Tensor& grad = parameters[parameter].mutable_grad();
    // Accumulated out of place (a double-backward graph): back into the bucket.
    if (!grad.is_same(view)) {
      torch::NoGradGuard no_grad;
      view.copy_(grad);
      grad = view;
    }
    ++bucket.delivered;
    start_complete_buckets();
  }

  // Starts the complete buckets from next_bucket on, stopping at the first incomplete one, so that
  // the order of the collectives is the buckets' on every rank, whatever order backward produced
  // their gradients in, and whichever gradients it did not produce.
  void start_complete_buckets() {
    while (next_bucket < buckets.size() &&
           buckets[next_bucket].delivered == static_cast<int64_t>(buckets[next_bucket].parameters.size())) {
      communicator->start_allreduce_sum(buckets[next_bucket].flat);
      ++next_bucket;
    }
  }
};

GradientAllReducer::GradientAllReducer(std::vector<torch::Tensor> parameters, const World& world,
                                       int64_t bucket_bytes)
    : parameters_(std::move(parameters)), world_(world), state_(std::make_shared<State>()) {
  std::vector<int64_t> bytes;
  for (const auto& p : parameters_) bytes.push_back(p.numel() * p.element_size());
  state_->parameters = parameters_;
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
    can_overlap_ = can_overlap_ && p.requires_grad() && p.is_leaf() && p.device() == world_.comm().device() &&
                   p.scalar_type() == parameters_.front().scalar_type();
  if (!can_overlap_) return;
  // A post hook on each parameter's gradient accumulator, as PyTorch's DDP has: it runs once the
  // gradient is in the bucket. The accumulators are kept, so the hooks live as long as the reducer;
  // they hold the state weakly.
  const std::weak_ptr<State> weak_state = state_;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    std::shared_ptr<torch::autograd::Node> accumulator = torch::autograd::impl::grad_accumulator(parameters_[i]);
    accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [weak_state, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
          if (const auto state = weak_state.lock()) state->on_gradient(i);
          return outputs;
        }));
    gradient_accumulators_.push_back(std::move(accumulator));
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
  torch::NoGradGuard no_grad;
  for (auto& bucket : state_->buckets) {
    if (!bucket.flat.defined()) {
      int64_t total = 0;
      for (size_t index : bucket.parameters) total += parameters_[index].numel();
      bucket.flat = torch::zeros({total}, parameters_[bucket.parameters.front()].options().requires_grad(false));
      for (size_t slot = 0; slot < bucket.parameters.size(); ++slot)
        bucket.views.push_back(gradient_view(bucket.flat, parameters_[bucket.parameters[slot]], bucket.offsets[slot]));
    } else {
      bucket.flat.zero_();
    }
    bucket.delivered = 0;
    // Backward accumulates into the views (AccumulateGrad adds to a defined gradient in place).
    for (size_t slot = 0; slot < bucket.parameters.size(); ++slot)
      parameters_[bucket.parameters[slot]].mutable_grad() = bucket.views[slot];
  }
  std::fill(state_->delivered.begin(), state_->delivered.end(), false);
  state_->next_bucket = 0;
  state_->armed = true;
}

void GradientAllReducer::allreduce_sum() {
  reduced_during_backward_ = 0;
  if (world_.size() == 1) return;
  torch::NoGradGuard no_grad;
  if (state_->armed) {
    state_->armed = false;
    reduced_during_backward_ = static_cast<int64_t>(state_->next_bucket);
    // The rest in order; a gradient that backward did not produce is its view's zeros.
    for (; state_->next_bucket < state_->buckets.size(); ++state_->next_bucket)
      world_.comm().start_allreduce_sum(state_->buckets[state_->next_bucket].flat);
    world_.comm().wait_started_collectives();
    for (const auto& bucket : state_->buckets)
      for (size_t slot = 0; slot < bucket.parameters.size(); ++slot)
        parameters_[bucket.parameters[slot]].mutable_grad() = bucket.views[slot];
    return;
  }
  for (const auto& bucket : state_->buckets) {
    std::vector<torch::Tensor> grads;
    grads.reserve(bucket.parameters.size());
    for (size_t index : bucket.parameters) {
      torch::Tensor& param = parameters_[index];
      if (!param.grad().defined()) param.mutable_grad() = torch::zeros_like(param);
      grads.push_back(param.grad().reshape({-1}));
    }
    torch::Tensor flat = grads.size() == 1 ? grads.front().contiguous() : torch::cat(grads);
    world_.comm().allreduce_sum(flat);
    for (size_t slot = 0; slot < bucket.parameters.size(); ++slot) {
      torch::Tensor& param = parameters_[bucket.parameters[slot]];
      param.grad().copy_(flat.narrow(0, bucket.offsets[slot], param.numel()).view_as(param));
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
