// Every optimizer takes the loss scaler's found_inf (harness/optimizer.h): a step told that the
// gradients overflowed changes nothing (parameters and state bitwise as they were), and a step told
// they did not equals the plain step. Run here on the CPU: SGD and Adam read found_inf (the CPU has
// no device to wait for), LARS takes its device path (trust ratio and step size as tensors).
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/fused_adam.h"
#include "harness/lars.h"
#include "harness/optimizer.h"
#include "harness/training_state.h"

namespace mlh {
namespace {

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(std::vector<ParameterGroup>)>;

struct Model {
  std::vector<torch::Tensor> parameters;
  std::unique_ptr<Optimizer> optimizer;
};

// Two groups as the workloads have them: decayed and (for LARS) adapted; plain at twice the rate.
Model make_model(const MakeOptimizer& make) {
  torch::manual_seed(11);
  Model model;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{4, 3}, {3}, {5}})
    model.parameters.push_back(torch::randn(shape).requires_grad_(true));
  model.optimizer = make({ParameterGroup{{model.parameters[0], model.parameters[1]}, 0.1, 1.0, true},
                          ParameterGroup{{model.parameters[2]}, 0.0, 2.0, false}});
  return model;
}

// The gradients of step `step`; an overflowed step's hold inf and NaN.
void set_gradients(Model& model, int step, bool overflowed = false) {
  torch::manual_seed(100 + step);
  for (torch::Tensor& p : model.parameters) {
    torch::Tensor grad = torch::randn(p.sizes());
    if (overflowed) {
      grad.view(-1)[0] = std::numeric_limits<float>::infinity();
      grad.view(-1)[1] = std::numeric_limits<float>::quiet_NaN();
    }
    p.mutable_grad() = grad;
  }
}

torch::Tensor found_inf(bool found) { return torch::full({1}, found ? 1.0f : 0.0f); }

std::map<std::string, torch::Tensor> snapshot(const Model& model) {
  TrainingState state;
  model.optimizer->save_state(state, "optimizer");
  std::map<std::string, torch::Tensor> all = state.tensors();
  for (size_t i = 0; i < model.parameters.size(); ++i)
    all["parameter/" + std::to_string(i)] = model.parameters[i].detach().clone();
  all["step_count"] = torch::tensor(state.contains("optimizer/step") ? state.get_int("optimizer/step") : 0);
  return all;
}

void expect_same(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b,
                 bool bitwise) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, tensor] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    if (bitwise)
      EXPECT_TRUE(torch::equal(tensor, b.at(name))) << name;
    else
      EXPECT_TRUE(torch::allclose(tensor, b.at(name), 1e-6, 1e-7)) << name;
  }
}

// `told` skips a first step and a middle one, and steps with found_inf = 0 otherwise; `plain`
// steps without found_inf. Each skip leaves everything as it was, and they end alike.
void expect_skips_exactly(const MakeOptimizer& make, bool bitwise_without_skips) {
  Model plain = make_model(make);
  Model told = make_model(make);
  const std::vector<bool> told_skips = {true, false, false, true, false};
  int step = 0;
  for (const bool skip : told_skips) {
    if (skip) {
      const auto before = snapshot(told);
      set_gradients(told, 99, /*overflowed=*/true);
      told.optimizer->step(found_inf(true));
      expect_same(before, snapshot(told), /*bitwise=*/true);
      continue;
    }
    set_gradients(plain, step);
    plain.optimizer->step();
    set_gradients(told, step);
    told.optimizer->step(found_inf(false));
    ++step;
    expect_same(snapshot(plain), snapshot(told), bitwise_without_skips);
  }
}

TEST(FoundInf, SgdSkipsExactly) {
  expect_skips_exactly([](std::vector<ParameterGroup> groups) { return make_sgd(std::move(groups), {0.1, 0.9}); },
                       true);
}

TEST(FoundInf, NesterovSgdSkipsExactly) {
  expect_skips_exactly(
      [](std::vector<ParameterGroup> groups) { return make_sgd(std::move(groups), {0.1, 0.9, true}); }, true);
}

TEST(FoundInf, PlainSgdSkipsExactly) {
  expect_skips_exactly([](std::vector<ParameterGroup> groups) { return make_sgd(std::move(groups), {0.1, 0.0}); },
                       true);
}

TEST(FoundInf, AdamSkipsExactly) {
  expect_skips_exactly(
      [](std::vector<ParameterGroup> groups) { return make_adam(std::move(groups), {0.01, 0.9, 0.999, 1e-8}); },
      true);
}

// LARS told found_inf takes the device path: the update multiplies by a step-size tensor where the
// host path passes a scalar, so the two agree to rounding, not to the bit.
TEST(FoundInf, LarsSkipsExactly) {
  expect_skips_exactly(
      [](std::vector<ParameterGroup> groups) { return make_lars(std::move(groups), {0.5, 0.9, 0.01, 0.0}); },
      false);
}

}  // namespace
}  // namespace mlh
