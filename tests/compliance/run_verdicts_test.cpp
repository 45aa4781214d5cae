// Compliance as a verdict beside the time (issue 20): which failed rules count a run as not converged.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compliance/run_verdicts.h"
#include "compliance/score.h"
#include "tests/mllog_line.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

// A resnet run that converged by its own log but fails the 0.7.0 rules (no submission_* keys, no
// hyperparameters); with `own`, a mlharness_* line marks it as a run mlharness wrote.
RunSummary write_noncompliant_run(const fs::path& path, bool own) {
  std::string text = mllog_line("submission_benchmark", "resnet", 0) + mllog_line("eval_target", 0.759, 1);
  if (own) text += mllog_line("mlharness_precision", "fp32", 2);
  text += mllog_line("run_start", nullptr, 1000) + mllog_line("eval_accuracy", 0.76, 50000, {{"epoch_num", 40}}) +
          mllog_line("run_stop", nullptr, 61000, {{"status", "success"}});
  std::ofstream(path) << text;
  return summarize_run(read_log_file(path.string()));
}

TEST(RunVerdicts, FailedRulesCountAgainstOwnRunsByDefaultAndAgainstEveryRunWhenStrict) {
  const fs::path folder = testing_files::fresh_test_folder("run_verdicts");
  const RunSummary published = write_noncompliant_run(folder / "published.txt", false);
  const RunSummary own = write_noncompliant_run(folder / "own.txt", true);
  ASSERT_TRUE(published.converged);
  ASSERT_TRUE(own.converged);

  const auto by_default = check_runs({published, own}, ComplianceMode::kOwnRunsStrict);
  ASSERT_EQ(by_default.size(), 2u);
  EXPECT_EQ(by_default.at(published.path).outcome, RunVerdict::Outcome::kFailed);
  EXPECT_EQ(by_default.at(published.path).ruleset, "0.7.0");
  EXPECT_FALSE(by_default.at(published.path).failures.empty());
  EXPECT_EQ(by_default.at(published.path).label(), "FAIL");
  EXPECT_FALSE(by_default.at(published.path).counts_against_run);
  EXPECT_TRUE(by_default.at(own.path).counts_against_run);
  const auto rejected = rejected_runs(by_default);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected.begin()->first, own.path);
  EXPECT_EQ(rejected.begin()->second.rfind("fails the 0.7.0 compliance rules: ", 0), 0u) << rejected.begin()->second;

  const auto strict = check_runs({published, own}, ComplianceMode::kStrict);
  EXPECT_TRUE(strict.at(published.path).counts_against_run);
  EXPECT_EQ(rejected_runs(strict).size(), 2u);

  EXPECT_TRUE(check_runs({published, own}, ComplianceMode::kOff).empty());
  EXPECT_FALSE(failure_counts_against(published, ComplianceMode::kOwnRunsStrict));
  EXPECT_TRUE(failure_counts_against(own, ComplianceMode::kOwnRunsStrict));
  EXPECT_TRUE(failure_counts_against(published, ComplianceMode::kStrict));
  EXPECT_FALSE(failure_counts_against(own, ComplianceMode::kOff));

  // The published run keeps its time in the score; the own run counts as the dropped slowest.
  const BenchmarkScore score = score_benchmark("resnet", {published, own}, rejected);
  ASSERT_EQ(score.runs.size(), 2u);
  EXPECT_EQ(score.not_converged, 1);
}

TEST(RunVerdicts, ALogOfABenchmarkItsRoundHadNoRulesForIsNotChecked) {
  // v0.5 had no benchmark rules for GNMT (mlharness's 0.5.0 set has NCF's only): NVIDIA's DGX-2 run
  // passes the common v0.5 rules, and its benchmark's rules are not checked.
  const std::string path = test_paths::source_dir() +
      "/tests/data/mlperf-rounds/v0.5/v0.5.0/nvidia/submission/results/dgx2_ngc18.11_pytorch/gnmt/result_0.txt";
  const RunSummary run = summarize_run(read_log_file(path));
  const auto verdicts = check_runs({run}, ComplianceMode::kStrict);
  ASSERT_EQ(verdicts.size(), 1u);
  const RunVerdict& verdict = verdicts.at(run.path);
  EXPECT_EQ(verdict.outcome, RunVerdict::Outcome::kNotChecked) << (verdict.failures.empty() ? "" : verdict.failures.front());
  EXPECT_EQ(verdict.ruleset, "0.5.0");
  EXPECT_EQ(verdict.label(), "not checked");
  EXPECT_NE(verdict.not_checked.find("'gnmt'"), std::string::npos) << verdict.not_checked;
  EXPECT_FALSE(verdict.counts_against_run);
  EXPECT_TRUE(rejected_runs(verdicts).empty());
}

TEST(RunVerdicts, AnUnusableLogGetsNoVerdict) {
  const fs::path folder = testing_files::fresh_test_folder("run_verdicts");
  const fs::path path = folder / "result_0.txt";
  std::ofstream(path) << mllog_line("submission_benchmark", "resnet", 0) + mllog_line("run_start", nullptr, 1000);
  const RunSummary run = summarize_run(read_log_file(path.string()));
  ASSERT_FALSE(run.usable());
  EXPECT_TRUE(check_runs({run}, ComplianceMode::kStrict).empty());
}

}  // namespace
}  // namespace mlh
