// `mlharness score`: scores, per-seed tables and RCP verdicts printed for folders of hand-made logs,
// bad logs named in the output, and exit status 2 for a folder without logs. The hand-made logs carry
// only what scoring reads, so most tests pass --no-check; NonCompliantLogsCountAsFailed shows the
// default (a failed rule counts against mlharness's own runs only; published logs keep their time
// beside the verdict) and --strict, which applies the rules to every log as the official summarizer does.
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/e2e/cli_fixture.h"
#include "tests/mllog_line.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kStartMs = 1.6e12;


struct LogSpec {
  std::string benchmark = "resnet";
  int64_t seed = 1;
  int64_t batch = 3264;
  double start_minutes = 0;   // after kStartMs
  double minutes = 10;
  int epochs = 36;
  bool converged = true;
  nlohmann::json effective_config = nullptr;  // logged as mlharness_effective_config when set
};

std::string log_text(const LogSpec& spec) {
  const double start = kStartMs + spec.start_minutes * 60000, stop = start + spec.minutes * 60000;
  std::string text = mllog_line("submission_benchmark", spec.benchmark, start - 2000) +
                     mllog_line("submission_platform", "8xTestGPU", start - 2000) + mllog_line("seed", spec.seed, start - 1500);
  if (!spec.effective_config.is_null()) text += mllog_line("mlharness_effective_config", spec.effective_config, start - 1400);
  text += mllog_line("global_batch_size", spec.batch, start - 1000) + mllog_line("run_start", nullptr, start) +
          mllog_line("eval_accuracy", spec.converged ? 0.76 : 0.5, stop - 10, {{"epoch_num", spec.epochs}}) +
          mllog_line("run_stop", nullptr, stop, {{"status", spec.converged ? "success" : "aborted"}});
  return text;
}

class ScoreCli : public Cli {
 protected:
  void write_log(const std::string& path, const LogSpec& spec) { write_text(path, log_text(spec)); }
  void write_text(const std::string& path, const std::string& text) {
    fs::create_directories((dir_ / path).parent_path());
    write(path, text);
  }
  // `count` runs of `spec.benchmark` in <folder>/result_<i>.txt, run i taking minutes + i.
  void write_runs(const std::string& folder, LogSpec spec, int count, const std::vector<int>& epochs = {}) {
    for (int i = 0; i < count; ++i) {
      LogSpec run = spec;
      run.seed = spec.seed + i;
      run.start_minutes = i * 100.0;
      run.minutes = spec.minutes + i;
      if (!epochs.empty()) run.epochs = epochs[i];
      write_log(folder + "/result_" + std::to_string(i) + ".txt", run);
    }
  }
};

TEST_F(ScoreCli, ScoresAnMlperfFolderAndPrintsEverySeed) {
  write_runs("results/sysA/resnet", {}, 5);  // 10..14 minutes: olympic mean 12
  const Outcome outcome = run("score results --no-check");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("results/sysA / resnet  (platform 8xTestGPU: 8 GPUs)"));
  EXPECT_THAT(outcome.out, HasSubstr("score: 12.000 minutes"));
  EXPECT_THAT(outcome.out, HasSubstr("seed        converged  epochs  minutes   log"));
  EXPECT_THAT(outcome.out, HasSubstr("3           yes        36      12.000    resnet/result_2.txt"));
  EXPECT_EQ(outcome.err, "");
}

TEST_F(ScoreCli, OneFailedRunIsShownAndTwoMakeTheScoreInvalid) {
  write_runs("results/sysA/resnet", {}, 5);
  write_log("results/sysA/resnet/result_0.txt", {"resnet", 1, 3264, 0, 10, 36, false});
  Outcome outcome = run("score results --no-check");
  EXPECT_EQ(outcome.exit_code, 0);
  // The aborted run is the dropped slowest, so only the fastest (11) goes: (12 + 13 + 14) / 3.
  EXPECT_THAT(outcome.out, HasSubstr("score: 13.000 minutes"));
  EXPECT_THAT(outcome.out, HasSubstr("no         -       10.000    resnet/result_0.txt  (run_stop status 'aborted')"));
  write_log("results/sysA/resnet/result_1.txt", {"resnet", 2, 3264, 100, 11, 36, false});
  outcome = run("score results --no-check");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: 2 of 5 runs did not converge; at most 1 may"));
}

TEST_F(ScoreCli, WrongRunCountsAreInvalid) {
  write_runs("results/sysA/gnmt", {"gnmt"}, 3);
  const Outcome outcome = run("score results --no-check");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: too few runs: 3; an MLPerf gnmt score takes exactly 10 runs"));
  EXPECT_THAT(outcome.out, HasSubstr("olympic mean of the runs present: 11.000 minutes (not an MLPerf score)"));
}

