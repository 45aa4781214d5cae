// Every case of issue 20 on published logs of each round (tests/data/mlperf-rounds, README.md there):
// the values expected.json holds, made by tools/make_rounds_goldens.py with its own reading of the logs
// and the verdict of today's official checker (mlperf-logging), are what `score` and `report` give.
//   - each run's minutes and convergence by its own log, and the group's MLPerf score;
//   - score and report give the same time for the same runs;
//   - the compliance verdict under --strict is the official checker's for every log it could judge.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "compliance/benchmark_names.h"
#include "compliance/result_groups.h"
#include "compliance/run_verdicts.h"
#include "compliance/score.h"
#include "report/report.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;

const fs::path kRounds = fs::path(test_paths::source_dir()) / "tests" / "data" / "mlperf-rounds";

nlohmann::json expected_groups() {
  std::ifstream in(kRounds / "expected.json");
  return nlohmann::json::parse(in).at("groups");
}

const ResultGroup* find_group(const ResultScan& scan, const std::string& benchmark) {
  for (const ResultGroup& group : scan.groups)
    if (group.benchmark == benchmark) return &group;
  return nullptr;
}

// The official checker's word on a log: "pass", "fail" (FAILED, or CRASH: it accepts no such log),
// "" where it has none (v0.5 logs).
std::string official(const nlohmann::json& run) {
  const nlohmann::json& verdict = run.at("official_checker");
  if (!verdict.is_object()) return "";
  return verdict.at("verdict") == "SUCCESS" ? "pass" : "fail";
}

TEST(PublishedRounds, ScoreReportAndStrictVerdictsAreWhatTheGoldensSay) {
  int groups_checked = 0, verdicts_compared = 0;
  for (const nlohmann::json& expected : expected_groups()) {
    const std::string system = expected.at("system");
    const std::string benchmark = expected.at("benchmark");
    SCOPED_TRACE(system + " / " + benchmark);
    const std::string folder = (kRounds / system).string();
    const ResultScan scan = scan_results({folder});
    const ResultGroup* group = find_group(scan, benchmark);
    // Alibaba's own formats (README.md there) are read and scored like the others.
    ASSERT_NE(group, nullptr);
    if (expected.contains("skipped")) {
      EXPECT_FALSE(skipped_benchmark_reason(benchmark).empty());
      continue;
    }
    ++groups_checked;
    ASSERT_EQ(group->runs.size(), expected.at("runs").size());
    const BenchmarkScore score = score_benchmark(benchmark, group->runs, rejected_runs(check_runs(group->runs, ComplianceMode::kOwnRunsStrict)));
    for (const nlohmann::json& run : expected.at("runs")) {
      const std::string path = (kRounds / run.at("file").get<std::string>()).string();
      const auto row = std::find_if(score.runs.begin(), score.runs.end(), [&](const SeedRow& r) { return r.path == path; });
      ASSERT_NE(row, score.runs.end()) << path;
      EXPECT_EQ(row->converged, run.at("converged").get<bool>()) << path << ": " << row->failure;
      ASSERT_TRUE(row->time_to_train_minutes);
      EXPECT_NEAR(*row->time_to_train_minutes, run.at("minutes").get<double>(), 1e-4) << path;
    }
    if (expected.contains("score_minutes")) {
      ASSERT_TRUE(score.score_minutes) << score.invalid_reason;
      EXPECT_NEAR(*score.score_minutes, expected.at("score_minutes").get<double>(), 1e-4);
    } else {
      EXPECT_FALSE(score.score_minutes) << "expected invalid: " << expected.value("invalid", std::string());
    }

    // The report over the same folder gives the number score gives (the score, else the olympic mean of
    // the runs present).
    ReportRequest request;
    request.inputs = {folder};
    request.out_dir = (testing_files::fresh_test_folder("published_rounds") / "report").string();
    const ReportOutcome report = make_report(request);
    const GroupSummary* in_report = nullptr;
    for (const GroupSummary& g : report.tables.groups) {
      if (g.benchmark != benchmark) continue;
      EXPECT_EQ(in_report, nullptr) << "two report groups of " << benchmark;
      in_report = &g;
    }
    ASSERT_NE(in_report, nullptr);
    EXPECT_EQ(in_report->run_indices.size(), group->runs.size());
    const std::optional<double> score_number = score.score_minutes ? score.score_minutes : score.runs_present_olympic_minutes;
    EXPECT_EQ(in_report->olympic_mean_minutes.has_value(), score_number.has_value());
    if (score_number && in_report->olympic_mean_minutes) {
      EXPECT_DOUBLE_EQ(*in_report->olympic_mean_minutes, *score_number);
    }
    if (expected.contains("converged_present_olympic_minutes")) {
      ASSERT_TRUE(score.runs_present_olympic_minutes);
      EXPECT_NEAR(*score.runs_present_olympic_minutes, expected.at("converged_present_olympic_minutes").get<double>(), 1e-4);
    }

    // --strict: the verdict of today's official checker, log by log.
    const std::map<std::string, RunVerdict> strict = check_runs(group->runs, ComplianceMode::kStrict);
    for (const nlohmann::json& run : expected.at("runs")) {
      const std::string word = official(run);
      if (word.empty()) continue;
      const std::string path = (kRounds / run.at("file").get<std::string>()).string();
      ASSERT_TRUE(strict.count(path)) << path;
      const RunVerdict& verdict = strict.at(path);
      EXPECT_EQ(verdict.outcome == RunVerdict::Outcome::kPassed ? "pass" : "fail", word)
          << path << (verdict.failures.empty() ? "" : ": " + verdict.failures.front());
      EXPECT_EQ(verdict.counts_against_run, word == "fail") << path;
      ++verdicts_compared;
    }
  }
  EXPECT_GE(groups_checked, 11);
  EXPECT_GE(verdicts_compared, 19);
}

}  // namespace
}  // namespace mlh::report
