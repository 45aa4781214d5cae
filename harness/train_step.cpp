#include "harness/train_step.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh {

TrainStep::TrainStep(std::vector<torch::Tensor> parameters, std::unique_ptr<Optimizer> optimizer,
                     const World& world, TrainStepOptions options)
    : parameters_(std::move(parameters)),
      optimizer_(std::move(optimizer)),
      world_(world),
      options_(options),
      shard_sum_(parameters_),
      reducer_(parameters_, world),
      loss_scaler_(DynamicLossScaler::needed(options.precision, options.device), options.device) {
  MLH_ASSERT(optimizer_ != nullptr && options_.gradient_clip_norm >= 0);
  reducer_.broadcast_parameters();
}

torch::Tensor TrainStep::run(int64_t local_shards, double loss_divisor, const ShardLoss& shard_loss) {
  MLH_ASSERT(local_shards >= 1 && loss_divisor > 0);
  drop_gradients(parameters_);
  // One shard per rank: each bucket's all-reduce starts inside backward, as soon as it is complete.
  if (local_shards == 1) reducer_.reduce_during_next_backward();
  torch::Tensor total;
  for (int64_t k = 0; k < local_shards; ++k) {
    torch::Tensor loss;
    {
      AutocastScope autocast(options_.precision, options_.device);
      loss = shard_loss(k);
    }
    if (loss.defined()) {
      loss_scaler_.scale_loss(loss / loss_divisor).backward();
      const torch::Tensor summed = loss.detach().to(torch::kDouble);
      total = total.defined() ? total + summed : summed;
    }
    if (local_shards > 1) shard_sum_.take_shard();
  }
  if (local_shards > 1) shard_sum_.store_sum();
  reducer_.allreduce_sum();
  loss_scaler_.unscale_gradients(parameters_);
  if (options_.gradient_clip_norm > 0) clip_gradient_norm(parameters_, options_.gradient_clip_norm);
  optimizer_->step(loss_scaler_.found_inf());
  loss_scaler_.update();
  if (!total.defined()) total = torch::zeros({}, torch::TensorOptions(torch::kDouble).device(options_.device));
  loss_sum_ = loss_sum_.defined() ? loss_sum_ + total : total;
  return total;
}

double TrainStep::take_loss_sum() {
  const double local = loss_sum_.defined() ? loss_sum_.item<double>() : 0.0;
  loss_sum_ = torch::Tensor();
  return world_.allreduce_sum(local);
}

TrainStats TrainStep::take_epoch_stats(int64_t samples, double loss_divisor) {
  TrainStats stats;
  stats.samples = samples;
  stats.mean_loss = take_loss_sum() / loss_divisor;
  stats.skipped_steps = loss_scaler_.skipped_steps() - skipped_steps_taken_;
  skipped_steps_taken_ = loss_scaler_.skipped_steps();
  return stats;
}

void TrainStep::save_state(TrainingState& state) const {
  optimizer_->save_state(state, "optimizer");
  loss_scaler_.save_state(state, "loss_scaler");
  state.put_int("train_step/skipped_steps_taken", skipped_steps_taken_);
}

void TrainStep::load_state(const TrainingState& state) {
  optimizer_->load_state(state, "optimizer");
  loss_scaler_.load_state(state, "loss_scaler");
  skipped_steps_taken_ = state.get_int("train_step/skipped_steps_taken");
}

torch::Tensor clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return torch::Tensor();
  std::vector<torch::Tensor> norms;
  for (const torch::Tensor& grad : grads) norms.push_back(grad.norm(2));
  const torch::Tensor norm = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  const torch::Tensor factor = torch::clamp(max_norm / (norm + 1e-6), c10::nullopt, 1.0);
  for (torch::Tensor& grad : grads) grad.mul_(factor);
  return norm;
}

void save_training(TrainingState& state, const torch::nn::Module& model, const TrainStep& step,
                   int64_t schedule_step) {
  state.put_module("model", model);
  step.save_state(state);
  state.put_int("schedule/step", schedule_step);
}

int64_t load_training(const TrainingState& state, torch::nn::Module& model, TrainStep& step) {
  state.load_module("model", model);
  step.load_state(state);
  return state.get_int("schedule/step");
}

}  // namespace mlh
