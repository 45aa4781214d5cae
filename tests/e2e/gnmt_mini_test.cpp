// Checks of the GNMT mini run that ctest makes first (tests/e2e/CMakeLists.txt): `mpirun -np 4` on
// the mini config (the command users type) reaches its sacreBLEU target far above copying the
// source, logs every key the 0.7.0 gnmt rules want, once, from rank 0, and ends with the summary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

void expect_gnmt_run_reaches_its_target(const std::string& run) {
  const auto records = records_of(run);
  expect_translation_run_beats_copying(run, records, 0.15);

  // training_0.7.0 closed_gnmt.yaml (spec/mlperf-logging.md §5), each exactly once.
  std::map<std::string, int> counts = key_counts(records);
  const std::map<std::string, const LogRecord*> last = last_by_key(records);
  for (const char* key : {"global_batch_size", "opt_base_learning_rate", "opt_learning_rate_alt_decay_func",
                          "opt_learning_rate_alt_warmup_func", "opt_learning_rate_decay_factor",
                          "opt_learning_rate_decay_interval", "opt_learning_rate_decay_steps",
                          "opt_learning_rate_remain_steps", "opt_learning_rate_warmup_steps", "max_sequence_length",
                          "submission_benchmark", "run_start", "run_stop", "init_stop", "train_samples", "eval_samples"})
    EXPECT_EQ(counts[key], 1) << key;
  EXPECT_EQ(last.at("submission_benchmark")->value, "gnmt");
  EXPECT_EQ(last.at("max_sequence_length")->metadata["method"], "discard");
  EXPECT_EQ(last.at("opt_learning_rate_decay_steps")->value, 4);
  EXPECT_EQ(last.at("opt_learning_rate_decay_factor")->value, 0.5);
  EXPECT_TRUE(last.at("opt_learning_rate_alt_decay_func")->value.is_boolean());
  EXPECT_GT(last.at("opt_learning_rate_remain_steps")->value.get<int64_t>(),
            last.at("opt_learning_rate_warmup_steps")->value.get<int64_t>());
}

TEST(GnmtMini, FourRanksReachTheTargetFarAboveCopyingTheSourceAndLogOnce) {
  expect_gnmt_run_reaches_its_target("gnmt_np4_seed1");
  const auto records = records_of("gnmt_np4_seed1");
  EXPECT_EQ(count_of(records, "run_start"), 1) << "only rank 0 logs";
  EXPECT_THAT(log_of("gnmt_np4_seed1").string(), ::testing::HasSubstr("/4x"));
  // The command's final summary: seed, epochs, global batch, time to train, throughput, the log.
  const std::string console = console_of("gnmt_np4_seed1");
  EXPECT_THAT(console, ::testing::HasSubstr("copy-source baseline"));
  EXPECT_THAT(console, ::testing::HasSubstr("gnmt seed 1: reached bleu/100"));
  EXPECT_THAT(console, ::testing::HasSubstr("at global batch 16"));
  EXPECT_THAT(console, ::testing::HasSubstr("time to train"));
  EXPECT_THAT(console, ::testing::HasSubstr("train samples/s"));
  EXPECT_THAT(console, ::testing::HasSubstr("log:    "));
}

}  // namespace
}  // namespace mlh
