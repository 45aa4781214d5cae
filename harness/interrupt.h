// SIGINT and SIGTERM while a run trains. The handlers only note the signal; the engine asks, after
// every training step, whether any rank got one (one MPI all-reduce of a flag when there are several
// ranks, so every rank stops after the same step and no rank is left in a collective), and then
// ends the run in order: the log's run_stop says aborted and why, the record says interrupted.
// A second SIGINT kills the process at once (the handler is reset after the first).
#pragma once

#include <stdexcept>
#include <string>

#include "harness/world.h"

namespace mlh {

// Thrown on every rank, from the step after which the ranks agreed to stop.
class RunInterrupted : public std::runtime_error {
 public:
  explicit RunInterrupted(int signal_number);
  int signal_number() const { return signal_number_; }
  // 128 + the signal: the status a shell gives a process its signal ended.
  int exit_status() const { return 128 + signal_number_; }

 private:
  int signal_number_;
};

// Installs the handlers for its lifetime; restores the previous ones after.
class InterruptWatch {
 public:
  explicit InterruptWatch(const World& world);
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // A collective when there are several ranks: throws RunInterrupted on every rank when any got a
  // signal since the watch began.
  void check() const;

 private:
  const World& world_;
};

// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal_number);

}  // namespace mlh
