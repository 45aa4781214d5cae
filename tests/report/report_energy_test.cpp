// The report's energy columns and chart (RunResult energy_joules, mean_power_watts,
// samples_per_joule from NVML), present only when some run measured energy; CPU runs' counts named
// as ranks; no throughput derived from a log whose train_samples is not the benchmark's epoch; and
// the platform and GPU count that `report` and `score` both take from a submission's systems JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/log_reader.h"
#include "compliance/run_summary.h"
#include "report/report.h"
#include "report/report_data.h"
#include "report/report_tables.h"
#include "tests/report/report_test_logs.h"
#include "tests/test_paths.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using report_test::LogSpec;
using report_test::make_log;
using report_test::make_record;
using report_test::write_text;
using ::testing::HasSubstr;
using ::testing::Not;

struct Energy {
  double joules = 0;
  double watts = 0;
  double per_joule = 0;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class ReportEnergy : public ::testing::Test {
 protected:
  void SetUp() override {
    // The test's name, not the suite's: the folder's name stays clear of the words the tests look for.
    dir_ = fs::path(::testing::TempDir()) /
           ("report_nvml_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // Seeds 1..n of `platform` ("1xName") under dir_/<Name>/<platform>/gnmt, each with a RunResult
  // record on `device`; energy[i] is added to run i when given.
  void write_runs(const std::string& platform, const std::string& device, int runs, const std::vector<Energy>& energy,
                  int devices = 1) {
    for (int i = 0; i < runs; ++i) {
      LogSpec spec;
      spec.platform = platform;
      spec.seed = i + 1;
      spec.minutes = 10 + i;
      const fs::path folder = dir_ / platform_without_count(platform, nullptr) / platform / "gnmt";
      write_text(folder / ("result_" + std::to_string(i) + ".txt"), make_log(spec));
      nlohmann::json record = nlohmann::json::parse(make_record(platform, devices, 100, i + 1));
      record["device"] = device;
      if (static_cast<size_t>(i) < energy.size()) {
        record["energy_joules"] = energy[i].joules;
        record["mean_power_watts"] = energy[i].watts;
        record["samples_per_joule"] = energy[i].per_joule;
        record["energy_source"] = "nvml";
      } else {
        record["energy_source"] = "no NVML: libnvidia-ml.so.1 not found";
      }
      write_text(folder / ("result_" + std::to_string(i) + ".json"), record.dump(1));
    }
  }
  ReportOutcome report() { return make_report({{dir_.string()}, (dir_ / "out").string(), ""}); }
  std::string out(const std::string& name) { return read_text(dir_ / "out" / name); }
  static const GroupSummary& group(const ReportTables& tables, const std::string& platform) {
    for (const GroupSummary& g : tables.groups)
      if (g.platform == platform) return g;
    ADD_FAILURE() << "no group of " << platform;
    return tables.groups.at(0);
  }

  fs::path dir_;
};

TEST_F(ReportEnergy, MeansPerGroupInTheTablesCsvAndAChart) {
  write_runs("1xFast-GPU", "cuda", 3, {{3000, 200, 10}, {4000, 250, 12}, {5000, 300, 14}});
  write_runs("1xSlow-GPU", "cuda", 3, {{9000, 100, 2}, {9000, 100, 3}, {12000, 130, 4}});
  const ReportOutcome outcome = report();
  ASSERT_TRUE(outcome.tables.any_energy);
  const GroupSummary& fast = group(outcome.tables, "Fast-GPU");
  const GroupSummary& slow = group(outcome.tables, "Slow-GPU");
  EXPECT_EQ(fast.energy_runs, 3);
  EXPECT_EQ(fast.device, "cuda");
  EXPECT_NEAR(*fast.energy_joules_mean, 4000, 1e-9);
  EXPECT_NEAR(*fast.mean_power_watts, 250, 1e-9);
  EXPECT_NEAR(*fast.samples_per_joule, 12, 1e-9);
  EXPECT_NEAR(*slow.energy_joules_mean, 10000, 1e-9);
  EXPECT_NEAR(*slow.mean_power_watts, 110, 1e-9);
  EXPECT_NEAR(*slow.samples_per_joule, 3, 1e-9);

  const std::string markdown = out("report.md");
  EXPECT_THAT(markdown, HasSubstr("| Energy per run (kJ) | Mean power (W) | Samples per joule |"));
  EXPECT_THAT(markdown, HasSubstr("| 4 | 250 | 12 |\n"));   // Fast-GPU: 4,000 J
  EXPECT_THAT(markdown, HasSubstr("| 10 | 110 | 3 |\n"));   // Slow-GPU: 10,000 J
  EXPECT_THAT(markdown, HasSubstr("charts/samples_per_joule_gnmt.svg"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out/charts/samples_per_joule_gnmt.svg"));
  EXPECT_THAT(out("report.html"), HasSubstr("gnmt: samples per joule (perf per watt)"));
  EXPECT_THAT(out("report.html"), HasSubstr("<th class=\"num\">Samples per joule</th>"));

  const std::string summary = out("summary.csv");
  EXPECT_THAT(summary, HasSubstr(",energy_runs,energy_joules_mean,mean_power_watts,samples_per_joule\n"));
  EXPECT_THAT(summary, HasSubstr(",3,4000,250,12\n"));
  EXPECT_THAT(summary, HasSubstr(",3,10000,110,3\n"));
  const std::string runs = out("runs.csv");
  EXPECT_THAT(runs, HasSubstr(",energy_joules,mean_power_watts,samples_per_joule,energy_source\n"));
  EXPECT_THAT(runs, HasSubstr(",12000,130,4,nvml\n"));
}

TEST_F(ReportEnergy, WithoutMeasurementsThereAreNoColumnsAndNoChart) {
  write_runs("1xFast-GPU", "cuda", 3, {});
  write_runs("1xSlow-GPU", "cuda", 3, {});
  const ReportOutcome outcome = report();
  EXPECT_FALSE(outcome.tables.any_energy);
  for (const char* file : {"report.md", "report.html", "summary.csv", "runs.csv", "comparison.csv"}) {
    const std::string text = out(file);
    for (const char* word : {"Energy", "energy_joules", "Mean power", "mean_power", "joule", "perf per watt"})
      EXPECT_THAT(text, Not(HasSubstr(word))) << file;
  }
  for (const auto& chart : fs::directory_iterator(dir_ / "out/charts"))
    EXPECT_THAT(chart.path().filename().string(), Not(HasSubstr("joule")));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out/charts/throughput_gnmt.svg"));
}

TEST_F(ReportEnergy, AGpuGroupWithoutNvmlIsBlankAndNamedUnderTheChart) {
  write_runs("1xFast-GPU", "cuda", 3, {{3000, 200, 10}, {4000, 250, 12}, {5000, 300, 14}});
  write_runs("1xSlow-GPU", "cuda", 3, {});
  const ReportOutcome outcome = report();
  const GroupSummary& slow = group(outcome.tables, "Slow-GPU");
  EXPECT_EQ(slow.energy_runs, 0);
  EXPECT_FALSE(slow.samples_per_joule);
  EXPECT_EQ(outcome.collected.runs.back().energy_source, "no NVML: libnvidia-ml.so.1 not found");
  EXPECT_THAT(out("report.md"), HasSubstr("| 100 | 100 |  |  |  |  |\n"));  // throughput, per GPU, scaling, energy
  EXPECT_THAT(out("summary.csv"), HasSubstr(",0,,,\n"));
  EXPECT_THAT(read_text(dir_ / "out/charts/samples_per_joule_gnmt.svg"), HasSubstr("No energy measurement: Slow-GPU 1 GPU"));
}

// A record with the CPU packages' energy (RAPL): the run's energy is GPU + CPU, and its source names both.
TEST_F(ReportEnergy, CpuPackagesEnergyAddsToTheGpusAndIsNamed) {
  write_runs("1xFast-GPU", "cuda", 1, {{3000, 400, 10}});
  const fs::path record_path = dir_ / "Fast-GPU/1xFast-GPU/gnmt/result_0.json";
  nlohmann::json record = nlohmann::json::parse(read_text(record_path));
  record["cpu_energy_joules"] = 1000.0;
  record["cpu_energy_source"] = "rapl: package-0 (DRAM not counted)";
  record["energy_measured"] = "gpu+cpu";
  write_text(record_path, record.dump(1));
  write_runs("2xTest-CPU", "cpu", 1, {}, 2);
  const fs::path cpu_path = dir_ / "Test-CPU/2xTest-CPU/gnmt/result_0.json";
  nlohmann::json cpu_record = nlohmann::json::parse(read_text(cpu_path));
  cpu_record["cpu_energy_joules"] = 500.0;
  cpu_record["samples_per_joule"] = 2.0;
  cpu_record["cpu_energy_source"] = "rapl: package-0, package-1 (DRAM not counted)";
  cpu_record["energy_measured"] = "cpu";
  write_text(cpu_path, cpu_record.dump(1));
  const ReportOutcome outcome = report();
  EXPECT_NEAR(*group(outcome.tables, "Fast-GPU").energy_joules_mean, 4000, 1e-9);
  EXPECT_NEAR(*group(outcome.tables, "Test-CPU").energy_joules_mean, 500, 1e-9);
  const std::string runs = out("runs.csv");
  EXPECT_THAT(runs, HasSubstr(",4000,400,10,nvml + rapl: package-0 (DRAM not counted)\n"));
  EXPECT_THAT(runs, HasSubstr(",500,,2,\"rapl: package-0, package-1 (DRAM not counted)\"\n"));
}

TEST_F(ReportEnergy, CpuRunsCountRanks) {
  write_runs("2xTest-CPU", "cpu", 3, {}, 2);
  const ReportOutcome outcome = report();
  EXPECT_EQ(outcome.tables.groups.at(0).device, "cpu");
  EXPECT_EQ(outcome.tables.groups.at(0).device_count, 2);
  EXPECT_THAT(out("report.md"), HasSubstr("| gnmt | Test-CPU | 2 CPU ranks |"));
  EXPECT_THAT(out("report.html"), HasSubstr("gnmt · Test-CPU · 2 CPU ranks"));
}

// ---- No throughput from a log whose train_samples is not the benchmark's epoch. ----

class EpochSize : public ReportEnergy {
 protected:
  RunRow one_run(const std::string& benchmark, int64_t train_samples, const std::string& data_source = "") {
    LogSpec spec;
    spec.benchmark = benchmark;
    spec.minutes = 1;
    spec.train_samples = train_samples;
    spec.data_source = data_source;
    write_text(dir_ / "Org/results/Box" / benchmark / "result_0.txt", make_log(spec));
    const CollectedRuns runs = collect_runs({dir_.string()});
    EXPECT_EQ(runs.runs.size(), 1u);
    issues_ = runs.issues;
    return runs.runs.at(0);
  }
  std::vector<InputIssue> issues_;
};

TEST_F(EpochSize, MaskRcnnLoggingFortyThousandImagesGetsNoThroughput) {
  const RunRow run = one_run("maskrcnn", 40000);  // v0.7 DGX A100's logs; COCO train2017 has 117,266
  EXPECT_FALSE(run.train_samples_per_second);
  EXPECT_EQ(run.throughput_source, ThroughputSource::kNone);
  EXPECT_THAT(run.throughput_withheld, HasSubstr("train_samples 40000 is not one epoch of maskrcnn (117,266 COCO"));
  ASSERT_EQ(issues_.size(), 1u);
  EXPECT_FALSE(issues_[0].skipped);
  EXPECT_EQ(issues_[0].reason, run.throughput_withheld);

  const ReportOutcome outcome = make_report({{dir_.string()}, (dir_ / "out").string(), ""});
  EXPECT_TRUE(outcome.tables.groups.at(0).throughput_withheld);
  EXPECT_FALSE(outcome.tables.groups.at(0).train_samples_per_second);
  const std::string markdown = out("report.md");
  EXPECT_THAT(markdown, HasSubstr("| ‡ | ‡ |"));  // throughput and per GPU: empty, with the footnote mark
  EXPECT_THAT(markdown, HasSubstr("- ‡ in this report: some logs' train_samples is not one epoch"));
  EXPECT_THAT(markdown, HasSubstr("is not one epoch of maskrcnn"));  // the warning under Skipped inputs
  EXPECT_THAT(out("summary.csv"), HasSubstr(",false,,,,true\n"));    // no rate, throughput_withheld true
}

TEST_F(EpochSize, TheRightCountsDeriveAThroughput) {
  const RunRow run = one_run("maskrcnn", 117266);  // two epochs in 60 s
  EXPECT_EQ(run.throughput_source, ThroughputSource::kDerivedFromLog);
  ASSERT_TRUE(run.train_samples_per_second);
  EXPECT_NEAR(*run.train_samples_per_second, 117266 * 2 / 60.0, 1e-6);
  EXPECT_EQ(run.throughput_withheld, "");
  EXPECT_TRUE(issues_.empty());
}

TEST_F(EpochSize, GnmtAcceptsEitherLengthFilter) {
  EXPECT_TRUE(one_run("gnmt", 3969024).train_samples_per_second);  // NVIDIA's v0.7 logs: 75 tokens
}

TEST_F(EpochSize, StandInDataAndRunResultRatesAreUntouched) {
  // A mini config's stand-in data is not the benchmark's dataset: its epoch is its own.
  EXPECT_TRUE(one_run("maskrcnn", 40000, "synthetic").train_samples_per_second);
  // Our own runs' rate comes from the RunResult record, whatever the log says.
  write_text(dir_ / "Org/results/Box/maskrcnn/result_0.json", make_record("1xBox", 1, 321, 1));
  const RunRow run = one_run("maskrcnn", 40000);
  EXPECT_EQ(run.throughput_source, ThroughputSource::kRunResult);
  EXPECT_NEAR(*run.train_samples_per_second, 321, 1e-9);
  EXPECT_EQ(run.throughput_withheld, "");
}

TEST(EpochSamples, TableOfTheMlperfDatasets) {
  EXPECT_EQ(mlperf_epoch_samples("resnet").at(0).min, 1281167);
  EXPECT_EQ(mlperf_epoch_samples("ssd").at(0).min, 117266);
  EXPECT_EQ(mlperf_epoch_samples("maskrcnn").at(0).min, 117266);
  EXPECT_EQ(mlperf_epoch_samples("transformer").at(0).min, 4590101);
  EXPECT_EQ(mlperf_epoch_samples("gnmt").at(0).min, 3498161);
  EXPECT_EQ(mlperf_epoch_samples("ncf").at(0).min, 19861770);
  EXPECT_TRUE(mlperf_epoch_samples("resnet (fashion_mnist data)").empty());
  EXPECT_TRUE(mlperf_epoch_samples("bert").empty());
}

// ---- Platform and GPU count from the systems JSON: one rule for `report` and `score`. ----

RunPlatform platform_of(const fs::path& log) { return identify_run_platform(summarize_run(read_log_file(log.string()))); }

TEST_F(ReportEnergy, SystemJsonCountsTheGpusOfASubmission) {
  // As MLPerf publishes: <org>/systems/<system>.json, <org>/results/<system>/<benchmark>/result_<i>.txt.
  LogSpec spec;
  spec.benchmark = "maskrcnn";
  spec.platform = "1xNVIDIA DGX A100";
  write_text(dir_ / "NVIDIA/results/dgxa100/maskrcnn/result_0.txt", make_log(spec));
  write_text(dir_ / "NVIDIA/systems/dgxa100.json",
             R"({"system_name": "dgxa100", "number_of_nodes": "1", "accelerators_per_node": "8",
                 "accelerator_model_name": "NVIDIA A100-SXM4-40GB"})");
  const RunPlatform where = platform_of(dir_ / "NVIDIA/results/dgxa100/maskrcnn/result_0.txt");
  EXPECT_EQ(where.platform, "NVIDIA DGX A100");
  EXPECT_EQ(where.device_count, 8);
  EXPECT_EQ(where.device_count_source, "system JSON");
  EXPECT_EQ(where.device_model, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(where.label(), "8xNVIDIA DGX A100");
  // The report's row says the same.
  const CollectedRuns runs = collect_runs({dir_.string()});
  ASSERT_EQ(runs.runs.size(), 1u);
  EXPECT_EQ(runs.runs[0].platform, where.platform);
  EXPECT_EQ(runs.runs[0].device_count, where.device_count);
}

TEST_F(ReportEnergy, WithoutASystemJsonTheLabelCountsOrTheRecordCounts) {
  LogSpec spec;
  spec.platform = "4xTest-GPU";
  write_text(dir_ / "a/gnmt/result_0.txt", make_log(spec));
  EXPECT_EQ(platform_of(dir_ / "a/gnmt/result_0.txt").label(), "4xTest-GPU");
  write_text(dir_ / "a/gnmt/result_0.json", make_record("4xTest-GPU", 2, 100, 1));
  const RunPlatform where = platform_of(dir_ / "a/gnmt/result_0.txt");
  EXPECT_EQ(where.label(), "2xTest-GPU");
  EXPECT_EQ(where.device_count_source, "RunResult device_count");
}

const fs::path kPublished = fs::path(test_paths::source_dir()) / "tests" / "data" / "mlperf-results";

TEST(PublishedPlatforms, NamedByTheirSystemsJson) {
  // The v0.7 NVIDIA logs say "1xNVIDIA DGX-1" for a system of 8 GPUs.
  EXPECT_EQ(platform_of(kPublished / "v0.7/NVIDIA/results/dgx1_ngc20.06_pytorch/ssd/result_0.txt").label(),
            "8xNVIDIA DGX-1");
  EXPECT_EQ(platform_of(kPublished / "v0.7/DellEMC/results/C4140/transformer/result_0.txt").label(), "4xC4140");
  EXPECT_EQ(platform_of(kPublished / "v0.7/DellEMC/results/DSS8440/ssd/result_0.txt").label(), "8xDSS8440");
}

}  // namespace
}  // namespace mlh::report
