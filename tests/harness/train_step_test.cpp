// The one training step against hand-made steps: the global-batch mean gradient, shards, clipping,
// empty shards, the kept loss, and bench and training taking the same update.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/bench.h"
#include "harness/fused_adam.h"
#include "harness/train_step.h"

namespace mlh {
namespace {

struct Problem {
  torch::Tensor x = torch::tensor({{1.0f, 2.0f, 0.5f}, {0.0f, -1.0f, 3.0f}, {2.0f, 2.0f, -1.0f}, {1.0f, 0.0f, 1.0f}});
  torch::Tensor y = torch::tensor({1.0f, -2.0f, 0.5f, 3.0f});
};

// The summed squared error of rows [begin, end) under weights w.
torch::Tensor squared_error_sum(const torch::Tensor& w, const Problem& p, int64_t begin, int64_t end) {
  const torch::Tensor rows = p.x.narrow(0, begin, end - begin);
  return (rows.matmul(w) - p.y.narrow(0, begin, end - begin)).pow(2).sum();
}

torch::Tensor start_weights() { return torch::tensor({0.5f, -0.25f, 1.0f}).requires_grad_(true); }

std::unique_ptr<TrainStep> sgd_step(const torch::Tensor& w, double learning_rate, const World& world,
                                    double clip_norm = 0) {
  return std::make_unique<TrainStep>(std::vector<torch::Tensor>{w}, make_sgd({ParameterGroup{{w}}}, SgdOptions{learning_rate}),
                                     world, TrainStepOptions{Precision::kFp32, torch::kCPU, clip_norm});
}

// w - lr * d/dw (mean squared error over the batch), by autograd on a copy.
torch::Tensor expected_sgd_update(const Problem& p, double learning_rate, double clip_norm = 0) {
  torch::Tensor w = start_weights();
  (squared_error_sum(w, p, 0, 4) / 4.0).backward();
  torch::Tensor g = w.grad();
  if (clip_norm > 0 && g.norm().item<double>() > clip_norm) g = g * (clip_norm / (g.norm().item<double>() + 1e-6));
  return (w - learning_rate * g).detach();
}

TEST(TrainStep, OneShardStepsByTheGlobalBatchMeanGradient) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor w = start_weights();
  auto step = sgd_step(w, 0.1, world);
  const torch::Tensor loss = step->run(1, 4.0, [&](int64_t) { return squared_error_sum(w, p, 0, 4); });
  EXPECT_TRUE(torch::allclose(w, expected_sgd_update(p, 0.1), 1e-6, 1e-7));
  EXPECT_NEAR(loss.item<double>(), squared_error_sum(start_weights(), p, 0, 4).item<double>(), 1e-5);
}

TEST(TrainStep, ShardsAddUpToTheWholeBatch) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor w = start_weights();
  auto step = sgd_step(w, 0.1, world);
  step->run(4, 4.0, [&](int64_t k) { return squared_error_sum(w, p, k, k + 1); });
  EXPECT_TRUE(torch::allclose(w, expected_sgd_update(p, 0.1), 1e-6, 1e-7));
}

TEST(TrainStep, EmptyShardsAddNothing) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor w = start_weights();
  auto step = sgd_step(w, 0.1, world);
  step->run(2, 4.0, [&](int64_t k) { return k == 0 ? squared_error_sum(w, p, 0, 4) : torch::Tensor(); });
  EXPECT_TRUE(torch::allclose(w, expected_sgd_update(p, 0.1), 1e-6, 1e-7));
}

TEST(TrainStep, ClipsTheGlobalGradientNorm) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor w = start_weights();
  auto step = sgd_step(w, 0.1, world, /*clip_norm=*/0.5);
  step->run(1, 4.0, [&](int64_t) { return squared_error_sum(w, p, 0, 4); });
  const torch::Tensor clipped = expected_sgd_update(p, 0.1, 0.5);
  EXPECT_TRUE(torch::allclose(w, clipped, 1e-6, 1e-7));
  EXPECT_FALSE(torch::allclose(clipped, expected_sgd_update(p, 0.1), 1e-6, 1e-7));  // the clip bit
}

TEST(TrainStep, KeepsTheLossUntilTakenThenStartsAgain) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor w = start_weights();
  auto step = sgd_step(w, 0.0, world);  // learning rate 0: every step sees the same loss
  double returned = 0;
  for (int i = 0; i < 3; ++i) returned += step->run(1, 4.0, [&](int64_t) { return squared_error_sum(w, p, 0, 4); }).item<double>();
  EXPECT_NEAR(step->take_loss_sum(), returned, 1e-9);
  EXPECT_EQ(step->take_loss_sum(), 0.0);
}

TEST(TrainStep, TheLearningRateIsSetBeforeEachStep) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor w = start_weights();
  auto step = sgd_step(w, 1.0, world);
  step->set_learning_rate(0.1);
  step->run(1, 4.0, [&](int64_t) { return squared_error_sum(w, p, 0, 4); });
  EXPECT_TRUE(torch::allclose(w, expected_sgd_update(p, 0.1), 1e-6, 1e-7));
  EXPECT_EQ(step->optimizer().name(), "sgd");
}

