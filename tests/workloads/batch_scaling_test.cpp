// The per-device batch's global batch and the learning-rate rules of workloads/common/batch_scaling.h,
// against the reference numbers of spec/workloads.md §2 and §3.
#include "workloads/common/batch_scaling.h"

#include <gtest/gtest.h>

namespace mlh::common {
namespace {

TEST(BatchScaling, PerDeviceTimesRanksIsTheGlobalBatchAndZeroKeepsTheGlobalKey) {
  EXPECT_EQ(global_batch_size(0, 256, 8), 256);    // today's configs: the global key, any rank count
  EXPECT_EQ(global_batch_size(256, 256, 8), 2048);  // 256 images per GPU on 8 GPUs
  EXPECT_EQ(global_batch_size(32, 32, 1), 32);
  EXPECT_EQ(global_batch_size(4, 32, 8), 32);
  EXPECT_THROW(global_batch_size(-1, 256, 2), UserError);
}

TEST(BatchScaling, ResNetSgdScalesLinearlyFromTheReferenceBatch) {
  EXPECT_DOUBLE_EQ(linearly_scaled_learning_rate(0.128, 256, 256), 0.128);
  EXPECT_DOUBLE_EQ(linearly_scaled_learning_rate(0.128, 256, 2048), 1.024);  // 0.128 x 2048/256
  EXPECT_DOUBLE_EQ(linearly_scaled_learning_rate(0.1, 256, 1024), 0.4);      // base 0.1 x 1024/256
}

TEST(BatchScaling, SsdScalesLinearlyFromBatch32AndKeepsItsWarmupSamples) {
  EXPECT_DOUBLE_EQ(linearly_scaled_learning_rate(2.5e-3, 32, 960), 0.075);  // 2.5e-3 x 960/32
  EXPECT_EQ(warmup_steps_at_batch(650, 32, 32), 650);
  EXPECT_EQ(warmup_steps_at_batch(650, 32, 64), 325);
  EXPECT_EQ(warmup_steps_at_batch(650, 32, 960), 22);   // 650 x 32 / 960 = 21.7
  EXPECT_EQ(warmup_steps_at_batch(1, 32, 4096), 1);     // never below one step
}

TEST(BatchScaling, LarsFollowsTheReferenceTableByGlobalBatch) {
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(2048).peak_learning_rate, 5.0);
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(8191).peak_learning_rate, 5.0);
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(8192).peak_learning_rate, 10.0);
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(16384).peak_learning_rate, 25.0);
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(32767).warmup_epochs, 5);
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(32768).peak_learning_rate, 32.0);
  EXPECT_DOUBLE_EQ(mlperf_lars_schedule(65536).warmup_epochs, 14);
}

}  // namespace
}  // namespace mlh::common
