// The MLPerf log of a run (spec/mlperf-logging.md): the one MLLogger of the run, which the workload
// also logs its hyperparameters through (RunContext::logger), and the engine's events, in the order
// harness/README.md lists them. The moments the facts hold (init_start, init_stop, run_start, each
// eval_accuracy, run_stop) are logged with the facts' times, so the record's durations are the log's;
// other events take the clock's time as they are logged. The log is written under its .partial name
// and renamed when the run ends whole, or removed when it does not (abandoned; any thread may call
// finished and abandoned, which end the log once).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "compliance/mllogger.h"
#include "harness/run_reporter.h"

namespace mlh {

class MlperfLogReporter : public RunReporter {
 public:
  // `log_options.log_path` is the partial log (rank 0; "" elsewhere), renamed to `log_file` when the
  // run finishes. `clock` gives ms since the Unix epoch: the clock the facts' times come from.
  MlperfLogReporter(MLLogger::Options log_options, std::string log_file, std::function<int64_t()> clock);
  MlperfLogReporter(const MlperfLogReporter&) = delete;
  MlperfLogReporter& operator=(const MlperfLogReporter&) = delete;

  MLLogger& logger() { return logger_; }

  void run_described(const RunFacts& facts) override;
  void init_started(const RunFacts& facts) override;
  void initialized(const RunFacts& facts) override;
  void resumed(const RunFacts& facts) override;
  void run_started(const RunFacts& facts) override;
  void block_started(const RunFacts& facts, const EvalBlock& block) override;
  void epoch_started(const RunFacts& facts, int64_t epoch) override;
  void epoch_ended(const RunFacts& facts) override;
  void eval_started(const RunFacts& facts, int64_t epoch) override;
  void evaluated(const RunFacts& facts, const EvalBlock& block) override;
  void block_abandoned(const RunFacts& facts, const EvalBlock& block) override;
  void run_stopped(const RunFacts& facts) override;
  void finished(const RunFacts& facts) override;
  void abandoned() override;

 private:
  // The next event is logged at `time_ms`.
  void at(int64_t time_ms) { pinned_ms_ = time_ms; }
  int64_t next_time_ms();
  // Closes the log and renames it into place (keep) or removes it, once; under `ending_`.
  void end_log(bool keep);

  std::function<int64_t()> clock_;
  std::optional<int64_t> pinned_ms_;
  std::mutex ending_;
  bool ended_ = false;
  std::string partial_log_;
  std::string log_file_;
  MLLogger logger_;
};

}  // namespace mlh
