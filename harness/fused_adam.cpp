#include "harness/fused_adam.h"

#include <array>
#include <cmath>
#include <map>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/adam_kernel.h"

namespace mlh {

FusedAdam::FusedAdam(std::vector<ParameterGroup> groups, AdamOptions options)
    : groups_(std::move(groups)), options_(options) {
  for (const ParameterGroup& group : groups_) {
    exp_avg_.emplace_back();
    exp_avg_sq_.emplace_back();
    for (const auto& p : group.parameters) {
      exp_avg_.back().push_back(torch::zeros_like(p));  // p's strides (a preserved memory format)
      exp_avg_sq_.back().push_back(torch::zeros_like(p));
      if (p.is_cuda() && !cuda_step_.defined()) cuda_step_ = torch::zeros({}, p.options().dtype(torch::kFloat));
    }
  }
}

int64_t FusedAdam::step_count() const {
  return cuda_step_.defined() ? static_cast<int64_t>(cuda_step_.item<double>()) : step_count_;
}

void FusedAdam::step_on_cuda(const torch::Tensor& found_inf) {
  // The kernel reads each parameter's step count from its tensor: one shared count, raised before
  // the update and lowered again when found_inf says the kernels skipped it.
  cuda_step_.add_(1);
  for (size_t k = 0; k < groups_.size(); ++k) {
    const ParameterGroup& group = groups_[k];
    std::map<torch::ScalarType, std::array<std::vector<torch::Tensor>, 5>> by_dtype;
    for (size_t i = 0; i < group.parameters.size(); ++i) {
      const torch::Tensor& param = group.parameters[i];
      if (!param.grad().defined()) continue;
      auto& lists = by_dtype[param.scalar_type()];
      lists[0].push_back(param);
      lists[1].push_back(param.grad());
      lists[2].push_back(exp_avg_[k][i]);
      lists[3].push_back(exp_avg_sq_[k][i]);
      lists[4].push_back(cuda_step_);
    }
    for (const auto& [dtype, lists] : by_dtype)
      at::_fused_adam_(lists[0], lists[1], lists[2], lists[3], {}, lists[4],
                       options_.learning_rate * group.learning_rate_factor, options_.beta1, options_.beta2,
                       group.weight_decay, options_.epsilon, /*amsgrad=*/false, /*maximize=*/false,
                       /*grad_scale=*/c10::nullopt,
                       found_inf.defined() ? c10::optional<at::Tensor>(found_inf) : c10::nullopt);
  }
  if (found_inf.defined()) cuda_step_.sub_(found_inf.squeeze());
}

void FusedAdam::step(const torch::Tensor& found_inf) {
  torch::NoGradGuard no_grad;
  if (cuda_step_.defined()) {
    step_on_cuda(found_inf);
    return;
  }
  // The CPU: reading found_inf waits for nothing.
  if (found_inf.defined() && found_inf.item<float>() != 0) return;
  ++step_count_;
  const double t = static_cast<double>(step_count_);
  const double bias_correction1 = 1.0 - std::pow(options_.beta1, t);
  const double bias_correction2 = 1.0 - std::pow(options_.beta2, t);
  for (size_t k = 0; k < groups_.size(); ++k) {
    const ParameterGroup& group = groups_[k];
    const double learning_rate = options_.learning_rate * group.learning_rate_factor;
    const double weight_decay = group.weight_decay;
    const AdamStepConstants c{static_cast<float>(options_.beta1),
                              static_cast<float>(1.0 - options_.beta1),
                              static_cast<float>(options_.beta2),
                              static_cast<float>(1.0 - options_.beta2),
                              static_cast<float>(learning_rate / bias_correction1),
                              static_cast<float>(1.0 / std::sqrt(bias_correction2)),
                              static_cast<float>(options_.epsilon),
                              static_cast<float>(weight_decay)};
    for (size_t i = 0; i < group.parameters.size(); ++i) {
      torch::Tensor param = group.parameters[i];
      if (!param.grad().defined()) continue;
      torch::Tensor grad = param.grad();
      torch::Tensor& exp_avg = exp_avg_[k][i];
      torch::Tensor& exp_avg_sq = exp_avg_sq_[k][i];
      const bool fused = param.device().is_cpu() && param.scalar_type() == torch::kFloat &&
                         param.is_contiguous() && grad.is_contiguous() && exp_avg.is_contiguous() &&
                         exp_avg_sq.is_contiguous() && !grad.is_sparse() &&
                         grad.scalar_type() == torch::kFloat;
      if (!fused) {
        // The op-by-op update, same arithmetic, for devices and types the kernel does not take.
        torch::Tensor g = weight_decay != 0 ? grad.add(param, weight_decay) : grad;
        exp_avg.mul_(options_.beta1).add_(g, 1.0 - options_.beta1);
        exp_avg_sq.mul_(options_.beta2).addcmul_(g, g, 1.0 - options_.beta2);
        torch::Tensor denom = (exp_avg_sq.sqrt() / std::sqrt(bias_correction2)).add_(options_.epsilon);
        param.addcdiv_(exp_avg, denom, -learning_rate / bias_correction1);
        continue;
      }
      float* p = param.data_ptr<float>();
      const float* g = grad.data_ptr<float>();
      float* m = exp_avg.data_ptr<float>();
      float* v = exp_avg_sq.data_ptr<float>();
      at::parallel_for(0, param.numel(), 16384, [&](int64_t begin, int64_t end) {
        adam_update(p + begin, g + begin, m + begin, v + begin, end - begin, c);
      });
    }
  }
}

void FusedAdam::save_state(TrainingState& state, const std::string& prefix) const {
  state.put_int(prefix + "/step", step_count());
  for (size_t k = 0; k < exp_avg_.size(); ++k)
    for (size_t i = 0; i < exp_avg_[k].size(); ++i) {
      const std::string index = std::to_string(k) + "." + std::to_string(i);
      state.put(prefix + "/exp_avg/" + index, exp_avg_[k][i]);
      state.put(prefix + "/exp_avg_sq/" + index, exp_avg_sq_[k][i]);
    }
}

void FusedAdam::load_state(const TrainingState& state, const std::string& prefix) {
  step_count_ = state.get_int(prefix + "/step");
  for (size_t k = 0; k < exp_avg_.size(); ++k)
    for (size_t i = 0; i < exp_avg_[k].size(); ++i) {
      const std::string index = std::to_string(k) + "." + std::to_string(i);
      state.copy_into(prefix + "/exp_avg/" + index, exp_avg_[k][i]);
      state.copy_into(prefix + "/exp_avg_sq/" + index, exp_avg_sq_[k][i]);
    }
  if (cuda_step_.defined()) cuda_step_.fill_(static_cast<double>(step_count_));
}

std::unique_ptr<Optimizer> make_adam(std::vector<ParameterGroup> groups, AdamOptions options) {
  return std::make_unique<FusedAdam>(std::move(groups), options);
}

}  // namespace mlh
