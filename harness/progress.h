// Progress: what a workload reports after every training step, and the engine's measure of
// steady-state throughput. On rank 0 it also shows progress: a live status line (epoch, step,
// samples/s, loss, ETA) when stdout is a terminal, a plain line every `interval_seconds` otherwise.
// Throughput = samples / seconds over every step after the first `warmup_steps` of the run, each
// step timed from the end of the previous step of the same epoch (so evaluation is never counted).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <torch/types.h>

namespace mlh {

class Progress {
 public:
  struct Options {
    bool display = true;             // false on ranks other than 0, and with --quiet
    bool interactive = false;        // stdout is a terminal
    double interval_seconds = 10.0;  // between plain lines when not interactive
    int64_t warmup_steps = 5;        // steps left out of the throughput
    std::FILE* out = stdout;
  };
  explicit Progress(Options options);

  // Called by the engine.
  void begin_epoch(int64_t epoch, int64_t max_epochs, int64_t steps_in_epoch);
  void end_epoch();
  // Called by the workload after each step: samples in the global batch, and a loss to show.
  void step(int64_t global_samples, double loss);
  // The same, with the loss as a 0-dim tensor (this rank's mean loss of the step, on any device). It
  // is read to the host only when a line is shown, so a step costs no host synchronisation.
  void step(int64_t global_samples, const torch::Tensor& loss);
  // A one-off status line (evaluation results), kept on screen.
  void message(const std::string& text);

  int64_t steady_samples() const { return steady_samples_; }
  double steady_seconds() const { return steady_seconds_; }
  double steady_samples_per_second() const;
  // The last epoch's samples over its training time (warm-up included), set by end_epoch().
  double epoch_samples_per_second() const { return epoch_rate_; }
  int64_t total_steps() const { return total_steps_; }

 private:
  using Clock = std::chrono::steady_clock;
  // Counts a step; true when a line is due.
  bool count_step(int64_t global_samples);
  double shown_loss();
  void show(bool final_line);

  Options options_;
  int64_t epoch_ = 0;
  int64_t max_epochs_ = 0;
  int64_t steps_in_epoch_ = 0;
  int64_t step_in_epoch_ = 0;
  int64_t total_steps_ = 0;
  int64_t steady_samples_ = 0;
  double steady_seconds_ = 0;
  int64_t epoch_samples_ = 0;
  double epoch_rate_ = 0;
  double last_loss_ = 0;
  torch::Tensor last_loss_tensor_;  // defined when the last step reported a tensor
  Clock::time_point epoch_start_;
  Clock::time_point last_step_;
  Clock::time_point last_shown_;
  bool line_open_ = false;
};

}  // namespace mlh
