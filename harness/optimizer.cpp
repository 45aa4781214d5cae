#include "harness/optimizer.h"

#include <array>
#include <map>

#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/libtorch_compat.h"

namespace mlh {

namespace {

// One velocity per parameter, made on its first step (so a checkpoint can hold it).
class Sgd final : public Optimizer {
 public:
  Sgd(std::vector<ParameterGroup> groups, SgdOptions options) : groups_(std::move(groups)), options_(options) {
    MLH_ASSERT(options.momentum >= 0 && (!options.nesterov || options.momentum > 0));
    for (const ParameterGroup& group : groups_) velocity_.emplace_back(group.parameters.size());
  }
  void step(const torch::Tensor& found_inf) override {
    torch::NoGradGuard no_grad;
#if MLH_LIBTORCH_HAS_FUSED_SGD
    if (on_cuda()) {
      fused_step(found_inf);
      return;
    }
#endif
    // The CPU: reading found_inf waits for nothing.
    if (found_inf.defined() && found_inf.item<float>() != 0) return;
    for (size_t k = 0; k < groups_.size(); ++k) {
      ParameterGroup& group = groups_[k];
      const double rate = options_.learning_rate * group.learning_rate_factor;
      for (size_t i = 0; i < group.parameters.size(); ++i) {
        torch::Tensor& w = group.parameters[i];
        if (!w.grad().defined()) continue;
        torch::Tensor d = w.grad();
        if (group.weight_decay != 0) d = d.add(w, group.weight_decay);
        if (options_.momentum != 0) {
          torch::Tensor& v = velocity_[k][i];
          if (!v.defined())
            v = torch::clone(d).detach();
          else
            v.mul_(options_.momentum).add_(d, 1);
          d = options_.nesterov ? d.add(v, options_.momentum) : v;
        }
        w.add_(d, -rate);
      }
    }
  }
  void set_learning_rate(double learning_rate) override { options_.learning_rate = learning_rate; }
  double learning_rate() const override { return options_.learning_rate; }
  std::string name() const override { return "sgd"; }
  void save_state(TrainingState& state, const std::string& prefix) const override {
    for (size_t k = 0; k < velocity_.size(); ++k)
      for (size_t i = 0; i < velocity_[k].size(); ++i)
        if (velocity_[k][i].defined()) state.put(velocity_name(prefix, k, i), velocity_[k][i]);
  }
  void load_state(const TrainingState& state, const std::string& prefix) override {
    for (size_t k = 0; k < velocity_.size(); ++k)
      for (size_t i = 0; i < velocity_[k].size(); ++i) {
        const std::string name = velocity_name(prefix, k, i);
        torch::Tensor& v = velocity_[k][i];
        if (!state.contains(name)) {
          v = torch::Tensor();
          continue;
        }
        v = torch::empty_like(groups_[k].parameters[i]);
        state.copy_into(name, v);
      }
  }

 private:
  bool on_cuda() const {
    for (const ParameterGroup& group : groups_)
      if (!group.parameters.empty()) return group.parameters.front().is_cuda();
    return false;
  }
#if MLH_LIBTORCH_HAS_FUSED_SGD
  // One fused call per group and dtype over the parameters that have a gradient.
  void fused_step(const torch::Tensor& found_inf) {
    for (size_t k = 0; k < groups_.size(); ++k) {
      const ParameterGroup& group = groups_[k];
      std::map<torch::ScalarType, std::array<std::vector<torch::Tensor>, 3>> by_dtype;
      for (size_t i = 0; i < group.parameters.size(); ++i) {
        const torch::Tensor& w = group.parameters[i];
        if (!w.grad().defined()) continue;
        auto& lists = by_dtype[w.scalar_type()];
        lists[0].push_back(w);
        lists[1].push_back(w.grad());
        if (options_.momentum == 0) continue;
        torch::Tensor& v = velocity_[k][i];
        if (!v.defined()) v = torch::zeros_like(w);  // keeps w's strides, as the fused kernel needs
        lists[2].push_back(v);
      }
      for (const auto& [dtype, lists] : by_dtype)
        libtorch::fused_sgd_(lists[0], lists[1], lists[2], group.weight_decay, options_.momentum,
                             options_.learning_rate * group.learning_rate_factor, options_.nesterov, found_inf);
    }
  }
#endif
  static std::string velocity_name(const std::string& prefix, size_t group, size_t index) {
    return prefix + "/velocity/" + std::to_string(group) + "." + std::to_string(index);
  }
  std::vector<ParameterGroup> groups_;
  std::vector<std::vector<torch::Tensor>> velocity_;
  SgdOptions options_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(std::vector<ParameterGroup> groups, SgdOptions options) {
  return std::make_unique<Sgd>(std::move(groups), options);
}

void drop_gradients(const std::vector<torch::Tensor>& parameters) {
  for (const torch::Tensor& p : parameters) const_cast<torch::Tensor&>(p).mutable_grad().reset();
}

std::vector<torch::Tensor> parameters_of(const std::vector<ParameterGroup>& groups) {
  std::vector<torch::Tensor> all;
  for (const ParameterGroup& group : groups) all.insert(all.end(), group.parameters.begin(), group.parameters.end());
  return all;
}

}  // namespace mlh
