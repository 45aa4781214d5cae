// `mlharness bench`'s runner and reporters on a counting step: how many steps each part runs, the
// latency percentiles an inference bench adds, and where they show.
#include "harness/bench.h"
#include "harness/device.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mlh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(NearestRankPercentile, IsTheSmallestValueWithThatShareAtOrBelowIt) {
  EXPECT_EQ(nearest_rank_percentile({5, 1, 4, 2, 3}, 50), 3);
  EXPECT_EQ(nearest_rank_percentile({5, 1, 4, 2, 3}, 90), 5);
  EXPECT_EQ(nearest_rank_percentile({5, 1, 4, 2, 3}, 20), 1);
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  EXPECT_EQ(nearest_rank_percentile(hundred, 50), 50);
  EXPECT_EQ(nearest_rank_percentile(hundred, 90), 90);
  EXPECT_EQ(nearest_rank_percentile(hundred, 99), 99);
  EXPECT_EQ(nearest_rank_percentile(hundred, 100), 100);
  EXPECT_TRUE(std::isnan(nearest_rank_percentile({}, 50)));
}

class CountingStep final : public BenchStep {
 public:
  explicit CountingStep(int64_t* runs) : runs_(runs) {}
  void run() override { ++*runs_; }
  int64_t samples_per_step() const override { return 8; }

 private:
  int64_t* runs_;
};

class CountingWorkload final : public Workload {
 public:
  int64_t runs = 0;
  std::string benchmark() const override { return "counting"; }
  void bind_settings(ConfigMap&) override {}
  WorkloadInfo init(const RunContext&) override { return {}; }
  TrainStats train_epoch(int64_t, Progress&) override { return {}; }
  int64_t steps_per_epoch() const override { return 1; }
  Quality evaluate(int64_t) override { return {}; }
  std::unique_ptr<BenchStep> make_bench_step(const BenchSpec&, const World&) override {
    return std::make_unique<CountingStep>(&runs);
  }
};

BenchOptions options_for(BenchMode mode) {
  BenchOptions options;
  options.batch_sizes = {8};
  options.mode = mode;
  options.warmup_steps = 2;
  options.timed_steps = 5;
  options.repeats = 3;
  return options;
}

TEST(Bench, InferenceAddsLatencyPercentilesOfSingleBatchesAfterTheTimedWindows) {
  CountingWorkload workload;
  const BenchReport report =
      run_bench(workload, "counting", World::single_process(), options_for(BenchMode::kInference), "box");
  EXPECT_EQ(workload.runs, 2 + 3 * 5 + 3 * 5);  // warm-up, windows, then one latency per window step
  ASSERT_EQ(report.cases.size(), 1u);
  const BenchCaseResult& c = report.cases.front();
  ASSERT_TRUE(c.latency_p50_ms && c.latency_p90_ms && c.latency_p99_ms);
  EXPECT_LE(*c.latency_p50_ms, *c.latency_p90_ms);
  EXPECT_LE(*c.latency_p90_ms, *c.latency_p99_ms);
  const std::string table = format_bench_table(report);
  EXPECT_THAT(table, HasSubstr("p50 ms"));
  EXPECT_THAT(table, HasSubstr("p99 ms"));
  const nlohmann::json json = bench_report_to_json(report);
  EXPECT_TRUE(json["cases"][0]["rank0_latency_ms"].contains("p90"));
}

TEST(Bench, TrainingHasNoLatencyColumns) {
  CountingWorkload workload;
  const BenchReport report =
      run_bench(workload, "counting", World::single_process(), options_for(BenchMode::kTrain), "box");
  EXPECT_EQ(workload.runs, 2 + 3 * 5);
  EXPECT_FALSE(report.cases.front().latency_p50_ms.has_value());
  EXPECT_THAT(format_bench_table(report), Not(HasSubstr("p50 ms")));
  EXPECT_FALSE(bench_report_to_json(report)["cases"][0].contains("rank0_latency_ms"));
}

