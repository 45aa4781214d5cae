#include "harness/lars.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace mlh {
namespace {

torch::Tensor parameter(std::vector<float> values) {
  return torch::tensor(values).requires_grad_(true);
}

void set_gradient(torch::Tensor& p, std::vector<float> grad) { p.mutable_grad() = torch::tensor(grad); }

// One step worked by hand: w = (3, 4) so |w| = 5; g = (0, 1) so |g| = 1.
TEST(Lars, AdaptedParametersStepByTheTrustRatio) {
  torch::Tensor w = parameter({3.0f, 4.0f});
  auto lars = make_lars({ParameterGroup{{w}, /*weight_decay=*/0.1, 1.0, /*lars_adapted=*/true}},
                        LarsOptions{/*learning_rate=*/2.0, /*momentum=*/0.9, /*eta=*/0.01, /*epsilon=*/0.0});
  set_gradient(w, {0.0f, 1.0f});
  lars->step();
  // trust = 0.01 * 5 / (1 + 0.1 * 5) = 1/30; v = g + 0.1 w = (0.3, 1.4); w -= 2 * trust * v.
  const double trust = 0.01 * 5.0 / 1.5;
  EXPECT_NEAR(w[0].item<double>(), 3.0 - 2.0 * trust * 0.3, 1e-6);
  EXPECT_NEAR(w[1].item<double>(), 4.0 - 2.0 * trust * 1.4, 1e-6);

  // Second step: momentum carries v; the trust ratio is recomputed from the new norms.
  const double w0 = w[0].item<double>(), w1 = w[1].item<double>();
  set_gradient(w, {1.0f, 0.0f});
  lars->step();
  const double w_norm = std::hypot(w0, w1);
  const double trust2 = 0.01 * w_norm / (1.0 + 0.1 * w_norm);
  const double v0 = 0.9 * 0.3 + 1.0 + 0.1 * w0, v1 = 0.9 * 1.4 + 0.0 + 0.1 * w1;
  EXPECT_NEAR(w[0].item<double>(), w0 - 2.0 * trust2 * v0, 1e-5);
  EXPECT_NEAR(w[1].item<double>(), w1 - 2.0 * trust2 * v1, 1e-5);
}

TEST(Lars, DecayedOnlyAndPlainGroupsTakeMomentumSgd) {
  torch::Tensor bias = parameter({1.0f});
  torch::Tensor scale = parameter({1.0f});
  auto lars = make_lars({ParameterGroup{{bias}, 0.1}, ParameterGroup{{scale}, 0.0}}, LarsOptions{0.5, 0.9, 0.001, 0.0});
  set_gradient(bias, {2.0f});
  set_gradient(scale, {2.0f});
  lars->step();
  EXPECT_NEAR(bias.item<double>(), 1.0 - 0.5 * (2.0 + 0.1 * 1.0), 1e-6);  // decay, no trust ratio
  EXPECT_NEAR(scale.item<double>(), 1.0 - 0.5 * 2.0, 1e-6);               // neither
}

TEST(Lars, ZeroNormsUseTrustOne) {
  torch::Tensor w = parameter({0.0f, 0.0f});
  auto lars = make_lars({ParameterGroup{{w}, 0.0, 1.0, true}}, LarsOptions{1.0, 0.0, 0.001, 0.0});
  set_gradient(w, {1.0f, -1.0f});
  lars->step();
  EXPECT_NEAR(w[0].item<double>(), -1.0, 1e-6);
  EXPECT_NEAR(w[1].item<double>(), 1.0, 1e-6);
}

TEST(Lars, LearningRateCanBeScheduled) {
  torch::Tensor w = parameter({0.0f});
  auto lars = make_lars({ParameterGroup{{w}, 0.0, /*learning_rate_factor=*/2.0}}, LarsOptions{1.0, 0.0, 0.001, 0.0});
  lars->set_learning_rate(0.125);
  EXPECT_DOUBLE_EQ(lars->learning_rate(), 0.125);
  set_gradient(w, {4.0f});
  lars->step();
  EXPECT_NEAR(w.item<double>(), -1.0, 1e-6);  // 0.125 x factor 2 x gradient 4
}

// The device's trust ratio is the host formula's, in the same double arithmetic, to the bit.
TEST(Lars, TrustRatioOnTheDeviceIsTheHostFormulas) {
  const LarsOptions options{0.1, 0.9, 0.001, 1e-9};
  torch::manual_seed(4);
  for (int i = 0; i < 50; ++i) {
    const torch::Tensor w = torch::randn({7, 5}) * (i + 1);
    const torch::Tensor g = torch::randn({7, 5}) / (i + 1);
    const double wd = i % 2 == 0 ? 5e-5 : 0.0;
    const double w_norm = w.norm().to(torch::kDouble).item<double>();
    const double g_norm = g.norm().to(torch::kDouble).item<double>();
    const double host = options.eta * w_norm / (g_norm + wd * w_norm + options.epsilon);
    const torch::Tensor device = lars_trust_ratio(w.norm(), g.norm(), wd, options);
    EXPECT_EQ(device.scalar_type(), torch::kDouble);
    EXPECT_EQ(device.item<double>(), host) << i;
  }
  const torch::Tensor zero = torch::zeros({});
  const torch::Tensor one = torch::ones({});
  EXPECT_EQ(lars_trust_ratio(zero, one, 0.1, options).item<double>(), 1.0);
  EXPECT_EQ(lars_trust_ratio(one, zero, 0.1, options).item<double>(), 1.0);
}

}  // namespace
}  // namespace mlh
