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
//
// BatchNorm (ResNet-50, SSD, Mask R-CNN): a shard's forward pass normalises by its own batch
// statistics either way, so the weights and moments stay bit for bit; but the running statistics
// differ. One rank folds both shards into them every step (num_batches_tracked counts 2 a step),
// each of R ranks its own shard (1 a step), and before every evaluation the ranks average theirs.
// RankWeights.WeightsBitForBitBatchNormStatisticsWithin bounds that difference: the relative
// distance of each running mean and variance, ||many - one|| / ||one||, within --batchnorm-bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

bool is_batchnorm_statistic(const std::string& name) {
  for (const char* suffix : {".running_mean", ".running_var", ".num_batches_tracked"})
    if (name.size() > std::string(suffix).size() && name.compare(name.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
      return true;
  return false;
}

TEST(RankWeights, WeightsBitForBitBatchNormStatisticsWithin) {
  const RunCheckArguments& arguments = run_check_arguments();
  ASSERT_EQ(arguments.runs.size(), 2u) << "give --run <one rank> --run <many ranks> --ranks R --batchnorm-bound X";
  ASSERT_GT(arguments.ranks, 1) << "give --ranks R, the ranks of the second run";
  ASSERT_GT(arguments.batchnorm_bound, 0) << "give --batchnorm-bound X, the largest relative distance allowed";
  const std::string &one_run = arguments.runs[0], &many_run = arguments.runs[1];
  const RunCheckpoint one = last_checkpoint_of(one_run);
  const RunCheckpoint many = last_checkpoint_of(many_run);
  ASSERT_EQ(one.ranks.size(), 1u);
  ASSERT_EQ(many.ranks.size(), static_cast<size_t>(arguments.ranks));
  EXPECT_EQ(one.manifest.at("epoch"), 1);
  EXPECT_EQ(many.manifest.at("epoch"), 1);
  for (size_t r = 0; r < many.ranks.size(); ++r) {
    const StateDifference d = compare_states(one.ranks[0], many.ranks[r], {"random/"});
    EXPECT_GT(d.model_elements, 0);
    std::vector<std::string> other_than_statistics;
    for (const std::string& name : d.differing)
      if (!is_batchnorm_statistic(name)) other_than_statistics.push_back(name);
    EXPECT_TRUE(other_than_statistics.empty())
        << many_run << " rank " << r << " differs from " << one_run << " beyond BatchNorm's running statistics, in "
        << names(other_than_statistics);
  }
  // The statistics: every rank holds the same (averaged before the evaluation), near the one rank's.
  int statistics = 0;
  double largest = 0;
  std::string largest_name;
  for (const auto& [name, tensor] : one.ranks[0].tensors()) {
    if (!is_batchnorm_statistic(name)) continue;
    ASSERT_TRUE(many.ranks[0].contains(name)) << name;
    if (name.size() >= 20 && name.compare(name.size() - 20, 20, ".num_batches_tracked") == 0) {
      // One rank folds in every shard of every step, each of R ranks its own shards.
      int64_t tracked_on_ranks = 0;
      for (const TrainingState& rank : many.ranks) tracked_on_ranks += rank.get(name).item<int64_t>();
      EXPECT_EQ(tensor.item<int64_t>(), tracked_on_ranks) << name;
      continue;
    }
    for (size_t r = 1; r < many.ranks.size(); ++r)
      EXPECT_TRUE(torch::equal(many.ranks[r].get(name), many.ranks[0].get(name)))
          << name << " on rank " << r << ": not averaged over the ranks before the evaluation";
    const torch::Tensor& other = many.ranks[0].get(name);
    const double distance = (other.to(torch::kDouble) - tensor.to(torch::kDouble)).norm().item<double>() /
                            std::max(tensor.to(torch::kDouble).norm().item<double>(), 1e-12);
    ++statistics;
    if (distance > largest) {
      largest = distance;
      largest_name = name;
    }
  }
  EXPECT_GT(statistics, 0) << "no BatchNorm running statistics in " << one_run;
  EXPECT_LE(largest, arguments.batchnorm_bound) << largest_name;
  EXPECT_GT(largest, 0) << "the statistics are bit for bit: use RankWeights.EveryRankHoldsTheOneRankRunsState";
  std::printf("BatchNorm running statistics: %d tensors, largest relative distance %.4g (%s), bound %.4g\n",
              statistics, largest, largest_name.c_str(), arguments.batchnorm_bound);
}

}  // namespace
}  // namespace mlh
