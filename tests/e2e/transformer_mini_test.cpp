// Checks of the Transformer mini runs that ctest makes first (tests/e2e/CMakeLists.txt): on one
// rank it reaches its BLEU target with the transformer keys of the 0.7.0 rules, far above the BLEU
// of copying the source; two ranks at the same global batch train as one rank with the same thread
// count (one each), bitwise: dropout is drawn per gradient shard, the shards' gradients are summed in
// one order, and evaluation decodes the same batches whatever the rank count. (Other thread counts
// round sums differently, so a two-thread rank drifts from them by rounding.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

TEST(TransformerMini, ReachesItsBleuTargetFarAboveCopyingTheSource) {
  const auto records = records_of("transformer_np1_seed1");
  expect_translation_run_beats_copying("transformer_np1_seed1", records, 0.2);

  // training_0.7.0 closed_transformer.yaml (spec/mlperf-logging.md §5).
  std::map<std::string, int> counts = key_counts(records);
  const std::map<std::string, const LogRecord*> once = last_by_key(records);
  for (const char* key : {"global_batch_size", "opt_name", "opt_base_learning_rate", "opt_learning_rate_warmup_steps",
                          "opt_adam_beta_1", "opt_adam_beta_2", "opt_adam_epsilon", "max_sequence_length",
                          "run_start", "run_stop", "init_stop", "train_samples", "eval_samples"})
    EXPECT_EQ(counts[key], 1) << key;
  EXPECT_EQ(once.at("submission_benchmark")->value, "transformer");
  EXPECT_EQ(once.at("opt_name")->value, "adam");
  EXPECT_EQ(once.at("opt_adam_epsilon")->value.get<double>(), 1e-9);
  EXPECT_GT(once.at("global_batch_size")->value.get<int64_t>(), 0);
  EXPECT_EQ(once.at("max_sequence_length")->metadata["method"], "discard");
  EXPECT_THAT(console_of("transformer_np1_seed1"), ::testing::HasSubstr("copy-source baseline"));
}

TEST(TransformerMini, TwoRanksMatchOneRank) {
  // Both runs stop after their first epoch, on a smaller corpus than the full run's, where BLEU is
  // still below copying the source: rank_weights_check.cpp compares their weights
  // (workloads/transformer/e2e.cmake).
  const auto one_records = records_of("transformer_np1_one_core_seed1");
  const auto one = eval_accuracies(one_records);
  const auto records = records_of("transformer_np2_seed1");
  const auto two = eval_accuracies(records);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(one[0], two[0]);
  const LogRecord* one_loss = find(one_records, "mlharness_train_loss");
  const LogRecord* two_loss = find(records, "mlharness_train_loss");
  ASSERT_TRUE(one_loss && two_loss);
  EXPECT_EQ(one_loss->value.get<double>(), two_loss->value.get<double>());
  EXPECT_EQ(count_of(records, "run_start"), 1) << "only rank 0 logs";
  EXPECT_THAT(log_of("transformer_np2_seed1").string(), ::testing::HasSubstr("/2x"));
}

}  // namespace
}  // namespace mlh
