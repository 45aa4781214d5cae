#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/user_error.h"
#include "report/report.h"
#include "report/report_data.h"
#include "report/report_tables.h"
#include "report/report_writers.h"
#include "tests/report/report_test_logs.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using report_test::LogSpec;
using report_test::make_log;
using report_test::make_record;
using report_test::write_text;
using ::testing::HasSubstr;

class ReportData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("report_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // Writes result_<i>.txt for each spec into dir_/<folder>.
  void write_logs(const std::string& folder, const std::vector<LogSpec>& specs) {
    for (size_t i = 0; i < specs.size(); ++i)
      write_text(dir_ / folder / ("result_" + std::to_string(i) + ".txt"), make_log(specs[i]));
  }
  static std::vector<LogSpec> seeds_with_minutes(const std::vector<double>& minutes, const std::string& platform) {
    std::vector<LogSpec> specs;
    for (size_t i = 0; i < minutes.size(); ++i) {
      LogSpec spec;
      spec.platform = platform;
      spec.seed = static_cast<int64_t>(i + 1);
      spec.minutes = minutes[i];
      specs.push_back(spec);
    }
    return specs;
  }
  const InputIssue* issue_for(const CollectedRuns& runs, const std::string& file) {
    for (const InputIssue& issue : runs.issues)
      if (issue.path.find(file) != std::string::npos) return &issue;
    return nullptr;
  }
  fs::path dir_;
};

TEST_F(ReportData, OlympicMeanDropsTheFastestAndTheSlowest) {
  write_logs("a/gnmt", seeds_with_minutes({10, 11, 12, 13, 30}, "1xTest-GPU"));
  const CollectedRuns runs = collect_runs({dir_.string()});
  ASSERT_EQ(runs.runs.size(), 5u);
  const ReportTables tables = build_report_tables(runs.runs, "");
  ASSERT_EQ(tables.groups.size(), 1u);
  const GroupSummary& g = tables.groups[0];
  EXPECT_EQ(g.platform, "Test-GPU");
  EXPECT_EQ(g.device_count, 1);  // from the "1x" of the label
  ASSERT_TRUE(g.olympic_mean_minutes);
  EXPECT_NEAR(*g.olympic_mean_minutes, 12.0, 1e-9);
  EXPECT_EQ(g.converged_runs, 5);
}

TEST_F(ReportData, ANonConvergedRunIsTheDroppedSlowest) {
  std::vector<LogSpec> specs = seeds_with_minutes({10, 11, 12, 13, 5}, "1xTest-GPU");
  specs[4].status = "aborted";
  write_logs("a/gnmt", specs);
  const ReportTables tables = build_report_tables(collect_runs({dir_.string()}).runs, "");
  const GroupSummary& g = tables.groups.at(0);
  EXPECT_EQ(g.converged_runs, 4);
  ASSERT_TRUE(g.olympic_mean_minutes);
  EXPECT_NEAR(*g.olympic_mean_minutes, 12.0, 1e-9);  // 10 dropped as fastest, the aborted run as slowest
}

TEST_F(ReportData, TwoNonConvergedRunsMakeTheOlympicMeanInvalid) {
  std::vector<LogSpec> specs = seeds_with_minutes({10, 11, 12, 13, 14}, "1xTest-GPU");
  specs[0].status = "aborted";
  specs[1].evals = {{1, 0.1}, {2, 0.2}};  // "success", but below the target 0.24
  write_logs("a/gnmt", specs);
  const GroupSummary g = build_report_tables(collect_runs({dir_.string()}).runs, "").groups.at(0);
  EXPECT_FALSE(g.olympic_mean_minutes);
  EXPECT_THAT(g.olympic_invalid_reason, HasSubstr("2 runs did not converge"));
  ASSERT_TRUE(g.mean_converged_minutes);
  EXPECT_NEAR(*g.mean_converged_minutes, 13.0, 1e-9);
}

