// A quality of several numbers in the report: Mask R-CNN's eval_accuracy {"BBOX": .., "SEGM": ..},
// box AP and mask AP, each shown and each judged against its own target (0.377, 0.339), in every
// output; a run that reaches only one of them did not converge.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "report/report.h"
#include "report/report_data.h"
#include "report/report_tables.h"
#include "tests/report/report_test_logs.h"
#include "tests/test_paths.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using report_test::LogSpec;
using report_test::make_log;
using report_test::write_text;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kRounds = fs::path(test_paths::source_dir()) / "tests" / "data" / "mlperf-rounds";

json ap(double box, double mask) { return {{"BBOX", box}, {"SEGM", mask}}; }

class MaskRcnnReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("maskrcnn_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    // Three seeds, logged as NVIDIA logs Mask R-CNN: no eval_target, every run_stop "success". Seed 3
    // reaches box AP 0.3790 but mask AP only 0.3301.
    for (int seed = 1; seed <= 3; ++seed) {
      LogSpec spec;
      spec.benchmark = "maskrcnn";
      spec.platform = "8xTest-GPU";
      spec.seed = seed;
      spec.minutes = 100 + seed;
      spec.target = std::nullopt;
      spec.evals = {{1, ap(0.301, 0.282)}, {2, ap(0.35, 0.32)}, {3, seed == 3 ? ap(0.379, 0.3301) : ap(0.3793, 0.3417)}};
      write_text(dir_ / "Org/results/box/maskrcnn" / ("result_" + std::to_string(seed - 1) + ".txt"), make_log(spec));
    }
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / "out" / name);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  fs::path dir_;
};

TEST_F(MaskRcnnReport, RunsKeepBothNumbersOfEveryEvalAndTheirTargets) {
  const CollectedRuns collected = collect_runs({dir_.string()});
  ASSERT_EQ(collected.runs.size(), 3u);
  const RunRow& run = collected.runs[0];
  ASSERT_EQ(run.quality_members.size(), 2u);
  EXPECT_EQ(run.quality_members[0].name, "BBOX");
  EXPECT_EQ(run.quality_members[0].value, 0.377);
  EXPECT_EQ(run.quality_members[1].name, "SEGM");
  EXPECT_EQ(run.quality_members[1].value, 0.339);
  EXPECT_EQ(run.quality_name, "BBOX");
  ASSERT_EQ(run.evals.size(), 3u);
  EXPECT_EQ(run.evals[0].epoch, 1);
  EXPECT_EQ(run.evals[0].value, 0.301);  // the first member, as charts of one number read it
  ASSERT_EQ(run.evals[0].members.size(), 2u);
  EXPECT_EQ(run.evals[0].members[0], 0.301);
  EXPECT_EQ(run.evals[0].members[1], 0.282);
  EXPECT_EQ(run.evals[2].members[1], 0.3417);
  EXPECT_TRUE(run.converged);
}

TEST_F(MaskRcnnReport, ARunReachingOnlyTheBoxTargetDidNotConverge) {
  const CollectedRuns collected = collect_runs({dir_.string()});
  ASSERT_EQ(collected.runs.size(), 3u);
  EXPECT_TRUE(collected.runs[1].converged);
  EXPECT_FALSE(collected.runs[2].converged) << "box AP 0.379 reached 0.377, mask AP 0.3301 did not reach 0.339";
  const ReportTables tables = build_report_tables(collected.runs, "");
  ASSERT_EQ(tables.groups.size(), 1u);
  EXPECT_EQ(tables.groups[0].converged_runs, 2);
  ASSERT_TRUE(tables.groups[0].olympic_mean_minutes);
  EXPECT_NEAR(*tables.groups[0].olympic_mean_minutes, 102.0, 1e-9);  // 101 fastest, the failed run slowest
}

