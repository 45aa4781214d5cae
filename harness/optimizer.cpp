#include "harness/optimizer.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh {

namespace {

// One velocity per parameter, made on its first step (so a checkpoint can hold it).
class Sgd final : public Optimizer {
 public:
  Sgd(std::vector<ParameterGroup> groups, SgdOptions options) : groups_(std::move(groups)), options_(options) {
    MLH_ASSERT(options.momentum >= 0 && (!options.nesterov || options.momentum > 0));
    for (const ParameterGroup& group : groups_) velocity_.emplace_back(group.parameters.size());
  }
  void step() override {
    torch::NoGradGuard no_grad;
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