TEST_F(ScoreCli, BadLogsAreNamedNotFatal) {
  write_runs("mixed", {}, 5);
  std::string no_start = log_text({"resnet", 40});
  const size_t run_start_line = no_start.rfind('\n', no_start.find("\"run_start\"")) + 1;
  no_start.erase(run_start_line, no_start.find('\n', run_start_line) + 1 - run_start_line);
  write_text("mixed/result_5.txt", no_start);
  const std::string whole = log_text({"resnet", 41});
  write_text("mixed/result_6.txt", whole.substr(0, whole.size() - 30));  // the run_stop line cut short
  write_text("mixed/result_7.txt", "this is not a log\n");
  write_log("mixed/result_8.txt", {"resnet", 3});  // seed 3 again
  write_log("mixed/result_9.txt", {"ncf", 9, 8192});
  const Outcome outcome = run("score mixed --no-check");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("result_5.txt  (no run_start)"));
  EXPECT_THAT(outcome.out, HasSubstr("result_6.txt  (the log ends in the middle of a line)"));
  EXPECT_THAT(outcome.out, HasSubstr("skipped mixed/result_7.txt: not an MLPerf log"));
  EXPECT_THAT(outcome.out, HasSubstr("warning: seed 3 is used by 2 runs"));
  EXPECT_THAT(outcome.out, HasSubstr("mixed / ncf"));
  EXPECT_THAT(outcome.out, HasSubstr("note: folder mixed holds logs of several benchmarks (ncf, resnet); each is scored on its own"));
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: 2 of 8 runs did not converge; at most 1 may; too many runs: 8"));
}

TEST_F(ScoreCli, FoldersWithoutLogsAreUserErrors) {
  expect_user_error("score no/such/folder", "score: 'no/such/folder' does not exist");
  fs::create_directories(dir_ / "empty");
  expect_user_error("score empty", "score: no MLPerf result log (result_*.txt) under 'empty'");
  write_text("notlogs/result_0.txt", "hello\n");
  expect_user_error("score notlogs", "under 'notlogs' (notlogs/result_0.txt: not an MLPerf log");
  write_runs("runs/sysA/resnet", {}, 5);
  expect_user_error("score runs empty", "under 'empty'");
  expect_user_error("score", "score needs at least one folder");
  expect_user_error("score runs --benchmark gnmt", "no logs of benchmark 'gnmt'");
  expect_user_error("score runs --rpc", "unrecognised option '--rpc'");
}

TEST_F(ScoreCli, BenchmarkFilterAndHelp) {
  write_runs("results/sysA/resnet", {}, 5);
  write_runs("results/sysA/ssd", {"ssd", 1, 1024}, 5);
  Outcome outcome = run("score results --benchmark ssd --no-check");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("results/sysA / ssd"));
  EXPECT_THAT(outcome.out, Not(HasSubstr("results/sysA / resnet")));
  outcome = run("score --help");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("--rcp"));
  EXPECT_THAT(outcome.out, HasSubstr("--benchmark"));
}

TEST_F(ScoreCli, RcpVerdicts) {
  write_runs("pass/sys/resnet", {}, 5, {36, 36, 36, 40, 40});
  write_runs("fail/sys/resnet", {}, 5, {32, 32, 32, 32, 32});
  write_runs("huge/sys/resnet", {"resnet", 1, 100000}, 5);
  Outcome outcome = run("score pass --rcp --no-check");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("rcp (resnet, global batch 3264): PASS: mean epochs 37.333 vs min 34.310"));
  outcome = run("score fail --rcp --no-check");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("rcp (resnet, global batch 3264): FAIL: converges faster than the reference allows"));
  outcome = run("score huge --rcp --no-check");
  EXPECT_THAT(outcome.out, HasSubstr("MISSING RCP: no RCP for batch size 100000"));
  outcome = run("score pass --no-check");
  EXPECT_THAT(outcome.out, Not(HasSubstr("rcp")));
}

TEST_F(ScoreCli, MiniRunsUseTheMiniRcps) {
  write_runs("results/1xCPU/gnmt", {"gnmt", 1, 16, 0, 5, 3, true, {{"data_source", "synthetic"}}}, 10);
  Outcome outcome = run("score results --rcp --no-check");
  EXPECT_THAT(outcome.out, HasSubstr("rcp (mini_gnmt, global batch 16): PASS"));
  write_runs("other/1xCPU/gnmt", {"gnmt", 1, 16, 0, 5, 3, true, {{"data_source", "wmt16"}}}, 10);
  outcome = run("score other --rcp --no-check");
  EXPECT_THAT(outcome.out, HasSubstr("rcp: no RCP set applies to these runs (mini_gnmt applies to {\"data_source\":[\"synthetic\"]})"));
}

