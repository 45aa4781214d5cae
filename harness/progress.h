// Progress: the training display. A workload calls step() after every training step; the step's
// samples go on to the engine's ThroughputMeter (which measures), the engine's after_step check runs
// (a signal ends the run there), and on rank 0 a line shows epoch, step, samples/s, loss and ETA: a
// live status line when stdout is a terminal, a plain line every `interval_seconds` otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include <torch/types.h>

#include "harness/throughput_meter.h"

namespace mlh {

class Progress {
 public:
  struct Options {
    bool display = true;             // false on ranks other than 0, and with --quiet
    bool interactive = false;        // stdout is a terminal
    double interval_seconds = 10.0;  // between plain lines when not interactive
    std::FILE* out = stdout;
    // The engine's check after every step (harness/interrupt.h): it may throw to end the run there.
    std::function<void()> after_step;
    bool notes = true;               // note() shows: rank 0, also with --quiet
  };
  // `meter` is the engine's, and outlives this display.
  Progress(ThroughputMeter& meter, Options options);

  // Called by the engine, after the meter's begin_epoch and end_epoch.
  void begin_epoch(int64_t epoch, int64_t max_epochs, int64_t steps_in_epoch);
  void end_epoch();
  // Called by the workload after each step: samples in the global batch, and a loss to show.
  void step(int64_t global_samples, double loss);
  // The same, with the loss as a 0-dim tensor (this rank's mean loss of the step, on any device). It
  // is read to the host only when a line is shown, so a step costs no host synchronisation.
  void step(int64_t global_samples, const torch::Tensor& loss);
  // A one-off status line (evaluation results), kept on screen.
  void message(const std::string& text);
  // "mlharness: note: <text>": what the user must see though no progress is shown (--quiet), such
  // as a setting this device carries out differently. Not a progress line, so on stdout: stderr is
  // for the one line of an error.
  void note(const std::string& text);

 private:
  using Clock = std::chrono::steady_clock;
  // Counts a step; true when a line is due.
  bool count_step(int64_t global_samples);
  double shown_loss();
  void show(bool final_line);

  ThroughputMeter& meter_;
  Options options_;
  int64_t epoch_ = 0;
  int64_t max_epochs_ = 0;
  int64_t steps_in_epoch_ = 0;
  double last_loss_ = 0;
  torch::Tensor last_loss_tensor_;  // defined when the last step reported a tensor
  Clock::time_point last_shown_;
  bool line_open_ = false;
};

}  // namespace mlh
