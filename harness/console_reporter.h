// The console lines of a run, through its Progress display (rank 0; the evaluation lines and the
// run's one-off messages, not the progress lines the workload's steps drive): what runs where and
// its target, notes on the device, a resume, each evaluation, and an interruption.
#pragma once

#include "harness/progress.h"
#include "harness/run_reporter.h"

namespace mlh {

class ConsoleReporter : public RunReporter {
 public:
  // `progress` outlives the reporter.
  explicit ConsoleReporter(Progress& progress) : progress_(progress) {}

  void initialized(const RunFacts& facts) override;
  void resumed(const RunFacts& facts) override;
  void evaluated(const RunFacts& facts, const EvalBlock& block) override;
  void interrupted(const RunFacts& facts) override;

 private:
  Progress& progress_;
};

// "<workload> seed 1 on cpu (1 rank, 2 threads each): target hr@10 >= 0.8200; popularity baseline 0.1842".
std::string describe_run(const RunFacts& facts);

}  // namespace mlh
