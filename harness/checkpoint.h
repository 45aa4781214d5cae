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
// Reading (harness/checkpoint_manifest.h, no LibTorch): a checkpoint counts when its manifest parses
// and every rank file has the recorded size and CRC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/checkpoint_manifest.h"

#include "harness/training_state.h"
#include "harness/world.h"

namespace mlh {



// A collective: every rank passes its own state; rank 0 passes the manifest (rank sizes and CRCs
// are filled in here) and the run's checkpoint folder, which it creates. Returns the checkpoint's
// path on rank 0. A failed write throws UserError; the previous checkpoints stay as they were.
std::string write_checkpoint(const World& world, const std::string& folder, CheckpointManifest manifest,
                             const TrainingState& rank_state, int64_t kept);


// This rank's state from a checkpoint that find_checkpoint accepted.
TrainingState read_rank_state(const std::string& checkpoint_path, int rank);

// LibTorch's default random generators (the CPU's, and the current GPU's on CUDA), as "random/...".
void save_random_streams(TrainingState& state, const torch::Device& device);
void restore_random_streams(const TrainingState& state, const torch::Device& device);

}  // namespace mlh
