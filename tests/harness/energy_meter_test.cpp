// EnergyMeter without a GPU or without NVML: unavailable, with the reason the run record carries.
// The measurement itself is a `cuda` test (tests/cuda).
#include "harness/energy_meter.h"

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