TEST_F(ReportData, TooFewRunsForAnOlympicMeanSaySo) {
  write_logs("a/gnmt", seeds_with_minutes({10, 11}, "1xTest-GPU"));
  const GroupSummary g = build_report_tables(collect_runs({dir_.string()}).runs, "").groups.at(0);
  EXPECT_FALSE(g.olympic_mean_minutes);
  EXPECT_EQ(g.olympic_invalid_reason, "needs at least 3 runs, has 2");
}

TEST_F(ReportData, EpochsToConvergePerSeedWithMeanAndSd) {
  std::vector<LogSpec> specs = seeds_with_minutes({10, 10, 10, 10, 10}, "1xTest-GPU");
  const int epochs[] = {3, 3, 4, 4, 5};
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i].evals.clear();
    for (int e = 1; e <= epochs[i]; ++e) specs[i].evals.push_back({e, e == epochs[i] ? 0.25 : 0.1});
  }
  write_logs("a/gnmt", specs);
  const CollectedRuns runs = collect_runs({dir_.string()});
  const GroupSummary g = build_report_tables(runs.runs, "").groups.at(0);
  ASSERT_TRUE(g.epochs_mean && g.epochs_sd);
  EXPECT_NEAR(*g.epochs_mean, 3.8, 1e-9);
  EXPECT_NEAR(*g.epochs_sd, std::sqrt(0.7), 1e-9);
  // Seed order, each seed's value.
  for (size_t i = 0; i < g.run_indices.size(); ++i) {
    const RunRow& run = runs.runs[g.run_indices[i]];
    EXPECT_EQ(*run.seed, static_cast<int64_t>(i + 1));
    EXPECT_EQ(*run.epochs_to_converge, epochs[i]);
  }
}

TEST_F(ReportData, ThroughputAndScalingEfficiencyFromRunResults) {
  // One GPU at 100 samples/s, four at 320: 80 per GPU, 80% scaling.
  for (int seed = 1; seed <= 3; ++seed) {
    LogSpec one;
    one.platform = "1xTest-GPU";
    one.seed = seed;
    write_text(dir_ / "np1/1xTest-GPU/gnmt" / ("result_" + std::to_string(seed) + ".txt"), make_log(one));
    write_text(dir_ / "np1/1xTest-GPU/gnmt" / ("result_" + std::to_string(seed) + ".json"), make_record("1xTest-GPU", 1, 100, seed));
    LogSpec four = one;
    four.platform = "4xTest-GPU";
    write_text(dir_ / "np4/4xTest-GPU/gnmt" / ("result_" + std::to_string(seed) + ".txt"), make_log(four));
    write_text(dir_ / "np4/4xTest-GPU/gnmt" / ("result_" + std::to_string(seed) + ".json"), make_record("4xTest-GPU", 4, 320, seed));
  }
  const CollectedRuns runs = collect_runs({(dir_ / "np1").string(), (dir_ / "np4").string()});
  ASSERT_EQ(runs.runs.size(), 6u);
  EXPECT_EQ(runs.runs[0].throughput_source, ThroughputSource::kRunResult);
  EXPECT_EQ(runs.runs[0].quality_name, "bleu/100");
  EXPECT_EQ(runs.runs[0].device_count_source, "RunResult device_count");
  const ReportTables tables = build_report_tables(runs.runs, "");
  ASSERT_EQ(tables.groups.size(), 2u);
  const GroupSummary& one = tables.groups[0];
  const GroupSummary& four = tables.groups[1];
  EXPECT_EQ(one.device_count, 1);
  EXPECT_EQ(four.device_count, 4);
  EXPECT_EQ(one.platform, four.platform);
  EXPECT_NEAR(*four.train_samples_per_second, 320, 1e-9);
  EXPECT_NEAR(*four.train_samples_per_second_per_device, 80, 1e-9);
  ASSERT_TRUE(four.scaling_efficiency);
  EXPECT_NEAR(*four.scaling_efficiency, 0.8, 1e-9);
  EXPECT_EQ(four.scaling_reference_devices, 1);
  EXPECT_NEAR(*one.scaling_efficiency, 1.0, 1e-9);
  // One platform at two device counts: the larger count against the smallest, as two systems.
  ASSERT_EQ(tables.comparisons.size(), 1u);
  EXPECT_EQ(tables.comparisons[0].device_count, 4);
  EXPECT_EQ(tables.comparisons[0].baseline_device_count, 1);
  EXPECT_EQ(tables.comparisons[0].baseline_platform, "Test-GPU");
  EXPECT_NEAR(*tables.comparisons[0].throughput_ratio, 3.2, 1e-9);
  EXPECT_NEAR(*tables.comparisons[0].speedup, 1.0, 1e-9);  // the same made-up times
  // --baseline with a count picks that system as the reference.
  const ReportTables from_four = build_report_tables(runs.runs, "4xTest-GPU");
  ASSERT_EQ(from_four.comparisons.size(), 1u);
  EXPECT_EQ(from_four.comparisons[0].device_count, 1);
  EXPECT_EQ(from_four.comparisons[0].baseline_device_count, 4);
  EXPECT_NEAR(*from_four.comparisons[0].throughput_ratio, 100.0 / 320, 1e-9);
  ASSERT_EQ(from_four.baselines.size(), 1u);
  EXPECT_EQ(from_four.baselines[0].device_count, 4);
  // A count the baseline platform never ran on: said, not guessed.
  const ReportTables from_two = build_report_tables(runs.runs, "2xTest-GPU");
  EXPECT_TRUE(from_two.comparisons.empty());
  ASSERT_EQ(from_two.notes.size(), 1u);
  EXPECT_THAT(from_two.notes[0], HasSubstr("has no run on 2 devices"));
}