TEST(Bench, APrecisionSlowOnThisDeviceIsStarredWithItsNoteAndItsRateAgainstFp32) {
  BenchReport report;
  report.workload = "resnet50";
  report.platform = "1xAMD-EPYC";
  report.device_model = "AMD EPYC";
  BenchCaseResult fp32;
  fp32.batch_size = 32;
  fp32.precision = fp32.precision_used = "fp32";
  fp32.mode = "train";
  fp32.memory_format = "nchw";
  fp32.device = "cpu";
  fp32.unit = "images";
  fp32.total_per_second = fp32.per_rank_per_second = 80;
  BenchCaseResult amp = fp32;
  amp.precision = "amp";
  amp.precision_used = "amp (bf16 autocast)";
  amp.precision_note = "amp on the CPU is bf16 autocast";
  amp.total_per_second = amp.per_rank_per_second = 20;
  report.cases = {fp32, amp};
  const std::string table = format_bench_table(report);
  EXPECT_THAT(table, HasSubstr("amp*"));
  EXPECT_THAT(table, Not(HasSubstr("fp32*")));
  EXPECT_THAT(table, HasSubstr("* amp: amp on the CPU is bf16 autocast"));
  EXPECT_THAT(table, HasSubstr("* train amp at batch 32: 0.25x the fp32 rate here"));
  EXPECT_EQ(bench_report_to_json(report)["cases"][1]["precision_note"], "amp on the CPU is bf16 autocast");
  report.cases = {fp32};
  EXPECT_THAT(format_bench_table(report), Not(HasSubstr("*")));
}

// On a GPU each case carries its host syncs per step (a column, and a JSON key); fp32 that ran on
// TF32 says tf32 in the table and in precision_used.
TEST(Bench, GpuCasesShowTheirHostSyncsPerStepAndTf32) {
  BenchReport report;
  report.workload = "resnet50";
  report.platform = "1xNVIDIA-H100";
  report.device_model = "NVIDIA H100";
  BenchCaseResult tf32;
  tf32.batch_size = 256;
  tf32.precision = "fp32";
  tf32.precision_used = "tf32 (fp32 with TF32 tensor-core matrix products and convolutions)";
  tf32.mode = "train";
  tf32.memory_format = "channels_last";
  tf32.device = "cuda:0";
  tf32.unit = "images";
  tf32.total_per_second = tf32.per_rank_per_second = 1200;
  tf32.host_syncs_per_step = 0.0;
  BenchCaseResult strict = tf32;
  strict.precision = "fp32-strict";
  strict.precision_used = "fp32";
  strict.host_syncs_per_step = 1.5;
  report.cases = {tf32, strict};
  const std::string table = format_bench_table(report);
  EXPECT_THAT(table, HasSubstr("syncs/step"));
  EXPECT_THAT(table, HasSubstr("tf32 "));
  EXPECT_THAT(table, HasSubstr("fp32-strict"));
  EXPECT_THAT(table, HasSubstr("1.50"));
  EXPECT_THAT(table, HasSubstr("fp32 = tf32 (fp32 with TF32"));
  const nlohmann::json json = bench_report_to_json(report);
  EXPECT_EQ(json["cases"][0]["host_syncs_per_step"], 0.0);
  EXPECT_EQ(json["cases"][1]["host_syncs_per_step"], 1.5);
  EXPECT_EQ(json["cases"][0]["precision_used"], tf32.precision_used);
  // A CPU case cannot count: no column, no key.
  BenchCaseResult cpu = tf32;
  cpu.device = "cpu";
  cpu.precision_used = "fp32";
  cpu.host_syncs_per_step.reset();
  report.cases = {cpu};
  EXPECT_THAT(format_bench_table(report), Not(HasSubstr("syncs/step")));
  EXPECT_FALSE(bench_report_to_json(report)["cases"][0].contains("host_syncs_per_step"));
}

// On the CPU there is no device to wait for and no sync debug mode: the count is left out.
TEST(Bench, CpuCasesCarryNoSyncCount) {
  EXPECT_FALSE(HostSyncCounter::can_count(torch::kCPU));
  CountingWorkload workload;
  BenchOptions options = options_for(BenchMode::kTrain);
  options.precisions = {"fp32", "fp32-strict"};
  const BenchReport report = run_bench(workload, "counting", World::single_process(), options, "box");
  ASSERT_EQ(report.cases.size(), 2u);
  for (const BenchCaseResult& c : report.cases) EXPECT_FALSE(c.host_syncs_per_step.has_value());
}

}  // namespace
}  // namespace mlh
