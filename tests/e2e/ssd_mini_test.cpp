// Checks of the SSD mini runs that ctest makes first (tests/e2e/CMakeLists.txt): the quarter-width
// SSD300 at 128x128 on the generated COCO-format set reaches mAP 0.45 on one rank; two ranks and one
// rank on one core train the same first epochs on the same global batch; `mlharness score` and
// `report` take the mini's run beside NVIDIA's published v0.7 SSD logs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "compliance/log_reader.h"
#include "tests/e2e/cli_fixture.h"
#include "tests/e2e/run_logs.h"
#include "tests/e2e/written_detections.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

TEST(SsdMini, ReachesItsTargetMapOnOneRank) {
  const std::vector<LogRecord> records = records_of("ssd_np1_seed1");
  const LogRecord* stop = find(records, "run_stop");
  ASSERT_NE(stop, nullptr);
  EXPECT_EQ(stop->metadata["status"], "success");
  const std::vector<double> maps = eval_accuracies(records);
  ASSERT_FALSE(maps.empty());
  EXPECT_GE(maps.back(), 0.45);
  EXPECT_LT(maps.back(), 1.0);
  EXPECT_EQ(find(records, "submission_benchmark")->value, "ssd");
  // Evaluations at the listed epochs only: 4, 6, 8, ...
  EXPECT_EQ(find(records, "eval_accuracy")->metadata["epoch_num"], 4);
}

// The same global batch cut into the same two gradient shards: rank by rank or both on one rank,
// each shard's forward and backward is the same computation, and the shards' gradients are summed
// in the same order, so the training losses agree to the last bit. The evaluation may differ a
// little: one rank's BatchNorm running statistics see both shards in turn, two ranks' are averaged.
TEST(SsdMini, TwoRanksMatchOneRank) {
  const std::vector<LogRecord> one = records_of("ssd_np1_one_core_seed1");
  const std::vector<LogRecord> two = records_of("ssd_np2_seed1");
  const std::vector<double> one_losses = train_losses(one), two_losses = train_losses(two);
  ASSERT_EQ(one_losses.size(), 2u);
  ASSERT_EQ(two_losses.size(), 2u);
  EXPECT_EQ(one_losses, two_losses);
  const std::vector<double> one_maps = eval_accuracies(one), two_maps = eval_accuracies(two);
  ASSERT_EQ(one_maps.size(), 1u);
  ASSERT_EQ(two_maps.size(), 1u);
  EXPECT_NEAR(one_maps[0], two_maps[0], 0.03);
  EXPECT_EQ(count_of(two, "run_start"), 1) << "only rank 0 logs";
  EXPECT_THAT(log_of("ssd_np2_seed1").string(), HasSubstr("/2x"));
}

// What `--set write_detections=true` writes is what the run judged: each epoch's detections file,
// scored again by `mlharness coco-eval` against the generated set's val annotations, gives that
// epoch's logged mAP exactly; on one rank to the target, and on two ranks (each rank's detections
// gathered on rank 0) after two epochs.
class SsdDetections : public WrittenDetectionsCheck {};

TEST_F(SsdDetections, WrittenDetectionsScoreAsLogged) {
  int files_scored = 0;
  for (const std::string run_name : {"ssd_np1_seed1", "ssd_np2_seed1"}) {
    SCOPED_TRACE(run_name);
    const fs::path annotations = val_annotations_of(run_name);
    for (const WrittenDetections& written : written_detections_of(run_name)) {
      const double ap = coco_eval_ap(annotations, written.boxes, "bbox");
      EXPECT_EQ(ap, written.logged.get<double>()) << "epoch " << written.epoch;
      EXPECT_GT(ap, 0.0) << "epoch " << written.epoch << ": a score of 0 would prove nothing";
      ++files_scored;
    }
  }
  EXPECT_GE(files_scored, 2);
}

class SsdBesidePublished : public Cli {};

TEST_F(SsdBesidePublished, ScoreAndReportShowTheMiniBesideNvidiasV07Logs) {
  const fs::path published = fs::path(test_paths::source_dir()) / "tests" / "data" / "mlperf-results" / "v0.7" / "NVIDIA";
  const fs::path ours = log_of("ssd_np1_seed1").parent_path().parent_path();  // results/<platform>
  const Outcome score = run("score '" + ours.string() + "' '" + published.string() + "' --benchmark ssd --no-check");
  EXPECT_EQ(score.exit_code, 0) << score.err;
  EXPECT_THAT(score.out, HasSubstr("dgx1_ngc20.06_pytorch / ssd"));
  EXPECT_THAT(score.out, HasSubstr(ours.filename().string()));
  const Outcome report = run("report '" + ours.string() + "' '" + published.string() + "' --out out");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  const std::string summary = read_file(dir_ / "out" / "summary.csv");
  EXPECT_THAT(summary, HasSubstr("ssd,"));
  EXPECT_THAT(summary, HasSubstr("DGX"));
}

}  // namespace
}  // namespace mlh