TEST_F(ReportData, OnePlatformAtOneDeviceCountHasNothingToCompare) {
  for (int seed = 1; seed <= 3; ++seed) {
    LogSpec one;
    one.platform = "1xTest-GPU";
    one.seed = seed;
    write_text(dir_ / "1xTest-GPU/gnmt" / ("result_" + std::to_string(seed) + ".txt"), make_log(one));
  }
  const ReportTables tables = build_report_tables(collect_runs({dir_.string()}).runs, "");
  EXPECT_TRUE(tables.comparisons.empty());
  ASSERT_EQ(tables.notes.size(), 1u);
  EXPECT_THAT(tables.notes[0], HasSubstr("at one device count ran it; nothing to compare"));
}

TEST_F(ReportData, DerivedThroughputFromTrainSamples) {
  LogSpec spec;
  spec.minutes = 1;
  spec.train_samples = 3000;  // two epochs of 3000 samples in 60 s
  spec.data_source = "synthetic";  // a mini config's corpus: not WMT16, whose epoch 3000 could not be
  write_logs("a/gnmt", {spec});
  const CollectedRuns runs = collect_runs({dir_.string()});
  ASSERT_EQ(runs.runs.size(), 1u);
  EXPECT_EQ(runs.runs[0].throughput_source, ThroughputSource::kDerivedFromLog);
  EXPECT_NEAR(*runs.runs[0].train_samples_per_second, 100.0, 1e-9);
  EXPECT_TRUE(build_report_tables(runs.runs, "").groups[0].throughput_derived);
}