TEST_F(ScoreCli, NonCompliantLogsCountAsFailed) {
  // Logs mlharness wrote (mlharness_effective_config): the default judges them as a submission today.
  write_runs("results/sys/resnet", LogSpec{.effective_config = {{"data_source", "imagenet"}}}, 5);
  Outcome outcome = run("score results");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: 5 of 5 runs did not converge"));
  EXPECT_THAT(outcome.out, HasSubstr("fails the 0.7.0 compliance rules: "));
  EXPECT_THAT(outcome.out, HasSubstr("compliance: 5 of 5 logs fail the 0.7.0 rules (first: "));
  EXPECT_THAT(outcome.out, HasSubstr("; they count as not converged"));

  // The same logs without mlharness's lines read as published logs: the time stands, the verdict beside it.
  write_runs("published/sys/resnet", LogSpec{}, 5);
  outcome = run("score published");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("score: 12.000 minutes"));
  EXPECT_THAT(outcome.out, HasSubstr("published logs keep their time (--strict counts them as not converged)"));
  EXPECT_THAT(outcome.out, HasSubstr("FAIL"));
  outcome = run("score published --strict");
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: 5 of 5 runs did not converge"));
  EXPECT_THAT(outcome.out, HasSubstr("; they count as not converged"));
  outcome = run("score published --strict --no-check");
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("--strict and --no-check exclude each other"));
}

