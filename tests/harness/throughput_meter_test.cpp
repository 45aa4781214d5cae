// The engine's throughput meter on a hand-driven clock, and the progress display feeding it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "harness/progress.h"
#include "harness/throughput_meter.h"

namespace mlh {
namespace {

// A clock the test sets by hand, in seconds.
struct ManualClock {
  double now = 0;
  ThroughputMeter::Clock reader() {
    return [this] { return now; };
  }
};

TEST(ThroughputMeter, TotalSamplesOverTotalTimeNotAMeanOfStepRates) {
  ManualClock clock;
  ThroughputMeter meter(0, clock.reader());
  meter.begin_epoch();
  clock.now = 1;  // a fast step: 100 samples in 1 s
  meter.step(100);
  clock.now = 11;  // a slow one: 100 samples in 10 s
  meter.step(100);
  meter.end_epoch();
  // 200 / 11 s, not the mean of 100/s and 10/s (55/s).
  EXPECT_EQ(meter.steady_samples(), 200);
  EXPECT_DOUBLE_EQ(meter.steady_seconds(), 11);
  EXPECT_DOUBLE_EQ(meter.steady_samples_per_second(), 200.0 / 11);
  EXPECT_DOUBLE_EQ(meter.epoch_samples_per_second(), 200.0 / 11);
}

TEST(ThroughputMeter, WarmupStepsAndTimeBetweenEpochsAreLeftOut) {
  ManualClock clock;
  ThroughputMeter meter(2, clock.reader());
  // Epoch 1 at t = 0..10: steps end at 3 (warm-up), 5 (warm-up), 6, 8; the epoch ends at 10.
  meter.begin_epoch();
  clock.now = 3;
  meter.step(10);
  clock.now = 5;
  meter.step(10);
  clock.now = 6;
  meter.step(10);
  clock.now = 8;
  meter.step(10);
  clock.now = 10;
  meter.end_epoch();
  EXPECT_EQ(meter.steady_samples(), 20);                 // the two steps after the warm-up
  EXPECT_DOUBLE_EQ(meter.steady_seconds(), 5);           // 5 .. 10
  EXPECT_DOUBLE_EQ(meter.epoch_samples_per_second(), 4); // 40 samples / 10 s, warm-up included
  EXPECT_EQ(meter.epoch_steps(), 4);

  // Evaluation from 10 to 100 is not counted. Epoch 2 at t = 100..104: two steps of 10.
  clock.now = 100;
  meter.begin_epoch();
  clock.now = 101;
  meter.step(10);
  clock.now = 103;
  meter.step(10);
  clock.now = 104;
  meter.end_epoch();
  EXPECT_EQ(meter.steady_samples(), 40);
  EXPECT_DOUBLE_EQ(meter.steady_seconds(), 9);  // 5 + 4
  EXPECT_DOUBLE_EQ(meter.steady_samples_per_second(), 40.0 / 9);
  EXPECT_DOUBLE_EQ(meter.epoch_samples_per_second(), 5);  // 20 / 4 s
  EXPECT_EQ(meter.total_steps(), 6);
}

TEST(ThroughputMeter, WarmupLongerThanAnEpochCarriesOver) {
  ManualClock clock;
  ThroughputMeter meter(3, clock.reader());
  meter.begin_epoch();
  clock.now = 1;
  meter.step(8);
  clock.now = 2;
  meter.step(8);
  clock.now = 2.5;
  meter.end_epoch();
  EXPECT_EQ(meter.steady_samples(), 0);
  EXPECT_DOUBLE_EQ(meter.steady_samples_per_second(), 0);

  clock.now = 10;
  meter.begin_epoch();
  clock.now = 11;  // the third step, the last of the warm-up
  meter.step(8);
  clock.now = 13;
  meter.step(8);
  clock.now = 15;
  meter.step(8);
  clock.now = 16;
  meter.end_epoch();
  EXPECT_EQ(meter.steady_samples(), 16);
  EXPECT_DOUBLE_EQ(meter.steady_seconds(), 5);  // 11 .. 16
  EXPECT_DOUBLE_EQ(meter.steady_samples_per_second(), 3.2);
}

TEST(ThroughputMeter, NothingMeasuredIsZero) {
  ManualClock clock;
  ThroughputMeter meter(5, clock.reader());
  EXPECT_DOUBLE_EQ(meter.steady_samples_per_second(), 0);
  EXPECT_DOUBLE_EQ(meter.epoch_samples_per_second(), 0);
  meter.begin_epoch();
  meter.end_epoch();
  EXPECT_DOUBLE_EQ(meter.epoch_samples_per_second(), 0);
}

std::string read_all(std::FILE* file) {
  std::rewind(file);
  std::string text;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, file)) text += buffer;
  return text;
}

TEST(Progress, BothStepOverloadsFeedTheMeter) {
  ManualClock clock;
  ThroughputMeter meter(0, clock.reader());
  Progress progress(meter, {/*display=*/false, false, 10.0, stdout, {}});
  meter.begin_epoch();
  progress.begin_epoch(1, 1, 2);
  clock.now = 2;
  progress.step(6, 0.5);
  clock.now = 4;
  progress.step(10, torch::tensor(0.25));
  meter.end_epoch();
  progress.end_epoch();
  EXPECT_EQ(meter.epoch_steps(), 2);
  EXPECT_EQ(meter.steady_samples(), 16);
  EXPECT_DOUBLE_EQ(meter.steady_samples_per_second(), 4);
}

TEST(Progress, ShowsTheTensorLossOfTheLastStep) {
  ThroughputMeter meter(0);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  // interval 0: every step shows a plain line.
  Progress progress(meter, {/*display=*/true, /*interactive=*/false, 0.0, out, {}});
  meter.begin_epoch();
  progress.begin_epoch(3, 5, 2);
  progress.step(4, torch::tensor(1.5, torch::kFloat).requires_grad_(true) * 0.5);
  progress.step(4, 2.25);
  meter.end_epoch();
  progress.end_epoch();
  const std::string text = read_all(out);
  std::fclose(out);
  EXPECT_NE(text.find("epoch 3/5  step 1/2"), std::string::npos) << text;
  EXPECT_NE(text.find("loss 0.7500"), std::string::npos) << text;
  EXPECT_NE(text.find("step 2/2"), std::string::npos) << text;
  EXPECT_NE(text.find("loss 2.2500"), std::string::npos) << text;
}

TEST(Progress, NotesShowWithoutTheProgressDisplayAndOnlyWhereAsked) {
  ThroughputMeter meter(0);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    Progress quiet(meter, {/*display=*/false, false, 10.0, out, {}, /*notes=*/true});  // rank 0, --quiet
    quiet.message("epoch 1: hr@10 0.5");
    quiet.note("amp runs as fp32 here");
    Progress other_rank(meter, {/*display=*/false, false, 10.0, out, {}, /*notes=*/false});
    other_rank.note("amp runs as fp32 here");
  }
  const std::string text = read_all(out);
  std::fclose(out);
  EXPECT_EQ(text, "mlharness: note: amp runs as fp32 here\n");
}

}  // namespace
}  // namespace mlh