TEST_F(ReportData, PlatformsAgainstTheSlowestOrTheGivenBaseline) {
  write_logs("slow/gnmt", seeds_with_minutes({15, 15, 15}, "1xSlow-GPU"));
  write_logs("fast/gnmt", seeds_with_minutes({5, 5, 5}, "1xFast-GPU"));
  const CollectedRuns runs = collect_runs({dir_.string()});
  ReportTables tables = build_report_tables(runs.runs, "");
  ASSERT_EQ(tables.baselines.size(), 1u);
  EXPECT_EQ(tables.baselines[0].platform, "Slow-GPU");
  EXPECT_FALSE(tables.baselines[0].chosen_by_user);
  ASSERT_EQ(tables.comparisons.size(), 1u);
  EXPECT_EQ(tables.comparisons[0].platform, "Fast-GPU");
  EXPECT_NEAR(*tables.comparisons[0].speedup, 3.0, 1e-9);

  tables = build_report_tables(runs.runs, "1xFast-GPU");  // the "1x" is ignored
  EXPECT_EQ(tables.baselines.at(0).platform, "Fast-GPU");
  EXPECT_TRUE(tables.baselines[0].chosen_by_user);
  EXPECT_NEAR(*tables.comparisons.at(0).speedup, 1.0 / 3.0, 1e-9);
  EXPECT_THROW(build_report_tables(runs.runs, "Quantum-GPU"), UserError);
}

TEST_F(ReportData, RunsOnStandInDataAreNeverComparedWithTheRealBenchmark) {
  write_logs("published/gnmt", seeds_with_minutes({15, 15, 15}, "1xSlow-GPU"));
  std::vector<LogSpec> mini = seeds_with_minutes({5, 5, 5}, "1xFast-GPU");
  for (LogSpec& spec : mini) spec.data_source = "synthetic";
  write_logs("mini/gnmt", mini);
  const CollectedRuns runs = collect_runs({dir_.string()});
  const ReportTables tables = build_report_tables(runs.runs, "");
  ASSERT_EQ(tables.groups.size(), 2u);
  EXPECT_EQ(tables.groups[0].benchmark, "gnmt");
  EXPECT_EQ(tables.groups[1].benchmark, "gnmt (synthetic data)");
  EXPECT_TRUE(tables.comparisons.empty());
}

TEST_F(ReportData, ASecondRunOfTheSameSeedIsSkipped) {
  std::vector<LogSpec> specs = seeds_with_minutes({10, 11, 12}, "1xTest-GPU");
  specs[2].seed = 1;
  write_logs("a/gnmt", specs);
  const CollectedRuns runs = collect_runs({dir_.string()});
  EXPECT_EQ(runs.runs.size(), 2u);
  const InputIssue* issue = issue_for(runs, "result_2.txt");
  ASSERT_NE(issue, nullptr);
  EXPECT_TRUE(issue->skipped);
  EXPECT_THAT(issue->reason, HasSubstr("seed 1 again"));
  EXPECT_THAT(issue->reason, HasSubstr("result_0.txt"));
}

