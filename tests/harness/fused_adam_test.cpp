#include <gtest/gtest.h>

#include <torch/torch.h>

#include "harness/fused_adam.h"

namespace mlh {
namespace {

// FusedAdam must follow torch.optim.Adam (LibTorch's torch::optim::Adam has the same arithmetic).
void expect_matches_torch_adam(double weight_decay, torch::Tensor start) {
  torch::manual_seed(3);
  torch::Tensor ours = start.clone().set_requires_grad(true);
  torch::Tensor theirs = start.clone().set_requires_grad(true);
  FusedAdam fused({ParameterGroup{{ours}, weight_decay}}, AdamOptions{0.01, 0.25, 0.5, 1e-8});
  torch::optim::Adam reference({theirs}, torch::optim::AdamOptions(0.01).betas({0.25, 0.5}).eps(1e-8)
                                             .weight_decay(weight_decay));
  for (int step = 0; step < 6; ++step) {
    torch::Tensor target = torch::randn(start.sizes());
    drop_gradients({ours});
    (ours - target).pow(2).sum().backward();
    fused.step();
    reference.zero_grad();
    (theirs - target).pow(2).sum().backward();
    reference.step();
    ASSERT_TRUE(torch::allclose(ours, theirs, 1e-5, 1e-6)) << "step " << step;
  }
  EXPECT_EQ(fused.step_count(), 6);
}

TEST(FusedAdam, MatchesTorchAdam) { expect_matches_torch_adam(0.0, torch::randn({1000, 37})); }

TEST(FusedAdam, MatchesTorchAdamWithWeightDecay) { expect_matches_torch_adam(0.1, torch::randn({513})); }

TEST(FusedAdam, NonContiguousParametersTakeTheGeneralPath) {
  expect_matches_torch_adam(0.0, torch::randn({64}, torch::kDouble));
}

TEST(FusedAdam, ParametersWithoutGradientsAreLeftAlone) {
  torch::Tensor p = torch::ones({4}).set_requires_grad(true);
  FusedAdam adam({ParameterGroup{{p}}}, AdamOptions{});
  adam.step();
  EXPECT_TRUE(torch::equal(p, torch::ones({4})));
}

}  // namespace
}  // namespace mlh
