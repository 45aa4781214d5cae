// The seed decides: a workload's first epoch on a small set with seed 1, seed 1 again and seed 2, each
// leaving a checkpoint, runs that ctest makes first (mlh_add_seed_check in each workload's e2e.cmake,
// which names them here: --run <seed 1> --run <seed 1 again> --run <seed 2>). The same seed leaves the same checkpoint byte for byte (weights, optimizer moments,
// counters, random streams) and logs the same training loss and evaluation; another seed leaves
// other weights (most of the model's numbers differ) and logs another loss and evaluation. So
// `--seed` reaches every random stream that matters, and nothing else varies between runs.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/e2e/run_checkpoints.h"
#include "tests/e2e/run_check_arguments.h"
#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

TEST(SeedDecides, TheFirstEpoch) {
  const std::vector<std::string>& runs = run_check_arguments().runs;
  ASSERT_EQ(runs.size(), 3u) << "give --run <seed 1> --run <seed 1 again> --run <seed 2>";
  const std::string &run_one = runs[0], &run_again = runs[1], &run_two = runs[2];
  const RunCheckpoint one = last_checkpoint_of(run_one);
  const RunCheckpoint again = last_checkpoint_of(run_again);
  const RunCheckpoint two = last_checkpoint_of(run_two);
  ASSERT_EQ(one.ranks.size(), 1u);
  ASSERT_EQ(again.ranks.size(), 1u);
  ASSERT_EQ(two.ranks.size(), 1u);
  for (const RunCheckpoint* c : {&one, &again, &two}) EXPECT_EQ(c->manifest.at("epoch"), 1) << c->path;
  EXPECT_EQ(one.manifest.at("seed"), 1);
  EXPECT_EQ(two.manifest.at("seed"), 2);

  // The same seed: the same bytes (the manifest's CRC-32 of the rank file, and entry by entry).
  EXPECT_EQ(rank_crcs(one), rank_crcs(again));
  const StateDifference same = compare_states(one.ranks[0], again.ranks[0]);
  EXPECT_GT(same.compared.size(), 2u);
  EXPECT_TRUE(same.differing.empty()) << "seed 1 twice, differing: " << names(same.differing);

  // Another seed: other weights, most of them.
  EXPECT_NE(rank_crcs(one), rank_crcs(two));
  const StateDifference other = compare_states(one.ranks[0], two.ranks[0]);
  ASSERT_GT(other.model_elements, 0);
  EXPECT_GT(other.differing_model_elements, other.model_elements / 2)
      << other.differing_model_elements << " of " << other.model_elements << " model numbers differ";

  // The logs: the same loss and evaluation for the same seed, others for another.
  const std::vector<LogRecord> log_one = records_of(run_one), log_again = records_of(run_again),
                               log_two = records_of(run_two);
  const std::vector<nlohmann::json> eval_one = eval_accuracy_values(log_one), eval_two = eval_accuracy_values(log_two);
  const std::vector<double> loss_one = train_losses(log_one), loss_two = train_losses(log_two);
  ASSERT_EQ(eval_one.size(), 1u);
  ASSERT_EQ(eval_two.size(), 1u);
  ASSERT_EQ(loss_one.size(), 1u);
  ASSERT_EQ(loss_two.size(), 1u);
  EXPECT_EQ(eval_accuracy_values(log_again), eval_one);
  EXPECT_EQ(train_losses(log_again), loss_one);
  EXPECT_NE(eval_two[0], eval_one[0]);
  EXPECT_NE(loss_two[0], loss_one[0]);
  EXPECT_EQ(find(log_one, "seed")->value, 1);
  EXPECT_EQ(find(log_two, "seed")->value, 2);
  std::printf("%s: seed 1: loss %.6g, eval %s; seed 2: loss %.6g, eval %s; %lld of %lld model numbers differ\n",
              run_one.c_str(), loss_one[0], eval_one[0].dump().c_str(), loss_two[0], eval_two[0].dump().c_str(),
              static_cast<long long>(other.differing_model_elements), static_cast<long long>(other.model_elements));
}

}  // namespace
}  // namespace mlh
