// RunFacts: what a run learned, gathered in one place as the driver goes (harness/driver.cpp).
// The driver only fills it in; the reporters (harness/run_reporter.h) turn it into the MLPerf log,
// the run record and the console lines. Times are milliseconds since the Unix epoch, the clock
// the log's time_ms shows, so that the record's durations are the log's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/mllog_keys.h"
#include "harness/energy_meter.h"
#include "harness/job_layout.h"
#include "harness/quality.h"
#include "harness/workload.h"

namespace mlh {

// One trained epoch.
struct EpochFacts {
  int64_t epoch = 0;
  double mean_loss = 0;
  double samples_per_second = 0;
  // The largest over the ranks, at the epoch's end (after its evaluation when it ends a block); 0
  // until measured.
  double resident_mib = 0;
  double heap_in_use_mib = 0;
};

// One evaluation, at the end of a block.
struct EvalFacts {
  int64_t epoch = 0;
  int64_t at_ms = 0;         // when the quality was known (the log's eval_accuracy)
  double run_seconds = 0;    // since run_start
  bool reached = false;      // every target held
  Quality quality;
};

// The checkpoint a run continued from (`--resume`).
struct ResumeFacts {
  std::string checkpoint;            // the epoch_<eeee> folder
  int64_t epoch = 0;                 // the last epoch it had finished
  std::string log_file;              // the log of the run that wrote it
  std::vector<std::string> refused;  // newer checkpoints that failed, each "path: reason"
};

struct RunFacts {
  // Who runs what, where: known before the workload's init.
  std::string workload;
  std::string benchmark;
  std::string config_label;
  uint64_t seed = 0;
  std::string platform_label;
  std::string device_model;
  int device_count = 0;
  bool on_cuda = false;
  int world_size = 1;
  JobLayout layout;
  int threads_per_rank = 0;
  std::string communicator;
  std::string mlharness_version;
  std::string start_time_utc;
  std::string log_file;  // rank 0: where the log goes when the run ends
  std::string submission_org;
  std::string submission_division;
  std::string submission_status;
  bool cache_cleared = false;  // every data file's cached pages dropped
  nlohmann::json effective_config;
  std::string energy_not_measured;  // on a GPU without NVML: why ("" otherwise)

  // What the workload's init said.
  WorkloadInfo info;
  std::string precision;       // describe_precision on this device
  std::string precision_note;  // "" when the device does what the config asks
  std::map<std::string, double> baselines;

  std::optional<ResumeFacts> resumed;

  int64_t init_start_ms = 0;
  int64_t init_stop_ms = 0;
  int64_t run_start_ms = 0;

  // Every epoch and evaluation (a resumed run's earlier ones from its checkpoint, on rank 0).
  std::vector<EpochFacts> epochs;
  std::vector<EvalFacts> evals;
  int64_t skipped_steps = 0;
  int64_t samples_trained = 0;  // this run's, for the energy per sample
  int64_t epochs_run = 0;       // the last epoch this run began
  std::string last_checkpoint;

  // How the run ended: set when it stops.
  bool stopped = false;
  int64_t run_stop_ms = 0;
  bool converged = false;
  std::string abort_reason;  // "" on success
  int interrupt_signal = 0;  // the signal that ended it, else 0
  double steady_samples_per_second = 0;
  EnergyReading energy;

  Quality final_quality;  // this run's last evaluation (none before its first)

  // The log's run_stop status: "success" or "aborted".
  const char* log_status() const { return converged ? keys::kStatusSuccess : keys::kStatusAborted; }
  // The record's status: the log's, or "interrupted".
  std::string record_status() const { return interrupt_signal != 0 ? "interrupted" : log_status(); }
  double init_seconds() const { return (init_stop_ms - init_start_ms) / 1000.0; }
  double time_to_train_seconds() const { return (run_stop_ms - run_start_ms) / 1000.0; }
  int64_t epochs_to_converge() const { return converged ? evals.back().epoch : 0; }
};

}  // namespace mlh
