// Reading checkpoints without LibTorch (harness/checkpoint.h writes them): the manifest, its checks
// of every rank file's size and CRC-32, and finding the newest whole checkpoint of a run. The rank
// files' contents (harness/training_state.h) are LibTorch's to decode.
//
// Layout: <run>.checkpoints/epoch_<eeee>/ with rank_<r>.state per rank and manifest.json; a
// checkpoint counts when its manifest parses and every rank file has the recorded size and CRC. Given
// a run's folder, the newest such one is taken and each newer one that fails is reported with its
// reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlh {

inline constexpr const char* kCheckpointManifestFile = "manifest.json";

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
std::string checkpoint_rank_file(int rank);  // "rank_3.state"

// The whole-looking checkpoints (epoch_<eeee> folders, no suffix) in a run's folder, newest first.
std::vector<std::string> checkpoints_in(const std::string& folder);

struct FoundCheckpoint {
  std::string path;                  // the epoch_<eeee> folder
  CheckpointManifest manifest;
  std::vector<std::string> refused;  // newer checkpoints that failed, each "path: reason"
};

// `path`: one checkpoint (it holds manifest.json) or a folder of them. Reads every rank file once to
// check it. Throws UserError when none is whole, naming each one tried and why it was refused.
FoundCheckpoint find_checkpoint(const std::string& path);

// The whole file (a manifest or a rank file); UserError naming it when it cannot be read.
std::string read_checkpoint_file(const std::string& path);

// The bytes' CRC-32 (the zlib polynomial).
uint32_t crc32_of(const std::string& bytes);

}  // namespace mlh
