#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/user_error.h"
#include "harness/gradient_allreduce.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

TEST(GradientShards, ZeroMeansOneShardPerRank) {
  EXPECT_EQ(resolve_gradient_shards(0, 1, "gradient_shards"), 1);
  EXPECT_EQ(resolve_gradient_shards(0, 3, "gradient_shards"), 3);
  EXPECT_EQ(shards_per_rank(0, 4, "gradient_shards"), 1);
}

TEST(GradientShards, APowerOfTwoIsSharedAmongRanksThatDivideIt) {
  EXPECT_EQ(resolve_gradient_shards(8, 2, "gradient_shards"), 8);
  EXPECT_EQ(shards_per_rank(8, 2, "gradient_shards"), 4);
  EXPECT_EQ(shards_per_rank(8, 8, "gradient_shards"), 1);
}

TEST(GradientShards, RejectsCountsRanksCannotShare) {
  for (const auto& [shards, ranks, message] :
       std::vector<std::tuple<int64_t, int, std::string>>{{3, 1, "power of two"},
                                                          {-2, 1, "power of two"},
                                                          {2, 4, "4 ranks cannot share evenly"}}) {
    try {
      resolve_gradient_shards(shards, ranks, "gradient_shards");
      FAIL() << shards << " shards on " << ranks << " ranks accepted";
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
      EXPECT_THAT(e.what(), HasSubstr("'gradient_shards'"));
    }
  }
}

}  // namespace
}  // namespace mlh

namespace mlh {
namespace {

TEST(GradientBuckets, HoldTheParametersInReverseOrderUpToTheBucketSize) {
  // Backward produces the last parameters' gradients first, so their bucket fills first.
  EXPECT_EQ(plan_gradient_buckets({4, 4, 4, 100, 4}, 10),
            (std::vector<std::vector<size_t>>{{4}, {3}, {2, 1}, {0}}));
  EXPECT_EQ(plan_gradient_buckets({4, 4, 4}, 1000), (std::vector<std::vector<size_t>>{{2, 1, 0}}));
  EXPECT_TRUE(plan_gradient_buckets({}, 10).empty());
}

TEST(GradientBuckets, OneRankHasNothingToOverlap) {
  const World world = World::single_process();
  torch::Tensor p = torch::zeros({3}, torch::requires_grad());
  GradientAllReducer reducer({p}, world);
  EXPECT_FALSE(reducer.can_overlap());
  reducer.reduce_during_next_backward();
  p.sum().backward();
  reducer.allreduce_sum();
  EXPECT_EQ(reducer.buckets_reduced_during_backward(), 0);
  EXPECT_TRUE(torch::equal(p.grad(), torch::ones({3})));
}

}  // namespace
}  // namespace mlh
