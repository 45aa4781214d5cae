// What the command line decides about a run (the mlharness command fills it; the driver reads it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mlh {

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

}  // namespace mlh
