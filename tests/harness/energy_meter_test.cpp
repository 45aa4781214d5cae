// EnergyMeter without a GPU or without NVML: unavailable, with the reason the run record carries.
// The measurement itself is a `cuda` test (tests/cuda). CpuEnergyMeter (RAPL) on fake powercap trees:
// wrap-around, subzones and other domains skipped, missing and unreadable counters named, the record.
#include "harness/energy_meter.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mlh {
namespace {

using ::testing::HasSubstr;

TEST(EnergyMeter, OnTheCpuItIsUnavailableAndSaysWhy) {
  EnergyMeter meter{torch::Device(torch::kCPU)};
  EXPECT_FALSE(meter.available());
  EXPECT_EQ(meter.source(), "the run is on the CPU (NVML measures GPUs)");
  meter.start();
  meter.stop();
  EXPECT_EQ(meter.joules(), 0.0);
  EXPECT_EQ(meter.samples(), 0);
}

TEST(EnergyMeter, WithoutTheNvmlLibraryItIsUnavailableAndNamesIt) {
  EnergyMeter meter(torch::Device(torch::kCUDA, 0), 0.1, "libnvidia-ml-not-here.so.1");
  EXPECT_FALSE(meter.available());
  EXPECT_THAT(meter.source(), HasSubstr("no NVML: cannot load libnvidia-ml-not-here.so.1"));
  meter.start();
  meter.stop();
  EXPECT_EQ(meter.joules(), 0.0);
}

}  // namespace
}  // namespace mlh

// ---- CpuEnergyMeter on a fake powercap tree (a temp folder in the layout of /sys/class/powercap). ----

namespace mlh {
namespace {

namespace fs = std::filesystem;

class CpuEnergy : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("powercap_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text << "\n";
  }
  // A zone with its name, counter and range.
  void zone(const std::string& folder, const std::string& name, uint64_t energy_uj, uint64_t max_uj) {
    write(folder + "/name", name);
    write(folder + "/energy_uj", std::to_string(energy_uj));
    write(folder + "/max_energy_range_uj", std::to_string(max_uj));
  }
  void counter(const std::string& folder, uint64_t energy_uj) { write(folder + "/energy_uj", std::to_string(energy_uj)); }
  std::string root() const { return root_.string(); }