TEST_F(ReportData, BadInputsAreNamedAndTheRestIsUsed) {
  write_logs("a/gnmt", seeds_with_minutes({10, 11, 12}, "1xTest-GPU"));
  LogSpec no_stop;
  no_stop.seed = 4;
  no_stop.run_stop = false;
  write_text(dir_ / "a/gnmt/result_3.txt", make_log(no_stop));
  LogSpec no_start;
  no_start.seed = 5;
  no_start.run_start = false;
  write_text(dir_ / "a/gnmt/result_4.txt", make_log(no_start));
  LogSpec cut;
  cut.seed = 6;
  std::string cut_text = make_log(cut);
  cut_text.resize(cut_text.size() - 40);  // the run_stop line cut off mid-way, no newline
  write_text(dir_ / "a/gnmt/result_5.txt", cut_text);
  write_text(dir_ / "a/gnmt/result_6.txt", "this is a shopping list, not a log\n");
  LogSpec other;
  other.benchmark = "ssd";
  other.seed = 8;
  write_text(dir_ / "a/gnmt/result_7.txt", make_log(other));
  fs::create_directories(dir_ / "empty");

  const CollectedRuns runs = collect_runs({dir_.string(), (dir_ / "empty").string()});
  EXPECT_EQ(runs.runs.size(), 3u);
  EXPECT_EQ(runs.logs_found, 8);
  ASSERT_NE(issue_for(runs, "result_3.txt"), nullptr);
  EXPECT_THAT(issue_for(runs, "result_3.txt")->reason, HasSubstr("no run_stop"));
  EXPECT_THAT(issue_for(runs, "result_4.txt")->reason, HasSubstr("no run_start"));
  ASSERT_NE(issue_for(runs, "result_5.txt"), nullptr);
  EXPECT_THAT(issue_for(runs, "result_5.txt")->reason, HasSubstr("last line is cut off"));
  EXPECT_THAT(issue_for(runs, "result_6.txt")->reason, HasSubstr("not an MLPerf log"));
  EXPECT_THAT(issue_for(runs, "result_7.txt")->reason, HasSubstr("a ssd log in a folder of gnmt logs"));
  const InputIssue* empty = issue_for(runs, "empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_THAT(empty->reason, HasSubstr("no result_<i>.txt logs"));
  for (const InputIssue& issue : runs.issues) EXPECT_TRUE(issue.skipped) << issue.path << ": " << issue.reason;
}

// One folder is one system, as `score` groups it: a log naming another platform than the rest of its
// folder (SIAT's v0.7 ResNet-50, where one of five logs says "Ascens 910") joins their group, warned.
TEST_F(ReportData, ALogNamingAnotherPlatformThanItsFolderJoinsTheFoldersGroup) {
  for (int i = 0; i < 5; ++i) {
    LogSpec spec;
    spec.seed = i + 1;
    spec.minutes = 10 + i;
    spec.platform = i == 3 ? "1xTest-GPV" : "1xTest-GPU";
    write_text(dir_ / "sys/gnmt" / ("result_" + std::to_string(i) + ".txt"), make_log(spec));
  }
  const CollectedRuns runs = collect_runs({dir_.string()});
  ASSERT_EQ(runs.runs.size(), 5u);
  for (const RunRow& row : runs.runs) EXPECT_EQ(row.platform, "Test-GPU") << row.log_path;
  const InputIssue* issue = issue_for(runs, "result_3.txt");
  ASSERT_NE(issue, nullptr);
  EXPECT_FALSE(issue->skipped);
  EXPECT_THAT(issue->reason, HasSubstr("names platform 'Test-GPV' (1 accelerator) where the other logs of its folder say 'Test-GPU' (1 GPU)"));
  EXPECT_EQ(build_report_tables(runs.runs, "").groups.size(), 1u);
}

TEST_F(ReportData, MissingFolderAndNoUsableRunAreUserErrors) {
  EXPECT_THROW(collect_runs({(dir_ / "nowhere").string()}), UserError);
  write_text(dir_ / "bad/result_0.txt", "not a log\n");
  ReportRequest request{{(dir_ / "bad").string()}, (dir_ / "out").string(), ""};
  try {
    make_report(request);
    FAIL() << "no usable run must be a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no usable run"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

TEST_F(ReportData, AnOutFolderHoldingSourceCodeIsRefusedBeforeAnythingIsWritten) {
  // README's examples run from the clone root, where report/ is the report's own source folder.
  write_logs("runs/gnmt", seeds_with_minutes({5, 6, 7}, "1xFast-GPU"));
  for (const char* source : {"report.cpp", "CMakeLists.txt", "setup.sh", "make_goldens.py", ".git"}) {
    const fs::path out = dir_ / (std::string("sources_") + source);
    write_text(out / source, "// source\n");
    try {
      make_report({{(dir_ / "runs").string()}, out.string(), ""});
      ADD_FAILURE() << source << ": a folder holding sources must be refused";
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr("holds source code ('" + std::string(source) + "')"));
      EXPECT_THAT(e.what(), HasSubstr("--out results/report"));
    }
    EXPECT_FALSE(fs::exists(out / "report.md")) << source;
    EXPECT_FALSE(fs::exists(out / "charts")) << source;
  }
  // A folder holding an earlier report (or other results) is written over.
  const fs::path earlier = dir_ / "earlier";
  write_text(earlier / "report.md", "old\n");
  write_text(earlier / "notes.txt", "mine\n");
  make_report({{(dir_ / "runs").string()}, earlier.string(), ""});
  EXPECT_TRUE(fs::is_regular_file(earlier / "report.html"));
}

TEST_F(ReportData, SystemJsonGivesPlatformAndGpuCount) {
  // The submission layout: <org>/results/<system>/<benchmark>/ and <org>/systems/<system>.json.
  std::vector<LogSpec> specs = seeds_with_minutes({10, 11, 12}, "1xSUBMISSION_PLATFORM_PLACEHOLDER");
  write_logs("Org/results/BigBox/gnmt", specs);
  write_text(dir_ / "Org/systems/BigBox.json",
             R"({"system_name": "BigBox", "number of nodes": "2", "accelerators_per_node": "4",
                 "accelerator_model_name": "Test V100"})");
  const CollectedRuns runs = collect_runs({dir_.string()});
  ASSERT_EQ(runs.runs.size(), 3u);
  EXPECT_EQ(runs.runs[0].platform, "BigBox");
  EXPECT_EQ(runs.runs[0].platform_source, "system JSON system_name");
  EXPECT_EQ(runs.runs[0].device_count, 8);
  EXPECT_EQ(runs.runs[0].device_count_source, "system JSON");
  EXPECT_EQ(runs.runs[0].device_model, "Test V100");
}

TEST(PlatformLabel, LeadingCountIsStripped) {
  int count = 0;
  EXPECT_EQ(platform_without_count("4xAMD-EPYC", &count), "AMD-EPYC");
  EXPECT_EQ(count, 4);
  EXPECT_EQ(platform_without_count("1xNVIDIA DGX-1", &count), "NVIDIA DGX-1");
  count = 0;
  EXPECT_EQ(platform_without_count("DSS8440", &count), "DSS8440");
  EXPECT_EQ(count, 0);
}

TEST_F(ReportData, ReportFilesAndCsvTables) {
  write_logs("slow/gnmt", seeds_with_minutes({15, 16, 17}, "1xSlow, \"old\" GPU"));
  write_logs("fast/gnmt", seeds_with_minutes({5, 6, 7}, "1xFast-GPU"));
  const ReportOutcome outcome = make_report({{dir_.string()}, (dir_ / "out").string(), ""});
  for (const char* name : {"report.md", "report.html", "runs.csv", "summary.csv", "comparison.csv"})
    EXPECT_TRUE(fs::is_regular_file(dir_ / "out" / name)) << name;
  const auto lines = [&](const char* name) {
    std::ifstream in(dir_ / "out" / name);
    std::vector<std::string> result;
    for (std::string line; std::getline(in, line);) result.push_back(line);
    return result;
  };
  EXPECT_EQ(lines("runs.csv").size(), 7u);     // header + 6 runs
  EXPECT_EQ(lines("summary.csv").size(), 3u);  // header + 2 groups
  const auto comparison = lines("comparison.csv");
  ASSERT_EQ(comparison.size(), 2u);
  EXPECT_THAT(comparison[1], HasSubstr("\"Slow, \"\"old\"\" GPU\""));  // quoted per RFC 4180
  EXPECT_THAT(comparison[1], HasSubstr(",slowest,"));
  std::ifstream md(dir_ / "out/report.md");
  const std::string markdown((std::istreambuf_iterator<char>(md)), {});
  EXPECT_THAT(markdown, HasSubstr("| gnmt | Fast-GPU | 1 GPU |"));
  EXPECT_THAT(markdown, HasSubstr("charts/time_to_train_gnmt.svg"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out/charts/time_to_train_gnmt.svg"));
  EXPECT_THAT(markdown, HasSubstr("## Skipped inputs"));
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

}  // namespace
}  // namespace mlh::report
