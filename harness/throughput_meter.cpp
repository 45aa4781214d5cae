#include "harness/throughput_meter.h"

#include <chrono>

#include "base/user_error.h"

namespace mlh {

ThroughputMeter::ThroughputMeter(int64_t warmup_steps, Clock clock)
    : warmup_steps_(warmup_steps), clock_(std::move(clock)) {
  MLH_ASSERT(warmup_steps >= 0);
}

double ThroughputMeter::now() const {
  if (clock_) return clock_();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void ThroughputMeter::begin_epoch() {
  MLH_ASSERT(!in_epoch_);
  in_epoch_ = true;
  epoch_start_ = now();
  steady_ = total_steps_ >= warmup_steps_;
  steady_start_ = epoch_start_;
  epoch_steps_ = 0;
  epoch_samples_ = 0;
}

void ThroughputMeter::step(int64_t global_samples) {
  MLH_ASSERT(in_epoch_);
  ++total_steps_;
  ++epoch_steps_;
  epoch_samples_ += global_samples;
  if (steady_) {
    steady_samples_ += global_samples;
  } else if (total_steps_ == warmup_steps_) {
    steady_ = true;
    steady_start_ = now();
  }
}

void ThroughputMeter::end_epoch() {
  MLH_ASSERT(in_epoch_);
  in_epoch_ = false;
  epoch_end_ = now();
  if (steady_) steady_seconds_ += epoch_end_ - steady_start_;
}

double ThroughputMeter::steady_samples_per_second() const {
  return steady_seconds_ > 0 ? steady_samples_ / steady_seconds_ : 0.0;
}

double ThroughputMeter::epoch_seconds() const { return (in_epoch_ ? now() : epoch_end_) - epoch_start_; }

double ThroughputMeter::epoch_samples_per_second() const {
  const double seconds = epoch_seconds();
  return seconds > 0 ? epoch_samples_ / seconds : 0.0;
}

}  // namespace mlh
