// The report on published MLPerf results: the sample in tests/data/mlperf-results (three log formats,
// the submission layout, systems JSON; README.md there says where each file comes from).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "report/report_data.h"
#include "report/report_tables.h"
#include "tests/test_paths.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;

const fs::path kPublished = fs::path(test_paths::source_dir()) / "tests" / "data" / "mlperf-results";

const GroupSummary* group(const ReportTables& tables, const std::string& benchmark, const std::string& platform) {
  for (const GroupSummary& g : tables.groups)
    if (g.benchmark == benchmark && g.platform == platform) return &g;
  return nullptr;
}

TEST(PublishedResults, V07OlympicMeansPlatformsAndGpuCounts) {
  const CollectedRuns runs = collect_runs({(kPublished / "v0.7").string()});
  for (const InputIssue& issue : runs.issues) EXPECT_FALSE(issue.skipped) << issue.path << ": " << issue.reason;
  const ReportTables tables = build_report_tables(runs.runs, "");
  EXPECT_EQ(tables.groups.size(), 3u);
  // Olympic means: the official result summarizer (3 decimals) or spec/performance.md §1a (1 decimal).
  struct Expected {
    const char* benchmark;
    const char* platform;
    int gpus;  // GPUs by the systems JSON's accelerator model
    double minutes;
    double half_unit;
  };
  for (const Expected& e : {Expected{"ssd", "NVIDIA DGX-1", 8, 20.690, 0.0005}, Expected{"ssd", "DSS8440", 8, 25.365, 0.0005},
                            Expected{"transformer", "C4140", 4, 35.4, 0.05}}) {
    const GroupSummary* g = group(tables, e.benchmark, e.platform);
    ASSERT_NE(g, nullptr) << e.benchmark << " on " << e.platform;
    EXPECT_EQ(g->device_count, e.gpus) << e.benchmark << " on " << e.platform;
    EXPECT_EQ(g->device_kind, DeviceKind::kGpu) << e.benchmark << " on " << e.platform;
    ASSERT_TRUE(g->olympic_mean_minutes) << g->olympic_invalid_reason;
    EXPECT_NEAR(*g->olympic_mean_minutes, e.minutes, e.half_unit) << e.benchmark << " on " << e.platform;
  }
  // C4140 logs name a placeholder platform: the systems JSON names it, and its GPU model.
  const GroupSummary* c4140 = group(tables, "transformer", "C4140");
  ASSERT_NE(c4140, nullptr);
  EXPECT_EQ(c4140->device_model, "Nvidia Tesla V100-SXM2-32GB");
  EXPECT_EQ(runs.runs[c4140->run_indices[0]].platform_source, "system JSON system_name");
  EXPECT_EQ(runs.runs[c4140->run_indices[0]].device_count_source, "system JSON");
  // Throughput is derived from train_samples (117266 images) x epochs run / time to train (eval time
  // included). Each log has 51 epoch_start lines (epoch 51 had begun when the evaluation after epoch 50
  // reached the target): 117266 x 51 / 20.65-20.76 min, 4802-4828 images/s by run, mean 4816.49.
  const GroupSummary* ssd = group(tables, "ssd", "NVIDIA DGX-1");
  ASSERT_TRUE(ssd->train_samples_per_second);
  EXPECT_TRUE(ssd->throughput_derived);
  EXPECT_NEAR(*ssd->train_samples_per_second, 4816.49, 0.05);
}

TEST(PublishedResults, V06GpuCountFromTheSubmissionEntry) {
  const CollectedRuns runs = collect_runs({(kPublished / "v0.6").string()});
  const ReportTables tables = build_report_tables(runs.runs, "");
  const GroupSummary* transformer = group(tables, "transformer", "DGX-1 with V100");
  ASSERT_NE(transformer, nullptr);
  EXPECT_EQ(transformer->device_count, 8);
  EXPECT_EQ(transformer->device_kind, DeviceKind::kGpu);  // the submission_entry's accelerator: Tesla V100-SXM2-16GB
  EXPECT_EQ(runs.runs[transformer->run_indices[0]].device_count_source, "log submission_entry");
  EXPECT_EQ(transformer->run_indices.size(), 10u);
  ASSERT_TRUE(transformer->olympic_mean_minutes);
  EXPECT_NEAR(*transformer->olympic_mean_minutes, 20.3, 0.05);  // spec/performance.md §1a: 20.3 (rounded)
  // v0.6 transformer logs its BLEU as a string: still a quality curve.
  EXPECT_EQ(runs.runs[transformer->run_indices[0]].evals.size(), 3u);
}

// NCF v0.5, 6 of the 100 runs (result_0-5): result_2 stops with {"success": false}. Six runs make no
// MLPerf score, so the report gives what `mlharness score` prints for them, the olympic mean of the
// runs present by NCF's rule, which scores converged runs only: 0.4650 min from run_start/run_stop in
// the logs (the README there; counting the failed run as the slowest would give 0.4753).
TEST(PublishedResults, V05NcfSampleGivesScoresMeanOfTheConvergedRunsPresent) {
  const CollectedRuns runs = collect_runs({(kPublished / "v0.5").string()});
  const ReportTables tables = build_report_tables(runs.runs, "");
  ASSERT_EQ(tables.groups.size(), 1u);
  const GroupSummary& ncf = tables.groups[0];
  EXPECT_EQ(ncf.benchmark, "ncf");
  EXPECT_EQ(ncf.platform, "dgx1_ngc18.11_pytorch");  // no platform logged, no systems JSON: the folder
  EXPECT_EQ(ncf.run_indices.size(), 6u);
  EXPECT_EQ(ncf.converged_runs, 5);
  ASSERT_TRUE(ncf.olympic_mean_minutes) << ncf.olympic_invalid_reason;
  EXPECT_NEAR(*ncf.olympic_mean_minutes, 0.4650, 0.00005);
}

}  // namespace
}  // namespace mlh::report
