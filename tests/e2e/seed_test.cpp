// Checks of the seed runs that ctest makes first (tests/e2e/CMakeLists.txt, the block at its end):
// every workload's first epoch on a small set, with seed 1, seed 1 again and seed 2, each leaving a
// checkpoint. The same seed leaves the same checkpoint byte for byte (weights, optimizer moments,
// counters, random streams) and logs the same training loss and evaluation; another seed leaves
// other weights (most of the model's numbers differ) and logs another loss and evaluation. So
// `--seed` reaches every random stream that matters, and nothing else varies between runs.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/e2e/run_checkpoints.h"
#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

std::vector<double> train_losses(const std::vector<LogRecord>& records) {
  std::vector<double> values;
  for (const auto& r : records)
    if (r.key == "mlharness_train_loss") values.push_back(r.value.get<double>());
  return values;
}

void expect_the_seed_decides(const std::string& workload) {
  const std::string run = workload + "_np1_first_epoch_seed";
  const RunCheckpoint one = last_checkpoint_of(run + "1");
  const RunCheckpoint again = last_checkpoint_of(run + "1_again");
  const RunCheckpoint two = last_checkpoint_of(run + "2");
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
  const std::vector<LogRecord> log_one = records_of(run + "1"), log_again = records_of(run + "1_again"),
                               log_two = records_of(run + "2");
  const std::vector<double> eval_one = eval_accuracies(log_one), eval_two = eval_accuracies(log_two);
  const std::vector<double> loss_one = train_losses(log_one), loss_two = train_losses(log_two);
  ASSERT_EQ(eval_one.size(), 1u);
  ASSERT_EQ(eval_two.size(), 1u);
  ASSERT_EQ(loss_one.size(), 1u);
  ASSERT_EQ(loss_two.size(), 1u);
  EXPECT_EQ(eval_accuracies(log_again), eval_one);
  EXPECT_EQ(train_losses(log_again), loss_one);
  EXPECT_NE(eval_two[0], eval_one[0]);
  EXPECT_NE(loss_two[0], loss_one[0]);
  EXPECT_EQ(find(log_one, "seed")->value, 1);
  EXPECT_EQ(find(log_two, "seed")->value, 2);
  std::printf("%s: seed 1: loss %.6g, eval %.6g; seed 2: loss %.6g, eval %.6g; %lld of %lld model numbers differ\n",
              workload.c_str(), loss_one[0], eval_one[0], loss_two[0], eval_two[0],
              static_cast<long long>(other.differing_model_elements), static_cast<long long>(other.model_elements));
}

TEST(SeedDecides, Ncf) { expect_the_seed_decides("ncf"); }
TEST(SeedDecides, ResNet50) { expect_the_seed_decides("resnet50"); }
TEST(SeedDecides, Transformer) { expect_the_seed_decides("transformer"); }
TEST(SeedDecides, Gnmt) { expect_the_seed_decides("gnmt"); }
TEST(SeedDecides, Ssd) { expect_the_seed_decides("ssd"); }

}  // namespace
}  // namespace mlh
