// Run under `mpirun -np 2` and `-np 4` (ctest mpi.SyncBatchNorm.*): SyncBatchNorm2d over groups of two
// ranks gives each rank what one BatchNorm2d computes over its group's concatenated batch (the
// output, the input's gradient, the weight's and bias's gradients summed over the group, the running
// statistics), with even, uneven and empty per-rank batches, contiguous and channels-last; a group of
// one is BatchNorm2d bitwise.
//
// Float bounds (u = 2^-24, N = values per channel in the group's batch): the two sides sum N terms per
// channel in different orders. Recursive summation errs by at most N*u times the sum of the terms'
// magnitudes, so a per-channel sum (the weight's and bias's gradients, the mean) may differ by 2*N*u*S,
// S the sum of |terms|; with the error of xhat (relative N*u*E[x^2]/var, under 2*N*u for these inputs)
// the weight's gradient gets 6*N*u*S. Elementwise values (output, input gradient) inherit the
// statistics' errors times |x - mean| * invstd * |weight| <= 4 * 1.5 here, plus the mean's: under
// 16*N*u*max(1, |value|). In double the same reasoning gives bounds near 1e-13; 1e-10 is used, far
// below the 1e-3 any algebra error shows.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "harness/sync_batchnorm.h"
#include "harness/world.h"