// `mlharness bench` runs a workload's training step as a DeviceBenchStep; from the same weights on
// the same batch, one bench step and one training step leave the same weights.
TEST(TrainStep, ABenchStepIsTheTrainingStep) {
  const World world = World::single_process();
  const Problem p;
  torch::Tensor trained = start_weights();
  torch::Tensor benched = start_weights();
  auto training = std::make_unique<TrainStep>(std::vector<torch::Tensor>{trained},
                                              make_adam({ParameterGroup{{trained}, 0.01}}, AdamOptions{0.05}), world);
  auto benching = std::make_shared<TrainStep>(std::vector<torch::Tensor>{benched},
                                              make_adam({ParameterGroup{{benched}, 0.01}}, AdamOptions{0.05}), world);
  training->run(2, 4.0, [&](int64_t k) { return squared_error_sum(trained, p, 2 * k, 2 * k + 2); });
  DeviceBenchStep bench({torch::kCPU, Precision::kFp32, 4}, [&, benching] {
    benching->run(2, 4.0, [&](int64_t k) { return squared_error_sum(benched, p, 2 * k, 2 * k + 2); });
  });
  bench.run();
  EXPECT_TRUE(torch::equal(trained, benched));
  EXPECT_FALSE(torch::equal(trained, start_weights()));
  EXPECT_EQ(bench.samples_per_step(), 4);
  EXPECT_EQ(bench.device_used(), "cpu");
}

TEST(Sgd, NesterovMatchesTorchSgd) {
  torch::Tensor ours = start_weights();
  torch::Tensor theirs = start_weights();
  auto sgd = make_sgd({ParameterGroup{{ours}, 0.1}}, SgdOptions{0.05, 0.9, /*nesterov=*/true});
  torch::optim::SGD reference({theirs}, torch::optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.1));
  const Problem p;
  for (int i = 0; i < 3; ++i) {
    drop_gradients({ours});
    squared_error_sum(ours, p, 0, 4).backward();
    sgd->step();
    reference.zero_grad();
    squared_error_sum(theirs, p, 0, 4).backward();
    reference.step();
  }
  EXPECT_TRUE(torch::allclose(ours, theirs, 1e-6, 1e-7));
}

TEST(Sgd, EachGroupStepsAtItsLearningRateFactorAndDecay) {
  torch::Tensor weight = torch::tensor({1.0f}).requires_grad_(true);
  torch::Tensor bias = torch::tensor({1.0f}).requires_grad_(true);
  auto sgd = make_sgd({ParameterGroup{{weight}, 0.5}, ParameterGroup{{bias}, 0.0, /*learning_rate_factor=*/2.0}},
                      SgdOptions{0.1});
  sgd->set_learning_rate(0.25);
  weight.mutable_grad() = torch::tensor({1.0f});
  bias.mutable_grad() = torch::tensor({1.0f});
  sgd->step();
  EXPECT_NEAR(weight.item<double>(), 1.0 - 0.25 * (1.0 + 0.5 * 1.0), 1e-7);
  EXPECT_NEAR(bias.item<double>(), 1.0 - 0.5 * 1.0, 1e-7);
  EXPECT_DOUBLE_EQ(sgd->learning_rate(), 0.25);
}

// clip_gradient_norm is clip_grad_norm_ without the read-back: the same gradients to the bit,
// whether the norm is above max_norm (scaled) or below (left as they were), and the norm itself.
TEST(ClipGradientNorm, ScalesAsClipGradNormWithoutReadingTheNorm) {
  for (const double max_norm : {0.5, 1e6}) {
    torch::manual_seed(8);
    std::vector<torch::Tensor> ours, theirs;
    for (const int64_t n : {7, 130, 1}) {
      const torch::Tensor grad = torch::randn({n});
      ours.push_back(torch::zeros({n}, torch::requires_grad()));
      ours.back().mutable_grad() = grad.clone();
      theirs.push_back(torch::zeros({n}, torch::requires_grad()));
      theirs.back().mutable_grad() = grad.clone();
    }
    ours.push_back(torch::zeros({3}, torch::requires_grad()));  // no gradient: not counted
    const torch::Tensor norm = clip_gradient_norm(ours, max_norm);
    const double their_norm = torch::nn::utils::clip_grad_norm_(theirs, max_norm);
    EXPECT_EQ(norm.item<double>(), their_norm);
    for (size_t i = 0; i < theirs.size(); ++i) EXPECT_TRUE(torch::equal(ours[i].grad(), theirs[i].grad())) << i;
    EXPECT_FALSE(ours.back().grad().defined());
  }
  EXPECT_FALSE(clip_gradient_norm({torch::zeros({2}, torch::requires_grad())}, 1.0).defined());
}

}  // namespace
}  // namespace mlh
