#include "harness/lars.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh {

namespace {

class Lars final : public Optimizer {
 public:
  Lars(std::vector<ParameterGroup> groups, LarsOptions options) : groups_(std::move(groups)), options_(options) {
    MLH_ASSERT(options_.momentum >= 0 && options_.eta > 0 && options_.epsilon >= 0);
    for (const ParameterGroup& group : groups_) {
      MLH_ASSERT(group.weight_decay >= 0);
      velocity_.emplace_back();
      for (const auto& p : group.parameters) velocity_.back().push_back(torch::zeros_like(p));
    }
  }

  void step(const torch::Tensor& found_inf) override {
    torch::NoGradGuard no_grad;
    if (found_inf.defined() || on_cuda()) {
      step_on_device(found_inf);
      return;
    }
    for (size_t k = 0; k < groups_.size(); ++k) {
      ParameterGroup& group = groups_[k];
      const double wd = group.weight_decay;
      for (size_t i = 0; i < group.parameters.size(); ++i) {
        torch::Tensor& w = group.parameters[i];
        const torch::Tensor& g = w.grad();
        if (!g.defined()) continue;
        double rate = options_.learning_rate * group.learning_rate_factor;
        if (group.lars_adapted) {
          // Two norms, one host read: the ratio decides a scalar step size.
          const torch::Tensor norms = torch::stack({w.norm(), g.norm()}).to(torch::kDouble).cpu();
          const double w_norm = norms[0].item<double>(), g_norm = norms[1].item<double>();
          if (w_norm > 0 && g_norm > 0) rate *= options_.eta * w_norm / (g_norm + wd * w_norm + options_.epsilon);
        }
        torch::Tensor& v = velocity_[k][i];
        v.mul_(options_.momentum).add_(g);
        if (wd != 0) v.add_(w, wd);
        w.add_(v, -rate);
      }
    }
  }
  void set_learning_rate(double learning_rate) override { options_.learning_rate = learning_rate; }
  double learning_rate() const override { return options_.learning_rate; }
  std::string name() const override { return "lars"; }
  void save_state(TrainingState& state, const std::string& prefix) const override {
    for (size_t k = 0; k < velocity_.size(); ++k)
      for (size_t i = 0; i < velocity_[k].size(); ++i)
        state.put(prefix + "/velocity/" + std::to_string(k) + "." + std::to_string(i), velocity_[k][i]);
  }
  void load_state(const TrainingState& state, const std::string& prefix) override {
    for (size_t k = 0; k < velocity_.size(); ++k)
      for (size_t i = 0; i < velocity_[k].size(); ++i)
        state.copy_into(prefix + "/velocity/" + std::to_string(k) + "." + std::to_string(i), velocity_[k][i]);
  }

 private:
  bool on_cuda() const {
    for (const ParameterGroup& group : groups_)
      if (!group.parameters.empty()) return group.parameters.front().is_cuda();
    return false;
  }

  // The same update with the step size a device tensor; with found_inf nonzero, velocity and
  // weights keep their values (the velocity by selection, the weights by a zero step).
  void step_on_device(const torch::Tensor& found_inf) {
    const torch::Tensor skip = found_inf.defined() ? found_inf.gt(0).squeeze() : torch::Tensor();
    for (size_t k = 0; k < groups_.size(); ++k) {
      ParameterGroup& group = groups_[k];
      const double wd = group.weight_decay;
      const double rate = options_.learning_rate * group.learning_rate_factor;
      for (size_t i = 0; i < group.parameters.size(); ++i) {
        torch::Tensor& w = group.parameters[i];
        const torch::Tensor& g = w.grad();
        if (!g.defined()) continue;
        torch::Tensor& v = velocity_[k][i];
        torch::Tensor stepped = v.mul(options_.momentum).add_(g);
        if (wd != 0) stepped.add_(w, wd);
        torch::Tensor step_size =
            group.lars_adapted ? lars_trust_ratio(w.norm(), g.norm(), wd, options_) * rate
                               : torch::full({}, rate, w.options().dtype(torch::kDouble));
        if (skip.defined()) {
          v.copy_(torch::where(skip, v, stepped));
          step_size = step_size.masked_fill(skip, 0.0);
        } else {
          v.copy_(stepped);
        }
        w.sub_(v * step_size.to(w.scalar_type()));
      }
    }
  }

  std::vector<ParameterGroup> groups_;
  std::vector<std::vector<torch::Tensor>> velocity_;
  LarsOptions options_;
};

}  // namespace

torch::Tensor lars_trust_ratio(const torch::Tensor& weight_norm, const torch::Tensor& grad_norm, double weight_decay,
                               const LarsOptions& options) {
  const torch::Tensor w = weight_norm.to(torch::kDouble);
  const torch::Tensor g = grad_norm.to(torch::kDouble);
  const torch::Tensor ratio = (w * options.eta) / ((g + w * weight_decay) + options.epsilon);
  return torch::where(w.gt(0).logical_and(g.gt(0)), ratio, torch::ones_like(ratio));
}

std::unique_ptr<Optimizer> make_lars(std::vector<ParameterGroup> groups, LarsOptions options) {
  return std::make_unique<Lars>(std::move(groups), options);
}

}  // namespace mlh
