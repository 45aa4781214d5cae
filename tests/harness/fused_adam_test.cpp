#include <cmath>

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "harness/adam_kernel.h"
#include "harness/fused_adam.h"
#include "harness/training_state.h"

namespace mlh {
namespace {

// FusedAdam must follow torch.optim.Adam (LibTorch's torch::optim::Adam has the same arithmetic):
// FusedAdam steps `ours`, torch::optim::Adam steps `theirs` (the same values, in any layout), six
// times on the same random targets.
void expect_matches_torch_adam(double weight_decay, torch::Tensor ours, torch::Tensor theirs) {
  torch::manual_seed(3);
  ours.set_requires_grad(true);
  theirs.set_requires_grad(true);
  FusedAdam fused({ParameterGroup{{ours}, weight_decay}}, AdamOptions{0.01, 0.25, 0.5, 1e-8});
  torch::optim::Adam reference({theirs}, torch::optim::AdamOptions(0.01).betas({0.25, 0.5}).eps(1e-8)
                                             .weight_decay(weight_decay));
  for (int step = 0; step < 6; ++step) {
    torch::Tensor target = torch::randn(ours.sizes(), ours.options().requires_grad(false));
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

void expect_matches_torch_adam(double weight_decay, const torch::Tensor& start) {
  expect_matches_torch_adam(weight_decay, start.clone(), start.clone());
}

TEST(FusedAdam, MatchesTorchAdam) { expect_matches_torch_adam(0.0, torch::randn({1000, 37})); }

TEST(FusedAdam, MatchesTorchAdamWithWeightDecay) { expect_matches_torch_adam(0.1, torch::randn({513})); }

TEST(FusedAdam, DoubleParametersTakeTheGeneralPath) {
  expect_matches_torch_adam(0.0, torch::randn({64}, torch::kDouble));
}

// Float32 CPU parameters that are not contiguous must take the op-by-op path: the fused loop walks
// param.data_ptr() as a flat array. A transposed matrix (dense, other strides) and every third
// element of a matrix (gaps between the elements): both follow torch::optim::Adam on a contiguous
// copy, and the elements between the strided parameter's stay as they were.
TEST(FusedAdam, NonContiguousParametersTakeTheGeneralPath) {
  const torch::Tensor transposed = torch::randn({37, 64}).t();
  ASSERT_FALSE(transposed.is_contiguous());
  ASSERT_EQ(transposed.scalar_type(), torch::kFloat);
  expect_matches_torch_adam(0.1, transposed, transposed.contiguous());

  const torch::Tensor matrix = torch::randn({300, 3});
  const torch::Tensor before = matrix.clone();
  const torch::Tensor column = matrix.select(1, 1);
  ASSERT_FALSE(column.is_contiguous());
  ASSERT_EQ(column.stride(0), 3);
  expect_matches_torch_adam(0.0, column, column.contiguous());
  EXPECT_FALSE(torch::equal(matrix.select(1, 1), before.select(1, 1))) << "the parameter was trained";
  EXPECT_TRUE(torch::equal(matrix.select(1, 0), before.select(1, 0)));
  EXPECT_TRUE(torch::equal(matrix.select(1, 2), before.select(1, 2)));
}

TEST(FusedAdam, ParametersWithoutGradientsAreLeftAlone) {
  torch::Tensor p = torch::ones({4}).set_requires_grad(true);
  FusedAdam adam({ParameterGroup{{p}}}, AdamOptions{});
  adam.step();
  EXPECT_TRUE(torch::equal(p, torch::ones({4})));
}

// A channels-last parameter (a convolution in channels_last) gets channels-last moments: LibTorch's
// fused CUDA kernel needs param, grad and moments with equal strides. Its gradient has its strides
// too, and the update follows torch::optim::Adam on a contiguous copy.
TEST(FusedAdam, ChannelsLastParametersGetMomentsWithTheirStrides) {
  const torch::Tensor weight = torch::randn({8, 3, 5, 5}).contiguous(torch::MemoryFormat::ChannelsLast);
  ASSERT_FALSE(weight.is_contiguous());
  torch::Tensor p = weight.clone(torch::MemoryFormat::Preserve).requires_grad_(true);
  FusedAdam adam({ParameterGroup{{p}}}, AdamOptions{});
  EXPECT_EQ(adam.exp_avg(0, 0).strides(), p.strides());
  EXPECT_EQ(adam.exp_avg_sq(0, 0).strides(), p.strides());
  (p * torch::randn(p.sizes())).sum().backward();
  EXPECT_EQ(p.grad().strides(), p.strides());
  adam.step();
  EXPECT_EQ(adam.exp_avg(0, 0).strides(), p.strides());
  // A checkpoint's load copies into the moments and keeps their strides.
  TrainingState state;
  adam.save_state(state, "adam");
  FusedAdam restored({ParameterGroup{{p}}}, AdamOptions{});
  restored.load_state(state, "adam");
  EXPECT_EQ(restored.exp_avg(0, 0).strides(), p.strides());
  EXPECT_TRUE(torch::equal(restored.exp_avg_sq(0, 0), adam.exp_avg_sq(0, 0)));
  expect_matches_torch_adam(0.1, weight.clone(torch::MemoryFormat::Preserve), weight.contiguous());
}

// The vectorised loop (whichever clone this CPU runs, AVX-512 here) gives the bits of the plain
// scalar formula, so results do not depend on the CPU; the odd length covers the vector tail.
TEST(AdamUpdate, EveryElementHasTheScalarFormulasBits) {
  const int64_t n = 1003;
  torch::manual_seed(5);
  const torch::Tensor start = torch::randn({4, n});
  torch::Tensor vectorised = start.clone();
  const AdamStepConstants c{0.9f, 0.1f, 0.999f, 0.001f, 0.0123f, 1.7f, 1e-8f, 0.01f};
  float* p = vectorised[0].data_ptr<float>();
  const float* g = vectorised[1].data_ptr<float>();
  float* m = vectorised[2].data_ptr<float>();
  float* v = vectorised[3].data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) v[i] = std::abs(v[i]);
  torch::Tensor scalar = vectorised.clone();
  adam_update(p, g, m, v, n, c);
  float* sp = scalar[0].data_ptr<float>();
  const float* sg = scalar[1].data_ptr<float>();
  float* sm = scalar[2].data_ptr<float>();
  float* sv = scalar[3].data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    const float decayed = c.weight_decay * sp[i];
    const float grad = sg[i] + decayed;
    const float kept_m = c.beta1 * sm[i], new_m = c.one_minus_beta1 * grad;
    sm[i] = kept_m + new_m;
    const float kept_v = c.beta2 * sv[i], new_v = c.one_minus_beta2 * grad * grad;
    sv[i] = kept_v + new_v;
    const float root = std::sqrt(sv[i]) * c.inverse_bias_correction2_sqrt;
    const float denominator = root + c.epsilon;
    const float scaled = c.step_size * sm[i];
    sp[i] -= scaled / denominator;
  }
  EXPECT_TRUE(torch::equal(vectorised, scalar));
  EXPECT_FALSE(torch::equal(vectorised, start));
}

}  // namespace
}  // namespace mlh
