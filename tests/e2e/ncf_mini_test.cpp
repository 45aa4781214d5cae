// Checks of the NCF mini runs that ctest makes first (tests/e2e/CMakeLists.txt): the embedded
// default reaches its target with a compliant log, a seed reproduces, and two ranks at the same
// global batch train as one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

TEST(NcfMini, ReachesTargetAndLogsEveryCommonKey) {
  const auto records = records_of("np1_seed1");
  const LogRecord* run_stop = find(records, "run_stop");
  ASSERT_NE(run_stop, nullptr);
  EXPECT_EQ(run_stop->metadata["status"], "success");
  const auto accuracies = eval_accuracies(records);
  ASSERT_FALSE(accuracies.empty());
  const LogRecord* target = find(records, "eval_target");
  ASSERT_NE(target, nullptr);
  EXPECT_GE(accuracies.back(), target->value.get<double>());
  for (size_t i = 0; i + 1 < accuracies.size(); ++i) EXPECT_LT(accuracies[i], target->value.get<double>());

  // training_0.7.0/common.yaml, with its counts (spec/mlperf-logging.md §4).
  std::map<std::string, int> counts = key_counts(records);
  for (const char* once : {"submission_org", "submission_platform", "submission_division", "submission_status",
                           "submission_benchmark", "init_stop", "run_start", "run_stop", "train_samples",
                           "eval_samples", "seed", "global_batch_size", "opt_name", "opt_base_learning_rate"})
    EXPECT_EQ(counts[once], 1) << once;
  for (const char* some : {"cache_clear", "init_start", "block_start", "block_stop", "epoch_start", "epoch_stop",
                           "eval_start", "eval_stop", "eval_accuracy"})
    EXPECT_GE(counts[some], 1) << some;
  for (const auto& r : records) {
    EXPECT_TRUE(r.metadata.contains("file") && r.metadata.contains("lineno")) << r.key;
    if (r.key == "eval_accuracy" || r.key == "epoch_start") {
      EXPECT_TRUE(r.metadata.contains("epoch_num"));
    }
    if (r.key == "block_start") {
      EXPECT_GT(r.metadata["epoch_count"].get<int>(), 0);
    }
  }

  // The target is far above what recommending the most popular items scores.
  const LogRecord* baseline = find(records, "mlharness_quality_baseline");
  ASSERT_NE(baseline, nullptr);
  EXPECT_EQ(baseline->value["name"], "popularity baseline");
  EXPECT_GT(target->value.get<double>(), baseline->value["value"].get<double>() + 0.3);

  // The record beside the log agrees.
  fs::path record_path = log_of("np1_seed1");
  record_path.replace_extension(".json");
  std::ifstream in(record_path);
  const std::string record((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(record, ::testing::HasSubstr("\"converged\": true"));
  EXPECT_THAT(record, ::testing::HasSubstr("\"epochs_to_converge\": \"" + std::to_string(accuracies.size()) + "\""));

  // The console says where the log is, and reports the popularity baseline beside the target.
  const std::string text = console_of("np1_seed1");
  EXPECT_THAT(text, ::testing::HasSubstr("log:    " + log_of("np1_seed1").string()));
  EXPECT_THAT(text, ::testing::HasSubstr("popularity baseline"));
}

TEST(NcfMini, SameSeedGivesIdenticalEvalAccuracy) {
  const auto first = eval_accuracies(records_of("np1_seed1"));
  const auto again = eval_accuracies(records_of("np1_seed1_again"));
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first, again);
}

TEST(NcfMini, TwoRanksMatchOneRank) {
  const auto one = eval_accuracies(records_of("np1_seed1"));
  const auto records = records_of("np2_seed1");
  const auto two = eval_accuracies(records);
  ASSERT_EQ(one.size(), two.size());
  // Bit for bit: the mini config's 8 gradient shards are summed in the same order on 1 or 2 ranks.
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i], two[i]) << "epoch " << i + 1;
  EXPECT_EQ(count_of(records, "run_start"), 1) << "only rank 0 logs";
  EXPECT_THAT(log_of("np2_seed1").string(), ::testing::HasSubstr("/2x"));
}

}  // namespace
}  // namespace mlh
