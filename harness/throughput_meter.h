// The engine's measure of training throughput: total samples over total training seconds, never a
// mean of per-step rates (DESIGN: "Runs, logs and results").
// An epoch's training time runs from begin_epoch to end_epoch; the engine calls end_epoch after the
// workload's train_epoch has returned its epoch loss to the host, so device work queued by the epoch's
// steps is inside that time, and evaluation (between epochs) never is.
// Steady state leaves out the first `warmup_steps` steps of the run: its samples are those of every
// later step, its seconds run from the end of the last warm-up step (or from the start of each later
// epoch) to the end of each epoch.
#pragma once

#include <cstdint>
#include <functional>

namespace mlh {

class ThroughputMeter {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  // An empty clock reads std::chrono::steady_clock.
  explicit ThroughputMeter(int64_t warmup_steps, Clock clock = {});

  void begin_epoch();
  // One training step has ended; `global_samples` in the step's global batch.
  void step(int64_t global_samples);
  void end_epoch();

  int64_t total_steps() const { return total_steps_; }
  int64_t steady_samples() const { return steady_samples_; }
  double steady_seconds() const { return steady_seconds_; }
  // 0 until an epoch with a step past the warm-up has ended.
  double steady_samples_per_second() const;
  // The epoch in progress so far, or else the last ended one, warm-up included (for the per-epoch
  // log line and the progress display).
  int64_t epoch_steps() const { return epoch_steps_; }
  int64_t epoch_samples() const { return epoch_samples_; }
  double epoch_seconds() const;
  double epoch_samples_per_second() const;  // 0 before the first step

 private:
  double now() const;

  int64_t warmup_steps_;
  Clock clock_;
  bool in_epoch_ = false;
  double epoch_start_ = 0;
  double epoch_end_ = 0;
  bool steady_ = false;       // this epoch's steady period has begun (at steady_start_)
  double steady_start_ = 0;
  int64_t epoch_steps_ = 0;
  int64_t epoch_samples_ = 0;
  int64_t total_steps_ = 0;
  int64_t steady_samples_ = 0;
  double steady_seconds_ = 0;
};

}  // namespace mlh
