// A run on several ranks against one rank, by their checkpoints after the first epoch: the weights
// themselves, not only the logged values (an early BLEU below the copy-source baseline says little).
// The runs are those a workload's e2e.cmake names in mlh_add_rank_weights_check: --run <one rank>
// --run <many ranks> --ranks <R>.
//
// Data-parallel training on R ranks cuts each global batch into gradient_shards shards (0: one per
// rank), sums the shards' gradients in a fixed order and steps every rank alike. One rank given the
// same shard count does the same arithmetic on one thread, so it must end with the same weights,
// optimizer moments and counters, bit for bit, on every rank. Only the random stream differs: each
// shard reseeds it (shard_seed(seed, step, shard)), so a rank ends with the stream of the last shard
// it trained; the last rank's is the one-rank run's, whose whole state file it then equals.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/run_check_arguments.h"
#include "tests/e2e/run_checkpoints.h"

namespace mlh {
namespace {

TEST(RankWeights, EveryRankHoldsTheOneRankRunsState) {
  const RunCheckArguments& arguments = run_check_arguments();
  ASSERT_EQ(arguments.runs.size(), 2u) << "give --run <one rank> --run <many ranks> --ranks R";
  ASSERT_GT(arguments.ranks, 1) << "give --ranks R, the ranks of the second run";
  const std::string &one_run = arguments.runs[0], &many_run = arguments.runs[1];
  const size_t ranks = static_cast<size_t>(arguments.ranks);
  const RunCheckpoint one = last_checkpoint_of(one_run);
  const RunCheckpoint many = last_checkpoint_of(many_run);
  ASSERT_EQ(one.ranks.size(), 1u);
  ASSERT_EQ(many.ranks.size(), ranks);
  EXPECT_EQ(one.manifest.at("epoch"), 1);
  EXPECT_EQ(many.manifest.at("epoch"), 1);
  for (size_t r = 0; r < ranks; ++r) {
    const StateDifference d = compare_states(one.ranks[0], many.ranks[r], {"random/"});
    EXPECT_GT(d.model_elements, 0);
    EXPECT_TRUE(d.differing.empty()) << many_run << " rank " << r << " differs from " << one_run << " in "
                                     << names(d.differing);
  }
  EXPECT_EQ(rank_crcs(many).back(), rank_crcs(one).front());
}

}  // namespace
}  // namespace mlh