  fs::path root_;
};

TEST_F(CpuEnergy, SumsThePackagesOverAnIntervalAndSkipsSubzonesPsysAndMmio) {
  zone("intel-rapl:0", "package-0", 1'000'000, 262'143'328'850);
  zone("intel-rapl:1", "package-1", 5'000'000, 262'143'328'850);
  zone("intel-rapl:0/intel-rapl:0:0", "core", 0, 262'143'328'850);  // inside package-0's count
  zone("intel-rapl:0:2", "dram", 0, 262'143'328'850);                // a subzone, as a sibling path
  zone("intel-rapl:2", "psys", 0, 262'143'328'850);                  // the platform
  zone("intel-rapl-mmio:0", "package-0", 0, 262'143'328'850);        // package-0 again
  CpuEnergyMeter meter(true, root(), /*sample_period_s=*/0);
  ASSERT_TRUE(meter.available()) << meter.source();
  EXPECT_EQ(meter.source(), "rapl: package-0, package-1 (DRAM not counted)");
  meter.start();
  counter("intel-rapl:0", 31'000'000);       // +30 J
  counter("intel-rapl:1", 15'000'000);       // +10 J
  counter("intel-rapl:0:2", 99'000'000);     // not counted
  counter("intel-rapl-mmio:0", 99'000'000);  // not counted
  meter.sample();
  EXPECT_DOUBLE_EQ(meter.joules(), 40.0);
  counter("intel-rapl:0", 32'500'000);  // +1.5 J
  meter.stop();
  EXPECT_DOUBLE_EQ(meter.joules(), 41.5);
}

TEST_F(CpuEnergy, ACounterThatWrapsAddsWhatWasLeftToItsRangePlusTheNewValue) {
  zone("intel-rapl:0", "package-0", 990'000'000, 1'000'000'000);
  CpuEnergyMeter meter(true, root(), 0);
  meter.start();
  counter("intel-rapl:0", 4'000'000);  // 10 J to the range, then 4 J
  meter.sample();
  EXPECT_DOUBLE_EQ(meter.joules(), 14.0);
  counter("intel-rapl:0", 994'000'000);  // 990 J more, no wrap
  counter("intel-rapl:0", 994'000'000);
  meter.sample();
  counter("intel-rapl:0", 1'000'000);  // wraps a second time: 6 J + 1 J
  meter.stop();
  EXPECT_DOUBLE_EQ(meter.joules(), 14.0 + 990.0 + 7.0);
}

TEST_F(CpuEnergy, SamplesOnItsOwnThreadBetweenStartAndStop) {
  zone("intel-rapl:0", "package-0", 0, 1'000'000'000);
  CpuEnergyMeter meter(true, root(), 0.01);
  meter.start();
  counter("intel-rapl:0", 2'000'000);
  meter.stop();
  EXPECT_DOUBLE_EQ(meter.joules(), 2.0);
}

TEST_F(CpuEnergy, AMissingTreeIsNamed) {
  CpuEnergyMeter meter(true, root() + "/absent", 0);
  EXPECT_FALSE(meter.available());
  EXPECT_EQ(meter.source(), "cpu energy: not readable (" + root() + "/absent absent)");
  meter.start();
  meter.stop();
  EXPECT_EQ(meter.joules(), 0.0);
}

TEST_F(CpuEnergy, ATreeWithoutPackagesIsNamed) {
  zone("intel-rapl:0", "psys", 0, 1000);
  zone("intel-rapl:0:0", "core", 0, 1000);
  CpuEnergyMeter meter(true, root(), 0);
  EXPECT_FALSE(meter.available());
  EXPECT_EQ(meter.source(), "cpu energy: not readable (no RAPL package domain under " + root() + ")");
}

TEST_F(CpuEnergy, MissingAndUnreadableCountersAreNamed) {
  write("intel-rapl:0/name", "package-0");
  write("intel-rapl:0/energy_uj", "12");
  CpuEnergyMeter no_range(true, root(), 0);
  EXPECT_FALSE(no_range.available());
  EXPECT_EQ(no_range.source(),
            "cpu energy: not readable (" + root() + "/intel-rapl:0/max_energy_range_uj: No such file or directory)");

  write("intel-rapl:0/max_energy_range_uj", "1000");
  fs::remove(root_ / "intel-rapl:0/energy_uj");
  fs::create_directories(root_ / "intel-rapl:0/energy_uj");  // open succeeds, read fails, even for root
  CpuEnergyMeter unreadable(true, root(), 0);
  EXPECT_FALSE(unreadable.available());
  EXPECT_EQ(unreadable.source(), "cpu energy: not readable (" + root() + "/intel-rapl:0/energy_uj: Is a directory)");

  fs::remove(root_ / "intel-rapl:0/energy_uj");
  write("intel-rapl:0/energy_uj", "lots");
  EXPECT_THAT(CpuEnergyMeter(true, root(), 0).source(), HasSubstr("energy_uj: 'lots' is not a count of microjoules"));
}

// Since Linux 5.10 energy_uj is readable by root only; root itself reads a mode-000 file.
TEST_F(CpuEnergy, ACounterWithoutReadPermissionIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files without read permission; the directory case covers read failures";
  zone("intel-rapl:0", "package-0", 0, 1000);
  fs::permissions(root_ / "intel-rapl:0/energy_uj", fs::perms::none);
  CpuEnergyMeter meter(true, root(), 0);
  EXPECT_FALSE(meter.available());
  EXPECT_EQ(meter.source(), "cpu energy: not readable (" + root() + "/intel-rapl:0/energy_uj: Permission denied)");
}

TEST_F(CpuEnergy, ACounterThatBecomesUnreadableDuringTheRunEndsTheMeasurement) {
  zone("intel-rapl:0", "package-0", 0, 1000000);
  CpuEnergyMeter meter(true, root(), 0);
  meter.start();
  fs::remove(root_ / "intel-rapl:0/energy_uj");
  meter.stop();
  EXPECT_FALSE(meter.available());
  EXPECT_THAT(meter.source(), HasSubstr("intel-rapl:0/energy_uj: No such file or directory"));
}

TEST_F(CpuEnergy, OtherRanksOfTheNodeDoNotRead) {
  zone("intel-rapl:0", "package-0", 0, 1000);
  CpuEnergyMeter meter(/*reads_node=*/false, root(), 0);
  EXPECT_FALSE(meter.available());
  EXPECT_FALSE(meter.reads_node());
  EXPECT_EQ(meter.source(), "cpu energy: read by the first rank of this node");
}

// The run record of a world of one: CPU energy alone on a CPU run, labelled, with the power and
// samples per joule of what was measured.
TEST_F(CpuEnergy, TheRunRecordLabelsWhatWasMeasured) {
  zone("intel-rapl:0", "package-0", 0, 1'000'000'000);
  EnergyMeter gpu{torch::Device(torch::kCPU)};
  CpuEnergyMeter cpu(true, root(), 0);
  cpu.start();
  counter("intel-rapl:0", 200'000'000);
  cpu.stop();
  proto::RunResult result;
  result.set_time_to_train_seconds(10);
  record_energy(result, gpu, cpu, World::single_process(), 1000);
  EXPECT_FALSE(result.has_energy_joules());
  EXPECT_DOUBLE_EQ(result.cpu_energy_joules(), 200.0);
  EXPECT_EQ(result.energy_measured(), "cpu");
  EXPECT_DOUBLE_EQ(result.mean_power_watts(), 20.0);
  EXPECT_DOUBLE_EQ(result.samples_per_joule(), 5.0);
  EXPECT_EQ(result.cpu_energy_source(), "rapl: package-0 (DRAM not counted)");
  EXPECT_EQ(result.energy_source(), "the run is on the CPU (NVML measures GPUs)");

  proto::RunResult none;
  CpuEnergyMeter absent(true, root() + "/absent", 0);
  record_energy(none, gpu, absent, World::single_process(), 1000);
  EXPECT_FALSE(none.has_cpu_energy_joules());
  EXPECT_FALSE(none.has_samples_per_joule());
  EXPECT_EQ(none.energy_measured(), "");
  EXPECT_THAT(none.cpu_energy_source(), HasSubstr("cpu energy: not readable"));
}

}  // namespace
}  // namespace mlh
