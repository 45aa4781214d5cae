// The report on the published MLPerf results in ../shared/mlperf-results (three log formats, the
// submission layout, systems JSON). Users do not have that folder: the tests skip without it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "report/report_data.h"
#include "report/report_tables.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;

const fs::path kPublished = fs::path(MLH_SOURCE_DIR) / ".." / "shared" / "mlperf-results";

class PublishedResults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kPublished)) GTEST_SKIP() << kPublished << " is absent: no published logs to read";
  }
  static const GroupSummary* group(const ReportTables& tables, const std::string& benchmark, const std::string& platform) {
    for (const GroupSummary& g : tables.groups)
      if (g.benchmark == benchmark && g.platform == platform) return &g;
    return nullptr;
  }
};

TEST_F(PublishedResults, V07OlympicMeansPlatformsAndGpuCounts) {
  const CollectedRuns runs = collect_runs({(kPublished / "v0.7").string()});
  for (const InputIssue& issue : runs.issues) EXPECT_FALSE(issue.skipped) << issue.path << ": " << issue.reason;
  const ReportTables tables = build_report_tables(runs.runs, "");
  // Olympic means checked against the official result summarizer (mlperf-results/README.md).
  struct Expected {
    const char* benchmark;
    const char* platform;
    int gpus;  // GPUs by the systems JSON's accelerator model
    double minutes;
  };
  for (const Expected& e : {Expected{"gnmt", "NVIDIA DGX-1", 8, 18.502}, Expected{"transformer", "NVIDIA DGX-1", 8, 18.812},
                            Expected{"ssd", "NVIDIA DGX-1", 8, 20.690}, Expected{"resnet", "C4140", 4, 154.042},
                            Expected{"ssd", "DSS8440", 8, 25.365}}) {
    const GroupSummary* g = group(tables, e.benchmark, e.platform);
    ASSERT_NE(g, nullptr) << e.benchmark << " on " << e.platform;
    EXPECT_EQ(g->device_count, e.gpus) << e.benchmark << " on " << e.platform;
    EXPECT_EQ(g->device_kind, DeviceKind::kGpu) << e.benchmark << " on " << e.platform;
    ASSERT_TRUE(g->olympic_mean_minutes) << g->olympic_invalid_reason;
    EXPECT_NEAR(*g->olympic_mean_minutes, e.minutes, 0.0005) << e.benchmark << " on " << e.platform;
  }
  // C4140 logs name a placeholder platform: the systems JSON names it, and its GPU model.
  const GroupSummary* c4140 = group(tables, "resnet", "C4140");
  EXPECT_EQ(c4140->device_model, "Nvidia Tesla V100-SXM2-32GB");
  EXPECT_EQ(runs.runs[c4140->run_indices[0]].platform_source, "system JSON system_name");
  EXPECT_EQ(runs.runs[c4140->run_indices[0]].device_count_source, "system JSON");
  // Throughput is derived from train_samples (eval time included).
  const GroupSummary* gnmt = group(tables, "gnmt", "NVIDIA DGX-1");
  ASSERT_TRUE(gnmt->train_samples_per_second);
  EXPECT_TRUE(gnmt->throughput_derived);
  EXPECT_GT(*gnmt->train_samples_per_second, 5000);
  EXPECT_LT(*gnmt->train_samples_per_second, 50000);
}

TEST_F(PublishedResults, V06GpuCountFromTheSubmissionEntry) {
  const CollectedRuns runs = collect_runs({(kPublished / "v0.6").string()});
  const ReportTables tables = build_report_tables(runs.runs, "");
  const GroupSummary* gnmt = group(tables, "gnmt", "DGX-1 with V100");
  ASSERT_NE(gnmt, nullptr);
  EXPECT_EQ(gnmt->device_count, 8);
  EXPECT_EQ(gnmt->device_kind, DeviceKind::kGpu);  // the submission_entry's accelerator: Tesla V100-SXM2-16GB
  EXPECT_EQ(runs.runs[gnmt->run_indices[0]].device_count_source, "log submission_entry");
  EXPECT_EQ(gnmt->run_indices.size(), 10u);
  ASSERT_TRUE(gnmt->olympic_mean_minutes);
  EXPECT_NEAR(*gnmt->olympic_mean_minutes, 20.6, 0.06);  // mlperf-results/README.md: 20.6 (rounded)
  // v0.6 transformer logs its BLEU as a string: still a quality curve.
  const GroupSummary* transformer = group(tables, "transformer", "DGX-1 with V100");
  ASSERT_NE(transformer, nullptr);
  EXPECT_FALSE(runs.runs[transformer->run_indices[0]].evals.empty());
}

// NCF v0.5: 14 of 100 runs never converge; the v0.5 rule scores the first 50 converged runs, so the
// report's time agrees with `mlharness score` (0.472 min; compliance/score.h).
TEST_F(PublishedResults, V05NcfScoresTheFirstFiftyConvergedRuns) {
  const CollectedRuns runs = collect_runs({(kPublished / "v0.5").string()});
  const ReportTables tables = build_report_tables(runs.runs, "");
  ASSERT_EQ(tables.groups.size(), 1u);
  const GroupSummary& ncf = tables.groups[0];
  EXPECT_EQ(ncf.benchmark, "ncf");
  EXPECT_EQ(ncf.platform, "dgx1_ngc18.11_pytorch");  // no platform logged, no systems JSON: the folder
  EXPECT_EQ(ncf.run_indices.size(), 100u);
  EXPECT_EQ(ncf.converged_runs, 86);  // 14 runs stop with {"success": false}
  ASSERT_TRUE(ncf.olympic_mean_minutes);
  EXPECT_NEAR(*ncf.olympic_mean_minutes, 0.472, 0.0005);
}

}  // namespace
}  // namespace mlh::report
