// RunReporter: turns a run's facts (harness/run_facts.h) into what people and tools read, as the
// run goes, the way google/benchmark hands its runs to reporters. The driver calls each reporter at
// each step of the run, after it has put what the step learned into the facts; a reporter only reads
// them. The ones the engine uses: the MLPerf log (mlperf_log_reporter.h), the run record
// (run_record_reporter.h) and the console lines (console_reporter.h).
#pragma once

#include <cstdint>

#include "harness/eval_schedule.h"
#include "harness/run_facts.h"

namespace mlh {

class RunReporter {
 public:
  virtual ~RunReporter() = default;

  // Who runs what, where (before the workload's init).
  virtual void run_described(const RunFacts&) {}
  // init_start_ms, seed and effective config are known; the workload's init follows.
  virtual void init_started(const RunFacts&) {}
  // The workload's init is done: info, precision, baselines.
  virtual void initialized(const RunFacts&) {}
  // The run continues from facts.resumed, its state restored.
  virtual void resumed(const RunFacts&) {}
  // init_stop_ms and run_start_ms: the timed run begins.
  virtual void run_started(const RunFacts&) {}
  virtual void block_started(const RunFacts&, const EvalBlock&) {}
  virtual void epoch_started(const RunFacts&, int64_t /*epoch*/) {}
  // facts.epochs.back() is the epoch just trained.
  virtual void epoch_ended(const RunFacts&) {}
  virtual void eval_started(const RunFacts&, int64_t /*epoch*/) {}
  // facts.evals.back() is the evaluation that ends `block`.
  virtual void evaluated(const RunFacts&, const EvalBlock&) {}
  // `block` ends without its evaluation (a non-finite loss: facts.abort_reason).
  virtual void block_abandoned(const RunFacts&, const EvalBlock&) {}
  // A signal ended the run: facts.abort_reason says where.
  virtual void interrupted(const RunFacts&) {}
  // facts.stopped: the outcome, run_stop_ms, the steady throughput and the energy are known.
  virtual void run_stopped(const RunFacts&) {}
  // The run has ended whole: what a reporter writes is complete.
  virtual void finished(const RunFacts&) {}
  // An error ends the run: a reporter leaves nothing partial that could pass for a result.
  virtual void abandoned() {}
};

}  // namespace mlh
