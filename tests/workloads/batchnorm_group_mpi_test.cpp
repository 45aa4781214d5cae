// Run under `mpirun -np 2` (ctest mpi.BatchNormGroup): the batchnorm_group setting as the image
// workloads use it. Their ResNet's BatchNorm layers (workloads/common/resnet.h), given a group of the
// two ranks, make the two ranks' shards one batch: the loss summed over the ranks and the gradients
// summed as the data-parallel reduction sums them equal one model's on the whole batch, with even,
// uneven and empty shards. And a step of the ResNet trainer where one rank's shard is empty still
// runs that rank's passes, so its peer's collectives meet theirs.
//
// Bounds: in double the two sides differ by the order of their sums only (N values per channel,
// relative error ~N * 2^-53 per BatchNorm, compounded over the 18-layer net's ~20 normalisations and
// its backward): below 1e-12 relative for these sizes. 1e-9 is used, far below the ~1e-2 that
// per-rank statistics (no group) give, which the last case checks.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "harness/sync_batchnorm.h"
#include "harness/world.h"
#include "workloads/common/resnet.h"
#include "workloads/resnet/resnet_trainer.h"

namespace mlh {
namespace {

const World& world() {
  static const World instance = World::from_mpi();
  return instance;
}

common::ResNet tiny_resnet() {
  torch::manual_seed(7);
  common::ResNet model(common::ResNetOptions(18).width(0.0625).in_channels(1).small_input(true).num_classes(10));
  model->to(torch::kDouble);
  return model;
}

struct Outcome {
  double loss = 0;
  std::vector<torch::Tensor> gradients;
};

// sum(logits * upstream) of `images` and its parameter gradients, summed over the ranks when `sum_over_ranks`.
Outcome forward_backward(common::ResNet& model, const torch::Tensor& images, const torch::Tensor& upstream,
                         bool sum_over_ranks) {
  model->train();
  const torch::Tensor loss = (model->forward(images) * upstream).sum();
  loss.backward();
  Outcome outcome;
  torch::Tensor total = loss.detach().reshape({1}).clone();
  if (sum_over_ranks) world().comm().allreduce_sum(total);
  outcome.loss = total.item<double>();
  for (const torch::Tensor& p : model->parameters()) {
    torch::Tensor g = p.grad().clone();
    if (sum_over_ranks) world().comm().allreduce_sum(g);
    outcome.gradients.push_back(g);
  }
  return outcome;
}

double largest_relative_difference(const Outcome& a, const Outcome& b) {
  double largest = std::abs(a.loss - b.loss) / std::max(1.0, std::abs(b.loss));
  for (size_t i = 0; i < a.gradients.size(); ++i) {
    const double scale = std::max(1.0, b.gradients[i].abs().max().item<double>());
    largest = std::max(largest, (a.gradients[i] - b.gradients[i]).abs().max().item<double>() / scale);
  }
  return largest;
}

// This rank's shard of a batch cut {first, second} against one model on the whole batch.
double difference_from_whole_batch(std::vector<int64_t> cut, int group_size) {
  EXPECT_EQ(world().size(), 2) << "run under mpirun -np 2";
  torch::manual_seed(21);
  const int64_t total = cut[0] + cut[1];
  const torch::Tensor images = torch::randn({total, 1, 12, 12}, torch::kDouble);
  const torch::Tensor upstream = torch::randn({total, 10}, torch::kDouble);
  common::ResNet whole = tiny_resnet();
  const Outcome expected = forward_backward(whole, images, upstream, /*sum_over_ranks=*/false);

  common::ResNet shard = tiny_resnet();
  const int64_t layers = set_batchnorm_group(*shard, make_batchnorm_group(world(), group_size, "batchnorm_group"));
  EXPECT_EQ(layers, 20) << "every BatchNorm of ResNet-18 (stem, 16 in blocks, 3 projections)";
  const int64_t first = world().rank() == 0 ? 0 : cut[0], mine = cut[static_cast<size_t>(world().rank())];
  const Outcome summed = forward_backward(shard, images.narrow(0, first, mine), upstream.narrow(0, first, mine),
                                          /*sum_over_ranks=*/true);
  return largest_relative_difference(summed, expected);
}

TEST(BatchNormGroup, TwoRanksShardsAreOneBatchForTheResNet) {
  EXPECT_LT(difference_from_whole_batch({4, 4}, 2), 1e-9);
}

TEST(BatchNormGroup, UnevenShardsAreOneBatchForTheResNet) {
  EXPECT_LT(difference_from_whole_batch({5, 2}, 2), 1e-9);
}

TEST(BatchNormGroup, AnEmptyShardTakesPartAndAddsNothing) {
  EXPECT_LT(difference_from_whole_batch({6, 0}, 2), 1e-9);
}

// The comparison sees per-rank statistics: without a group the same shards are two batches.
TEST(BatchNormGroup, WithoutAGroupTheShardsAreTwoBatches) {
  EXPECT_GT(difference_from_whole_batch({4, 4}, 1), 1e-3);
}

// ResNetTrainer::train_on on a rank whose shard is empty: with the group it still runs the model (its
// peer's BatchNorm collectives wait for it), the step ends on both ranks, and both hold the same
// parameters afterwards, moved by the step.
TEST(BatchNormGroup, TheTrainerRunsAnEmptyShardsPasses) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  torch::manual_seed(11);
  common::ResNet model(common::ResNetOptions(18).width(0.0625).in_channels(1).small_input(true).num_classes(10));
  set_batchnorm_group(*model, make_batchnorm_group(world(), 2, "batchnorm_group"));
  const std::vector<torch::Tensor> before = [&] {
    std::vector<torch::Tensor> copies;
    for (const auto& p : model->parameters()) copies.push_back(p.detach().clone());
    return copies;
  }();
  std::unique_ptr<Optimizer> sgd = make_sgd(resnet::parameter_groups(model, 0.0), SgdOptions{0.1, 0.0});
  resnet::ResNetTrainer trainer(model, std::move(sgd), 0.0, world(), TrainStepOptions{});
  torch::manual_seed(5);
  const int64_t mine = world().rank() == 0 ? 6 : 0;
  const torch::Tensor images = torch::randn({6, 1, 12, 12}).narrow(0, 0, mine);
  const torch::Tensor labels = torch::randint(10, {6}, torch::kLong).narrow(0, 0, mine);
  trainer.model()->train();
  trainer.train_on(resnet::ResNetBatch{{resnet::ImageShard{images, labels}}, 6});
  int64_t moved = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const torch::Tensor p = trainer.model()->parameters()[i].detach();
    if (!torch::equal(p, before[i])) ++moved;
    torch::Tensor other = p.clone();
    world().comm().broadcast(other, 0);
    EXPECT_TRUE(torch::equal(other, p)) << "parameter " << i << " differs between the ranks";
  }
  EXPECT_GT(moved, 0);
}

}  // namespace
}  // namespace mlh
