// The time-to-train engine (MLPerf rules, spec/workloads.md §8): settings are bound and checked
// before anything is written; the workload prepares its data; then init_start .. init_stop
// (untimed), run_start, blocks of epochs each ending in an evaluation (the evaluation schedule,
// harness/eval_schedule.h), and run_stop with status "success" at the first evaluation at which every
// quality target holds (harness/quality.h), or "aborted" with the reason at max_epochs, on a
// non-finite loss or on a signal. Checkpoints are written and resumed here (harness/checkpoint.h).
// Throughput is the engine's ThroughputMeter's. Rank 0 writes the log and the RunResult record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/eval_schedule.h"
#include "harness/run_result.pb.h"
#include "harness/settings.h"
#include "harness/workload.h"
#include "harness/world.h"

namespace mlh {

// Settings the engine itself reads from the config.
struct EngineSettings {
  int64_t max_epochs = 20;
  // The evaluation schedule: every eval_every_epochs epochs from epoch eval_offset + 1 (-1: from
  // epoch eval_every_epochs), or else after the epochs in eval_epochs.
  int64_t eval_every_epochs = 1;
  int64_t eval_offset = -1;
  std::vector<int64_t> eval_epochs;
  int64_t throughput_warmup_steps = 5;
  int64_t blas_threads = 1;
  int64_t intra_op_threads = 0;  // 0: the cores available per rank
  // GOMP_SPINCOUNT for LibTorch's OpenMP threads; -1 leaves libgomp's default. Applied by the
  // mlharness command before anything runs (libgomp reads it once, as it loads).
  int64_t openmp_spin_count = -1;
  std::string device = "auto";  // rank_device(): auto, cpu, cuda (the flag --device sets it)
  GpuMath gpu_math;
  std::string submission_org = "mlharness";
  std::string submission_division = "open";
  std::string submission_status = "research";

  void bind(ConfigMap& config);
  void validate() const;  // throws UserError
  EvalSchedule eval_schedule() const;  // throws UserError
};

// What the command line decides about a run.
struct RunOptions {
  std::string workload;
  std::string config_label;        // config name or path, for the record
  std::optional<uint64_t> seed;    // drawn from std::random_device (and logged) when absent
  std::string out_dir = "results";
  std::string data_dir = "data";   // where workloads write generated datasets
  std::string platform;            // overrides the detected platform label
  bool mllog_stdout = false;
  bool quiet = false;
  // Checkpoints (harness/checkpoint.h): after every this many epochs and at the run's end (0: none),
  // keeping the newest `checkpoints_kept`, in <log stem>.checkpoints/.
  int64_t checkpoint_every_epochs = 0;
  int64_t checkpoints_kept = 2;
  // A checkpoint, or a run's folder of them (the newest whole one): continue from it. The workload,
  // world size and effective config must be the checkpoint's; the seed is taken from it.
  std::string resume;
};

// Runs `workload` to its target. `config` holds the file and overrides; unknown keys are rejected
// here. Returns the record (complete on rank 0; other ranks get the same status and epochs). SIGINT
// or SIGTERM ends the run after the current step (harness/interrupt.h): the log is finished with
// run_stop aborted and the record's status is "interrupted".
proto::RunResult run_to_target(Workload& workload, ConfigMap& config, const World& world,
                               const RunOptions& options);

}  // namespace mlh
