// The time-to-train engine (MLPerf rules, spec/workloads.md §8): settings are bound and checked
// before anything is written; the workload prepares its data; then init_start .. init_stop
// (untimed), run_start, blocks of epochs each ending in an evaluation (the evaluation schedule,
// harness/eval_schedule.h), and run_stop with status "success" at the first evaluation at which every
// quality target holds (harness/quality.h), or "aborted" with the reason at max_epochs, on a
// non-finite loss or on a signal. Checkpoints are written and resumed here (harness/checkpoint.h).
// Throughput is the engine's ThroughputMeter's. Rank 0 writes the log and the RunResult record.
#pragma once

#include "harness/engine_settings.h"
#include "harness/run_options.h"
#include "harness/run_result.pb.h"
#include "harness/settings.h"
#include "harness/workload.h"
#include "harness/world.h"

namespace mlh {

// Runs `workload` to its target. `config` holds the file and overrides; unknown keys are rejected
// here. Returns the record (complete on rank 0; other ranks get the same status and epochs). SIGINT
// or SIGTERM ends the run after the current step (harness/interrupt.h): the log is finished with
// run_stop aborted and the record's status is "interrupted".
proto::RunResult run_to_target(Workload& workload, ConfigMap& config, const World& world,
                               const RunOptions& options);

}  // namespace mlh
