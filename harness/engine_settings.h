// The settings the engine itself reads from the config (the workload binds its own): epochs, the
// evaluation schedule, threads, the device and its arithmetic, the MLPerf submission fields.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/eval_schedule.h"
#include "harness/settings.h"

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

}  // namespace mlh
