// The run record (harness/run_result.proto): `run_record` maps the facts onto it, whole or as far as
// the run has got (a checkpoint keeps the record so far); RunRecordReporter writes it beside the log
// when the run ends (rank 0), every write whole (harness/results.h).
#pragma once

#include <string>

#include "harness/run_reporter.h"
#include "harness/run_result.pb.h"

namespace mlh {

// The record of `facts`; the outcome, time to train, throughput and energy once facts.stopped.
proto::RunResult run_record(const RunFacts& facts);

// The epochs, evaluations and skipped steps of a checkpoint's record (a resumed run keeps them).
void take_earlier_progress(const proto::RunResult& before, RunFacts& facts);

class RunRecordReporter : public RunReporter {
 public:
  explicit RunRecordReporter(std::string record_file) : record_file_(std::move(record_file)) {}
  void finished(const RunFacts& facts) override;

 private:
  std::string record_file_;
};

}  // namespace mlh