namespace mlh {
namespace {

const World& world() {
  static const World instance = World::from_mpi();
  return instance;
}

constexpr double kUnitRoundoff = 1.0 / (1 << 24);

struct Case {
  torch::ScalarType type;
  bool channels_last;
  std::vector<int64_t> batch_per_rank;  // per rank of a group of two
};

void expect_within(const torch::Tensor& actual, const torch::Tensor& expected, const torch::Tensor& bound,
                   const std::string& what) {
  const torch::Tensor excess = (actual.to(torch::kDouble) - expected.to(torch::kDouble)).abs() - bound.to(torch::kDouble);
  EXPECT_LE(excess.numel() == 0 ? 0.0 : excess.max().item<double>(), 0.0)
      << what << ": largest difference " << (actual.to(torch::kDouble) - expected.to(torch::kDouble)).abs().max().item<double>();
}

// One training step of SyncBatchNorm2d on this rank's part of its group's batch, against BatchNorm2d
// on the group's whole batch.
void check_group_of_two(const Case& c) {
  ASSERT_EQ(world().size() % 2, 0) << "run under mpirun -np 2 or -np 4";
  const int64_t channels = 3, side = 5;
  const int group = world().rank() / 2, member = world().rank() % 2;
  const int64_t total = c.batch_per_rank[0] + c.batch_per_rank[1];
  const int64_t first = member == 0 ? 0 : c.batch_per_rank[0];
  const int64_t mine = c.batch_per_rank[static_cast<size_t>(member)];
  const auto options = torch::TensorOptions(c.type);
  // Each group its own data, so a group that summed another's would be caught.
  torch::manual_seed(11 + group);
  const torch::Tensor x_all = torch::randn({total, channels, side, side}, options) * 2.0 + 0.5;
  const torch::Tensor upstream_all = torch::randn({total, channels, side, side}, options);
  const torch::Tensor weight = torch::rand({channels}, options) + 0.5, bias = torch::randn({channels}, options);
  const torch::MemoryFormat format = c.channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;

  torch::nn::BatchNorm2d reference(channels);
  SyncBatchNorm2d sync(channels);
  reference->to(c.type);
  sync->to(c.type);
  {
    torch::NoGradGuard no_grad;
    for (torch::nn::BatchNorm2dImpl* bn : {reference.get(), static_cast<torch::nn::BatchNorm2dImpl*>(sync.get())}) {
      bn->weight.copy_(weight);
      bn->bias.copy_(bias);
    }
  }
  ASSERT_EQ(set_batchnorm_group(*sync, make_batchnorm_group(world(), 2, "batchnorm_group")), 1);

  const torch::Tensor x_ref = x_all.clone(format).requires_grad_();
  const torch::Tensor y_ref = reference(x_ref);
  (y_ref * upstream_all).sum().backward();

  const torch::Tensor x = x_all.narrow(0, first, mine).clone(format).requires_grad_();
  const torch::Tensor y = sync(x);
  (y * upstream_all.narrow(0, first, mine)).sum().backward();
  torch::Tensor weight_grad = sync->weight.grad().to(torch::kDouble), bias_grad = sync->bias.grad().to(torch::kDouble);
  // The group's sum of the per-rank gradients, as the data-parallel reduction forms it.
  torch::Tensor both = torch::zeros({world().size() / 2, 2, channels}, torch::kDouble);
  both[group].copy_(torch::stack({weight_grad, bias_grad}));
  world().comm().allreduce_sum(both);

  const double n = static_cast<double>(total * side * side);
  const bool is_float = c.type == torch::kFloat;
  auto elementwise_bound = [&](const torch::Tensor& expected) {
    return is_float ? 16 * n * kUnitRoundoff * expected.abs().clamp_min(1.0) : torch::full_like(expected, 1e-10);
  };
  const torch::Tensor xhat = (x_all - x_all.mean({0, 2, 3}, true)) / x_all.var({0, 2, 3}, false, true).add(1e-5).sqrt();
  const torch::Tensor sum_w = (upstream_all * xhat).abs().sum({0, 2, 3}), sum_b = upstream_all.abs().sum({0, 2, 3});
  auto sum_bound = [&](const torch::Tensor& terms, double factor) {
    return is_float ? factor * n * kUnitRoundoff * terms : torch::full_like(terms, 1e-10);
  };

  EXPECT_TRUE(y.is_contiguous(format));
  expect_within(y, y_ref.narrow(0, first, mine), elementwise_bound(y_ref.narrow(0, first, mine)), "output");
  const torch::Tensor dx_ref = x_ref.grad().narrow(0, first, mine);
  expect_within(x.grad(), dx_ref, elementwise_bound(dx_ref), "input gradient");
  expect_within(both[group][0], reference->weight.grad(), sum_bound(sum_w, 6), "weight gradient");
  expect_within(both[group][1], reference->bias.grad(), sum_bound(sum_b, 2), "bias gradient");
  const torch::Tensor sum_x = x_all.abs().sum({0, 2, 3});
  expect_within(sync->running_mean, reference->running_mean, sum_bound(sum_x, 2) * 0.1 / n, "running mean");
  const torch::Tensor sum_x2 = x_all.square().sum({0, 2, 3});
  expect_within(sync->running_var, reference->running_var, sum_bound(sum_x2, 4) * 0.1 / (n - 1), "running variance");
  EXPECT_EQ(sync->num_batches_tracked.item<int64_t>(), 1);
}

TEST(SyncBatchNorm, EqualsOneBatchNormOverTheGroupsBatchInDouble) {
  check_group_of_two({torch::kDouble, false, {3, 3}});
}

TEST(SyncBatchNorm, EqualsOneBatchNormOverTheGroupsBatchInFloat) {
  check_group_of_two({torch::kFloat, false, {3, 3}});
}

TEST(SyncBatchNorm, EqualsOneBatchNormOverTheGroupsBatchInChannelsLast) {
  check_group_of_two({torch::kFloat, true, {3, 3}});
}

TEST(SyncBatchNorm, EqualsOneBatchNormWhenTheRanksBatchesDiffer) {
  check_group_of_two({torch::kDouble, false, {1, 4}});
}

// A rank with an empty batch still takes part and contributes nothing.
TEST(SyncBatchNorm, EqualsOneBatchNormWhenOneRankHasNoSamples) {
  check_group_of_two({torch::kDouble, false, {4, 0}});
}

// Groups of one: every rank is BatchNorm2d on its own samples, bitwise, in training and in eval mode.
TEST(SyncBatchNorm, AGroupOfOneIsBatchNormBitwise) {
  torch::manual_seed(3 + world().rank());
  const torch::Tensor x = torch::randn({4, 3, 5, 5});
  torch::nn::BatchNorm2d plain(3);
  SyncBatchNorm2d sync(3);
  EXPECT_EQ(set_batchnorm_group(*sync, make_batchnorm_group(world(), 1, "batchnorm_group")), 1);
  EXPECT_FALSE(sync->group().synchronised());
  for (bool training : {true, false}) {
    plain->train(training);
    sync->train(training);
    EXPECT_TRUE(torch::equal(plain(x), sync(x))) << (training ? "training" : "eval");
    EXPECT_TRUE(torch::equal(plain->running_mean, sync->running_mean));
    EXPECT_TRUE(torch::equal(plain->running_var, sync->running_var));
  }
}

TEST(SyncBatchNorm, AGroupMustDivideTheRanks) {
  EXPECT_THROW(make_batchnorm_group(world(), 3, "batchnorm_group"), std::exception);
  EXPECT_THROW(make_batchnorm_group(world(), 0, "batchnorm_group"), std::exception);
  EXPECT_EQ(make_batchnorm_group(world(), world().size(), "batchnorm_group").size, world().size());
}

}  // namespace
}  // namespace mlh
