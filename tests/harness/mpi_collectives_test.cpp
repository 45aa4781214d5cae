// Run under `mpirun -np 2` (ctest mpi.Collectives): every rank's BatchNorm running statistics become
// their mean over the ranks, at any depth of the model, other buffers untouched; gradient buckets
// reduced inside backward (hooks) give bitwise the sums of the reduction after backward; allgather
// concatenates in rank order.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/batchnorm_statistics.h"
#include "harness/gradient_allreduce.h"
#include "harness/world.h"

namespace mlh {
namespace {

const World& world() {
  static const World instance = World::from_mpi();
  return instance;
}

struct Block : torch::nn::Module {
  Block() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(2, 3, 1)));
    bn = register_module("bn", torch::nn::BatchNorm2d(3));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};

struct Model : torch::nn::Module {
  Model() {
    block = register_module("block", std::make_shared<Block>());
    outer = register_module("outer", torch::nn::BatchNorm1d(4));
  }
  std::shared_ptr<Block> block;
  torch::nn::BatchNorm1d outer{nullptr};
};

// Rank 0 gives three values, rank 1 none, then the other way round: every rank gets them in rank order.
TEST(Allgather, ConcatenatesEveryRanksValuesInRankOrder) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  const bool first = world().rank() == 0;
  EXPECT_EQ(world().allgather(first ? std::vector<double>{1, 2, 3} : std::vector<double>{}),
            (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(world().allgather(first ? std::vector<double>{0.5} : std::vector<double>{7, 8}),
            (std::vector<double>{0.5, 7, 8}));
}

TEST(BatchNormStatistics, AreTheMeanOverTheRanksAtAnyDepth) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  Model model;
  const double r = world().rank();
  torch::NoGradGuard no_grad;
  Block& inner = *model.block;
  torch::nn::BatchNorm1d& outer = model.outer;
  inner.bn->running_mean.copy_(torch::tensor({1.0, 2.0, 3.0}) * (r + 1));    // rank 0: 1 2 3, rank 1: 2 4 6
  inner.bn->running_var.fill_(4.0 * (r + 1));                               // 4, 8
  outer->running_mean.fill_(r == 0 ? -1.0 : 3.0);
  outer->running_var.fill_(r == 0 ? 0.5 : 1.5);
  inner.conv->weight.fill_(r);                                              // a parameter: not averaged

  EXPECT_EQ(average_batchnorm_statistics(model, world()), 4);

  EXPECT_TRUE(torch::equal(inner.bn->running_mean, torch::tensor({1.5f, 3.0f, 4.5f})));
  EXPECT_TRUE(torch::equal(inner.bn->running_var, torch::full({3}, 6.0f)));
  EXPECT_TRUE(torch::equal(outer->running_mean, torch::full({4}, 1.0f)));
  EXPECT_TRUE(torch::equal(outer->running_var, torch::full({4}, 1.0f)));
  EXPECT_EQ(outer->num_batches_tracked.item<int64_t>(), 0);
  EXPECT_TRUE(torch::equal(inner.conv->weight, torch::full_like(inner.conv->weight, r)));
}

// Each rank's gradient of a small MLP on its own inputs, summed over the ranks by `reducer`.
std::vector<torch::Tensor> reduced_gradients(bool during_backward, int64_t* reduced_in_backward,
                                             size_t* buckets) {
  torch::manual_seed(5);
  torch::nn::Sequential mlp(torch::nn::Linear(6, 16), torch::nn::ReLU(), torch::nn::Linear(16, 16),
                            torch::nn::ReLU(), torch::nn::Linear(16, 3));
  auto parameters = mlp->parameters();
  GradientAllReducer reducer(parameters, world(), /*bucket_bytes=*/400);
  EXPECT_TRUE(reducer.can_overlap());
  torch::manual_seed(100 + world().rank());
  const torch::Tensor input = torch::randn({8, 6});
  if (during_backward) reducer.reduce_during_next_backward();
  mlp->forward(input).pow(2).sum().backward();
  reducer.allreduce_sum();
  *reduced_in_backward = reducer.buckets_reduced_during_backward();
  *buckets = reducer.buckets().size();
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters) grads.push_back(p.grad().clone());
  return grads;
}

TEST(GradientBuckets, ReducedInsideBackwardAreBitwiseTheSumsReducedAfterIt) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  int64_t overlapped = 0, after = 0;
  size_t buckets = 0;
  const auto during = reduced_gradients(true, &overlapped, &buckets);
  const auto later = reduced_gradients(false, &after, &buckets);
  EXPECT_GT(buckets, 2u);
  EXPECT_EQ(overlapped, static_cast<int64_t>(buckets));  // every bucket started inside backward
  EXPECT_EQ(after, 0);
  ASSERT_EQ(during.size(), later.size());
  for (size_t i = 0; i < during.size(); ++i) EXPECT_TRUE(torch::equal(during[i], later[i])) << i;
  // And the sums are the two ranks' gradients added: rank 1's differ from rank 0's alone.
  torch::Tensor first = during.front().clone();
  world().comm().broadcast(first, 1);
  EXPECT_TRUE(torch::equal(first, during.front()));
}

}  // namespace
}  // namespace mlh

int main(int argc, char** argv) {
  mlh::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