// `report` takes score's convergence under every compliance mode: for mlharness's own runs that fail a
// rule and for published logs that fail one, under the default, --strict and --no-check, the report's
// converged runs, each run's verdict and the group's number are what `score` prints.
TEST_F(ScoreCli, ReportShowsScoresNumberAndVerdictsInEveryComplianceMode) {
  // Own runs failing the 0.7.0 rules, one of them also not converged; published logs failing them too.
  write_runs("own/sys/resnet", LogSpec{.effective_config = {{"data_source", "imagenet"}}}, 4);
  write_log("own/sys/resnet/result_4.txt", LogSpec{.seed = 5, .start_minutes = 400, .minutes = 9, .converged = false,
                                                  .effective_config = {{"data_source", "imagenet"}}});
  write_runs("published/sys/resnet", LogSpec{}, 5);

  const auto csv_rows = [](const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::map<std::string, std::string>> rows;
    std::vector<std::string> header;
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> fields;
      std::stringstream cells(line);
      for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
      if (header.empty()) {
        header = fields;
        continue;
      }
      std::map<std::string, std::string> row;
      for (size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
      rows.push_back(row);
    }
    return rows;
  };
  int compared = 0;
  for (const std::string folder : {"own", "published"}) {
    for (const std::string mode : {"", " --strict", " --no-check"}) {
      SCOPED_TRACE(folder + mode);
      const Outcome score = run("score " + folder + mode);
      ASSERT_EQ(score.exit_code, 0) << score.err;
      const Outcome report = run("report " + folder + " --out out_" + folder + mode.substr(mode.empty() ? 0 : 3) + mode);
      ASSERT_EQ(report.exit_code, 0) << report.err;
      const fs::path out = dir_ / ("out_" + folder + mode.substr(mode.empty() ? 0 : 3));

      // Each seed's verdict: score's "converged" column against runs.csv's.
      std::map<std::string, std::string> score_converged;
      std::stringstream lines(score.out);
      for (std::string line; std::getline(lines, line);) {
        std::stringstream words(line);
        std::string seed, converged;
        words >> seed >> converged;
        if (!seed.empty() && std::isdigit(static_cast<unsigned char>(seed[0])) && (converged == "yes" || converged == "no"))
          score_converged[seed] = converged == "yes" ? "true" : "false";
      }
      const auto runs = csv_rows(out / "runs.csv");
      ASSERT_EQ(runs.size(), 5u);
      ASSERT_EQ(score_converged.size(), 5u) << score.out;
      int converged_runs = 0;
      for (const auto& row : runs) {
        EXPECT_EQ(row.at("converged"), score_converged.at(row.at("seed"))) << "seed " << row.at("seed");
        converged_runs += row.at("converged") == "true";
      }
      // The group's number: score's minutes, or no olympic mean where score says invalid.
      const auto summary = csv_rows(out / "summary.csv");
      ASSERT_EQ(summary.size(), 1u);
      EXPECT_EQ(summary[0].at("converged_runs"), std::to_string(converged_runs));
      const size_t at = score.out.find("score: ");
      ASSERT_NE(at, std::string::npos) << score.out;
      const std::string verdict = score.out.substr(at + 7, score.out.find('\n', at) - at - 7);
      if (verdict.rfind("invalid", 0) == 0) {
        EXPECT_EQ(summary[0].at("olympic_mean_minutes"), "") << verdict;
      } else {
        ASSERT_NE(summary[0].at("olympic_mean_minutes"), "") << verdict;
        EXPECT_NEAR(std::stod(summary[0].at("olympic_mean_minutes")), std::stod(verdict), 0.0005) << verdict;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 6);
  // The modes differ where they should: own runs failing a rule count as not converged by default,
  // published ones only under --strict, neither under --no-check.
  EXPECT_THAT(run("score own").out, HasSubstr("score: invalid"));
  EXPECT_THAT(run("score published").out, HasSubstr("score: 12.000 minutes"));
  EXPECT_THAT(run("score published --strict").out, HasSubstr("score: invalid"));
  EXPECT_THAT(run("score own --no-check").out, HasSubstr("score: 12.000 minutes"));
}

// Published logs of every round, as MLPerf published them (tests/data/mlperf-rounds, README.md there):
// the time from the run's own log, the compliance verdict beside it, benchmarks outside the six skipped.
TEST_F(ScoreCli, PublishedRoundsReadAsPublished) {
  const std::string rounds = test_paths::source_dir() + "/tests/data/mlperf-rounds/";
  // v0.5 Google TPU SSD: run_stop {"success": "true"}, a string; v0.5 has no SSD rules: not checked.
  Outcome outcome = run("score " + rounds + "v0.5/v0.5.0/google/cloud_v3.8/ssd-tpuv3-8");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("score: 74.880 minutes"));
  EXPECT_THAT(outcome.out, HasSubstr("compliance: 5 of 5 logs not checked: ruleset 0.5.0 has no rules for benchmark 'ssd'"));
  EXPECT_THAT(outcome.out, Not(HasSubstr("converged  no")));
  // v0.5 NVIDIA ResNet-50 (MXNet, DGX-1): a bare run_stop, judged by the last accuracy against eval_target.
  outcome = run("score " + rounds + "v0.5/v0.5.0/nvidia/submission/results/dgx1_ngc18.11_mxnet");
  EXPECT_THAT(outcome.out, HasSubstr("score: 134.559 minutes"));
  // v0.6 Google Mask R-CNN logs name their benchmark "mask": scored as maskrcnn, in the system folder;
  // today's 0.6.0 rules fail every v0.6 Google log, which keeps its time by default and fails --strict.
  outcome = run("score " + rounds + "v0.6/Google");
  EXPECT_THAT(outcome.out, HasSubstr("Google/results/tpu-v3-32 / maskrcnn"));
  EXPECT_THAT(outcome.out, HasSubstr("score: 107.034 minutes"));
  EXPECT_THAT(outcome.out, HasSubstr("score: 42.186 minutes"));
  outcome = run("score " + rounds + "v0.6/Google --strict");
  EXPECT_THAT(outcome.out, Not(HasSubstr("score: 107.034 minutes")));
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: 5 of 5 runs did not converge"));
  // v0.7: minigo, bert and dlrm are listed as skipped, with the reason.
  outcome = run("score " + rounds + "v0.7/Google");
  EXPECT_THAT(outcome.out, HasSubstr("skipped: minigo: reinforcement learning (Go)"));
  EXPECT_THAT(outcome.out, HasSubstr("skipped: dlrm: "));
  EXPECT_THAT(outcome.out, HasSubstr("score: 30.769 minutes"));
  // Alibaba's v0.7 logs write time_s where the format has time_ms: 236.785 s, as Alibaba's README
  // beside them gives it (236.78); the official checker stops on them, --strict counts that.
  outcome = run("score " + rounds + "v0.7/Alibaba");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("3.946"));
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: too few runs: 1; an MLPerf resnet score takes exactly 5 runs"));
  outcome = run("score " + rounds + "v0.7/Alibaba --strict");
  EXPECT_THAT(outcome.out, HasSubstr("the official checker stops on them (KeyError 'time_ms')"));
  // Alibaba's v0.6 format of its own: 24.417 minutes by its one-second clock, converged at 75.98%.
  outcome = run("score " + rounds + "v0.6/Alibaba");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("24.417"));
  EXPECT_THAT(outcome.out, HasSubstr("score: invalid: too few runs: 1; an MLPerf resnet score takes exactly 5 runs"));
}

}  // namespace
}  // namespace mlh
