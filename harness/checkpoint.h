// Checkpoints of a run: `--checkpoint-every N` writes one after every N-th epoch (after its
// evaluation, when it ends a block) and one when the run ends; `--resume DIR` continues from one.
//
// Layout, beside the run's log: <out>/<platform>/<benchmark>/result_<i>.checkpoints/epoch_<eeee>/
// with rank_<r>.state per rank (harness/training_state.h) and manifest.json, written last by rank 0:
// the epoch, world size, workload, seed, effective config, the run record so far, and each rank
// file's size and CRC-32. A checkpoint is built in epoch_<eeee>.partial/ (each file written whole
// and fsynced) and renamed into place only when complete, so a crash or a full disk never leaves a
// folder that looks complete; then all but the newest `kept` are removed.
//
// Reading: a checkpoint counts when its manifest parses and every rank file has the recorded size
// and CRC. Given a run's folder, the newest such one is taken and each newer one that fails is
// reported with its reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/training_state.h"
#include "harness/world.h"

namespace mlh {

struct CheckpointManifest {
  int64_t epoch = 0;                 // the last finished epoch
  bool finished = false;             // written as the run ended (converged or out of epochs)
  int world_size = 1;
  std::string workload;
  uint64_t seed = 0;
  nlohmann::json effective_config;   // every setting as the run used it
  std::string log_file;              // the MLPerf log of the run that wrote it
  std::string record_json;           // that run's record (RunResult JSON) up to this epoch
  std::vector<uint64_t> rank_bytes;  // per rank file
  std::vector<uint32_t> rank_crc32;
  std::string written_utc;

  nlohmann::json to_json() const;
  static CheckpointManifest from_json(const nlohmann::json& json, const std::string& source);  // UserError
};

// "<stem>.checkpoints" for a log "<stem>.txt".
std::string checkpoint_folder_for_log(const std::string& log_file);
std::string checkpoint_name(int64_t epoch);  // "epoch_0007"

// A collective: every rank passes its own state; rank 0 passes the manifest (rank sizes and CRCs
// are filled in here) and the run's checkpoint folder, which it creates. Returns the checkpoint's
// path on rank 0. A failed write throws UserError; the previous checkpoints stay as they were.
std::string write_checkpoint(const World& world, const std::string& folder, CheckpointManifest manifest,
                             const TrainingState& rank_state, int64_t kept);

struct FoundCheckpoint {
  std::string path;                  // the epoch_<eeee> folder
  CheckpointManifest manifest;
  std::vector<std::string> refused;  // newer checkpoints that failed, each "path: reason"
};

// `path`: one checkpoint (it holds manifest.json) or a folder of them. Reads every rank file once to
// check it. Throws UserError when none is whole, naming each one tried and why it was refused.
FoundCheckpoint find_checkpoint(const std::string& path);

// This rank's state from a checkpoint that find_checkpoint accepted.
TrainingState read_rank_state(const std::string& checkpoint_path, int rank);

// LibTorch's default random generators (the CPU's, and the current GPU's on CUDA), as "random/...".
void save_random_streams(TrainingState& state, const torch::Device& device);
void restore_random_streams(const TrainingState& state, const torch::Device& device);

}  // namespace mlh
