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

  void step() override {
    torch::NoGradGuard no_grad;
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
  std::vector<ParameterGroup> groups_;
  std::vector<std::vector<torch::Tensor>> velocity_;
  LarsOptions options_;
};

}  // namespace

std::unique_ptr<Optimizer> make_lars(std::vector<ParameterGroup> groups, LarsOptions options) {
  return std::make_unique<Lars>(std::move(groups), options);
}

}  // namespace mlh