TEST_F(MaskRcnnReport, EveryOutputShowsBothNumbersAndBothTargets) {
  make_report({{dir_.string()}, (dir_ / "out").string(), ""});

  const std::string markdown = read("report.md");
  EXPECT_THAT(markdown, HasSubstr("| maskrcnn | Test-GPU | 8 GPUs |  |  | 3 | 2 | 3.00 ± 0.00 | 102.000 |"));  // summary
  EXPECT_THAT(markdown, HasSubstr("Quality of several numbers (BBOX, SEGM): a run reached its target only when every "
                                  "member reached its own."));
  EXPECT_THAT(markdown, HasSubstr("| Benchmark | Platform | Devices | Run | Last eval (epoch) | Quality | Targets | Converged |"));
  EXPECT_THAT(markdown, HasSubstr("| maskrcnn | Test-GPU | 8 GPUs | seed 1 | 3 | BBOX 0.3793, SEGM 0.3417 | "
                                  "BBOX ≥ 0.377 ✓, SEGM ≥ 0.339 ✓ | yes |"));
  EXPECT_THAT(markdown, HasSubstr("| maskrcnn | Test-GPU | 8 GPUs | seed 3 | 3 | BBOX 0.3790, SEGM 0.3301 | "
                                  "BBOX ≥ 0.377 ✓, SEGM ≥ 0.339 ✗ | no |"));
  EXPECT_THAT(markdown, HasSubstr("| Benchmark | Platform | Devices | Run | Epoch | BBOX | SEGM |"));
  EXPECT_THAT(markdown, HasSubstr("| maskrcnn | Test-GPU | 8 GPUs | seed 2 | 1 | 0.3010 | 0.2820 |"));
  EXPECT_THAT(markdown, HasSubstr("| maskrcnn | Test-GPU | 8 GPUs | seed 3 | 3 | 0.3790 | 0.3301 |"));
  EXPECT_THAT(markdown, HasSubstr("seed 1: 3, seed 2: 3, seed 3: not converged"));

  const std::string html = read("report.html");
  EXPECT_THAT(html, HasSubstr("<td>BBOX 0.3790, SEGM 0.3301</td><td>BBOX ≥ 0.377 ✓, SEGM ≥ 0.339 ✗</td><td>no</td>"));
  EXPECT_THAT(html, HasSubstr("<th class=\"num\">BBOX</th><th class=\"num\">SEGM</th>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"num\">0.3793</td><td class=\"num\">0.3417</td>"));
  // The quality chart, inline in the page and as its own file: a line per seed and member, a target
  // line per member.
  const std::string svg = read("charts/quality_maskrcnn_Test-GPU_8gpu.svg");
  for (const std::string& part : {std::string(svg), html}) {
    EXPECT_THAT(part, HasSubstr("data-series=\"seed 1 BBOX\""));
    EXPECT_THAT(part, HasSubstr("data-series=\"seed 3 SEGM\""));
    EXPECT_THAT(part, HasSubstr(">BBOX target 0.377</text>"));
    EXPECT_THAT(part, HasSubstr(">SEGM target 0.339</text>"));
  }

  const std::string runs = read("runs.csv");
  EXPECT_THAT(runs, HasSubstr(",quality_name,quality_target,final_quality,"));  // the header of every report
  EXPECT_THAT(runs, HasSubstr(",true,success,3,3,101,"));
  EXPECT_THAT(runs, HasSubstr(",BBOX;SEGM,0.377;0.339,0.3793;0.3417,:::MLLOG,"));
  EXPECT_THAT(runs, HasSubstr(",false,success,,3,103,"));
  EXPECT_THAT(runs, HasSubstr(",BBOX;SEGM,0.377;0.339,0.379;0.3301,:::MLLOG,"));
  EXPECT_THAT(read("summary.csv"), HasSubstr("maskrcnn,Test-GPU,8,gpu,,,3,2,3;3;NA,"));
}

TEST_F(MaskRcnnReport, ARunResultRecordGivesTheMembersItsTargetsName) {
  // mlharness's record of the seed 1 run: quality_targets and each eval's quality by member.
  const json record = {{"benchmark", "maskrcnn"},
                       {"quality_name", "BBOX"},
                       {"quality_target", 0.377},
                       {"quality_targets", {{{"name", "BBOX"}, {"value", 0.377}}, {{"name", "SEGM"}, {"value", 0.339}}}},
                       {"evals", {{{"epoch", "1"}, {"quality", ap(0.31, 0.29)}}, {{"epoch", "2"}, {"quality", ap(0.38, 0.35)}}}}};
  write_text(dir_ / "Org/results/box/maskrcnn/result_0.json", record.dump());
  const CollectedRuns collected = collect_runs({dir_.string()});
  const RunRow& run = collected.runs.at(0);
  ASSERT_EQ(run.quality_members.size(), 2u);
  EXPECT_EQ(run.quality_members[1].name, "SEGM");
  ASSERT_EQ(run.evals.size(), 2u);
  EXPECT_EQ(run.evals[1].value, 0.38);
  EXPECT_EQ(run.evals[1].members.at(1), 0.35);
}

TEST_F(MaskRcnnReport, ReportsOfOneNumberHaveNoMemberTables) {
  LogSpec spec;  // gnmt, BLEU/100
  write_text(dir_ / "gnmt_only/gnmt/result_0.txt", make_log(spec));
  make_report({{(dir_ / "gnmt_only").string()}, (dir_ / "out").string(), ""});
  EXPECT_THAT(read("report.md"), Not(HasSubstr("Quality of several numbers")));
  EXPECT_THAT(read("report.md"), Not(HasSubstr("member by member")));
  EXPECT_THAT(read("runs.csv"), HasSubstr(",eval_accuracy,0.24,0.3,:::MLLOG,"));
}

// Google's v0.6 Mask R-CNN logs (tests/data/mlperf-rounds) give [box AP, mask AP]: named by position.
TEST(PublishedMaskRcnn, GooglesV06ArraysAreBoxAndMaskAp) {
  const CollectedRuns collected = collect_runs({(kRounds / "v0.6/Google/results/tpu-v3-32/mask").string()});
  ASSERT_EQ(collected.runs.size(), 5u);
  for (const RunRow& run : collected.runs) {
    EXPECT_EQ(run.benchmark, "maskrcnn");
    ASSERT_EQ(run.quality_members.size(), 2u) << run.log_path;
    EXPECT_EQ(run.quality_members[0].name, "BBOX");
    EXPECT_EQ(run.quality_members[1].name, "SEGM");
    EXPECT_TRUE(run.converged) << run.log_path;  // every one reached both (expected.json)
  }
  const RunRow& last = collected.runs[4];  // result_4.txt
  ASSERT_FALSE(last.evals.empty());
  EXPECT_EQ(last.evals.back().epoch, 14);
  EXPECT_NEAR(*last.evals.back().members.at(0), 0.3793198764324188, 1e-12);
  EXPECT_NEAR(*last.evals.back().members.at(1), 0.3416789174079895, 1e-12);
}

}  // namespace
}  // namespace mlh::report
