#include "harness/optimizer.h"

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh {

namespace {

// torch::optim::SGD, one torch parameter group per ours.
class Sgd final : public Optimizer {
 public:
  Sgd(std::vector<ParameterGroup> groups, SgdOptions options) : learning_rate_(options.learning_rate) {
    MLH_ASSERT(options.momentum >= 0 && (!options.nesterov || options.momentum > 0));
    std::vector<torch::optim::OptimizerParamGroup> torch_groups;
    for (ParameterGroup& group : groups) {
      factors_.push_back(group.learning_rate_factor);
      torch_groups.emplace_back(std::move(group.parameters),
                                std::make_unique<torch::optim::SGDOptions>(
                                    torch::optim::SGDOptions(options.learning_rate * group.learning_rate_factor)
                                        .momentum(options.momentum)
                                        .nesterov(options.nesterov)
                                        .weight_decay(group.weight_decay)));
    }
    sgd_ = std::make_unique<torch::optim::SGD>(std::move(torch_groups), torch::optim::SGDOptions(options.learning_rate));
  }
  void step() override { sgd_->step(); }
  void set_learning_rate(double learning_rate) override {
    learning_rate_ = learning_rate;
    auto& groups = sgd_->param_groups();
    for (size_t i = 0; i < groups.size(); ++i)
      static_cast<torch::optim::SGDOptions&>(groups[i].options()).lr(learning_rate * factors_[i]);
  }
  double learning_rate() const override { return learning_rate_; }
  std::string name() const override { return "sgd"; }

 private:
  std::unique_ptr<torch::optim::SGD> sgd_;
  std::vector<double> factors_;
  double learning_rate_;
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
