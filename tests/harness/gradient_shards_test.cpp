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
