// Run under `mpirun -np 2` (ctest mpi.Collectives): every rank's BatchNorm running statistics become
// their mean over the ranks, at any depth of the model, other buffers untouched; gradient buckets
// reduced inside backward (hooks) give bitwise the sums of the reduction after backward, with the
// gradients left as views of the buckets, in the same bucket order on a rank whose backward produced
// other gradients or none; allgather concatenates in rank order; rank 0 hears a peer's error while it
// waits in a collective that peer has not joined; a signal that only one rank gets stops every rank
// at the same check.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>

#include "harness/batchnorm_statistics.h"
#include "harness/gradient_allreduce.h"
#include "harness/interrupt.h"
#include "harness/optimizer.h"
#include "harness/peer_error_watch.h"
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

// After an armed step every gradient is a view of its bucket (gradient_as_bucket_view): the
// parameters of one bucket share its storage, a channels-last weight's gradient has the weight's
// strides, and the next step accumulates into the same memory.
TEST(GradientBuckets, GradientsAreViewsOfTheirBucketsAcrossSteps) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  torch::manual_seed(5);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 4, 3));
  conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  std::vector<torch::Tensor> parameters = conv->parameters();
  GradientAllReducer reducer(parameters, world(), /*bucket_bytes=*/int64_t{1} << 20);
  ASSERT_EQ(reducer.buckets().size(), 1u);
  std::vector<const void*> first_addresses;
  for (int step = 0; step < 2; ++step) {
    drop_gradients(parameters);
    reducer.reduce_during_next_backward();
    torch::manual_seed(100 + world().rank() + 10 * step);
    conv->forward(torch::randn({2, 3, 6, 6})).pow(2).sum().backward();
    reducer.allreduce_sum();
    EXPECT_EQ(reducer.buckets_reduced_during_backward(), 1);
    const torch::Tensor& weight_grad = conv->weight.grad();
    EXPECT_EQ(weight_grad.strides(), conv->weight.strides());
    EXPECT_TRUE(weight_grad.is_alias_of(conv->bias.grad()));
    std::vector<const void*> addresses;
    for (const auto& p : parameters) addresses.push_back(p.grad().data_ptr());
    if (step == 0) first_addresses = addresses;
    else EXPECT_EQ(addresses, first_addresses);
  }
}

// Three parameters of one size, each its own bucket: buckets {c}, {b}, {a}. Rank 0's backward
// produces a's gradient before c's and none for b; rank 1's is `peer` (no backward at all: no
// samples this step; or one where b is used too). Bucket order must not follow either backward:
// reduced in another order than the peer, the equal-sized buckets would add the wrong gradients.
enum class Peer { kNoSamples, kUsesEveryParameter };

void expect_gradients_summed_in_bucket_order(Peer peer) {
  const torch::Tensor x = torch::arange(1.0, 5.0);
  torch::Tensor a = torch::full({4}, 2.0, torch::requires_grad());
  torch::Tensor b = torch::full({4}, 3.0, torch::requires_grad());
  torch::Tensor c = torch::full({4}, 5.0, torch::requires_grad());
  GradientAllReducer reducer({a, b, c}, world(), /*bucket_bytes=*/16);
  ASSERT_EQ(reducer.buckets(), (std::vector<std::vector<size_t>>{{2}, {1}, {0}}));
  reducer.reduce_during_next_backward();
  if (world().rank() == 0) (a * (c * x)).sum().backward();  // AccumulateGrad of a runs first
  else if (peer == Peer::kUsesEveryParameter) (a * (b * (c * x))).sum().backward();
  reducer.allreduce_sum();
  const bool peer_used_all = peer == Peer::kUsesEveryParameter;
  // d/da of a*c*x is c*x; of a*b*c*x is b*c*x; and so on.
  const torch::Tensor expected_a = 5.0 * x + (peer_used_all ? 15.0 * x : torch::zeros_like(x));
  const torch::Tensor expected_b = peer_used_all ? 10.0 * x : torch::zeros_like(x);
  const torch::Tensor expected_c = 2.0 * x + (peer_used_all ? 6.0 * x : torch::zeros_like(x));
  EXPECT_TRUE(torch::equal(a.grad(), expected_a)) << a.grad();
  EXPECT_TRUE(torch::equal(b.grad(), expected_b)) << b.grad();
  EXPECT_TRUE(torch::equal(c.grad(), expected_c)) << c.grad();
}

TEST(GradientBuckets, ARankWithoutSamplesReducesInItsPeersOrder) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  expect_gradients_summed_in_bucket_order(Peer::kNoSamples);
}

TEST(GradientBuckets, ARankWithoutSomeGradientsReducesInItsPeersOrder) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  expect_gradients_summed_in_bucket_order(Peer::kUsesEveryParameter);
}

// Rank 1 tells rank 0 its error and joins the all-reduce only a second later: rank 0's watch hears the
// rank and the message while rank 0 still waits in it.
TEST(PeerErrorWatch, RankZeroHearsAnErrorWhileItWaitsInACollective) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  ASSERT_TRUE(MpiSession::threads_may_communicate());
  const std::string message = "train/n01/img_7.jpg: not a decodable image";
  std::atomic<bool> heard{false};
  std::mutex mutex;
  int heard_rank = -1;
  std::string heard_message;
  {
    const PeerErrorWatch watch(
        world(),
        [&](int rank, const std::string& text) {
          const std::lock_guard<std::mutex> lock(mutex);
          heard_rank = rank;
          heard_message = text;
          heard = true;
        },
        std::chrono::milliseconds(10));
    if (world().rank() == 1) {
      MpiSession::tell_root_of_error(message, std::chrono::milliseconds(50));
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    world().allreduce_sum(1.0);
    if (world().rank() == 0) {
      EXPECT_TRUE(heard.load()) << "not heard while waiting in the all-reduce";
    }
  }
  if (world().rank() != 0) return;
  const std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(heard_rank, 1);
  EXPECT_EQ(heard_message, message);
}

// SIGTERM reaches rank 1 alone, before its third step's check (as a scheduler may signal one node
// first): both ranks stop at that check, each with SIGTERM, and neither trains a fourth step.
TEST(InterruptWatch, ASignalOnOneRankStopsEveryRankAtTheSameStep) {
  ASSERT_EQ(world().size(), 2) << "run under mpirun -np 2";
  const InterruptWatch watch(world());
  int stopped_at = -1;
  int signal_number = 0;
  for (int step = 1; step <= 5 && stopped_at < 0; ++step) {
    if (step == 3 && world().rank() == 1) std::raise(SIGTERM);
    try {
      watch.check();
    } catch (const RunInterrupted& stop) {
      stopped_at = step;
      signal_number = stop.signal_number();
    }
  }
  EXPECT_EQ(stopped_at, 3);
  EXPECT_EQ(signal_number, SIGTERM);
  const std::vector<double> steps = world().allgather({static_cast<double>(stopped_at)});
  EXPECT_EQ(steps, (std::vector<double>{3, 3}));
}

}  // namespace
}  // namespace mlh
