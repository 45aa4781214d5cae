#include "harness/checkpoint_manifest.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <boost/crc.hpp>

#include "base/user_error.h"

namespace mlh {

namespace fs = std::filesystem;

namespace {

// The manifest, after checking every rank file against it.
CheckpointManifest check_checkpoint(const fs::path& path) {
  const fs::path manifest_path = path / kCheckpointManifestFile;
  if (!fs::exists(manifest_path)) throw UserError("no " + std::string(kCheckpointManifestFile) + " (not a finished checkpoint)");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(read_checkpoint_file(manifest_path.string()));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string(kCheckpointManifestFile) + " is not JSON: " + e.what());
  }
  CheckpointManifest manifest = CheckpointManifest::from_json(json, manifest_path.string());
  for (int r = 0; r < manifest.world_size; ++r) {
    const fs::path file = path / checkpoint_rank_file(r);
    std::error_code error;
    const auto bytes = fs::file_size(file, error);
    if (error) throw UserError(checkpoint_rank_file(r) + " is missing");
    if (bytes != manifest.rank_bytes[static_cast<size_t>(r)])
      throw UserError(checkpoint_rank_file(r) + " has " + std::to_string(bytes) + " bytes where the manifest says " +
                      std::to_string(manifest.rank_bytes[static_cast<size_t>(r)]) + " (cut short)");
    if (crc32_of(read_checkpoint_file(file.string())) != manifest.rank_crc32[static_cast<size_t>(r)])
      throw UserError(checkpoint_rank_file(r) + " fails its CRC-32 check (damaged)");
  }
  return manifest;
}

}  // namespace

std::string read_checkpoint_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError("cannot read '" + path + "'");
  return bytes;
}

uint32_t crc32_of(const std::string& bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

std::string checkpoint_rank_file(int rank) { return "rank_" + std::to_string(rank) + ".state"; }

std::vector<std::string> checkpoints_in(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind("epoch_", 0) == 0 && name.find('.') == std::string::npos)
      found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end(), std::greater<>());
  return found;
}

nlohmann::json CheckpointManifest::to_json() const {
  return {{"format", "mlharness checkpoint 1"},
          {"epoch", epoch},
          {"finished", finished},
          {"world_size", world_size},
          {"workload", workload},
          {"seed", seed},
          {"effective_config", effective_config},
          {"log_file", log_file},
          {"record", record_json},
          {"rank_bytes", rank_bytes},
          {"rank_crc32", rank_crc32},
          {"written_utc", written_utc}};
}

CheckpointManifest CheckpointManifest::from_json(const nlohmann::json& json, const std::string& source) {
  try {
    if (!json.is_object() || json.value("format", "") != "mlharness checkpoint 1")
      throw UserError("not an mlharness checkpoint manifest");
    CheckpointManifest m;
    m.epoch = json.at("epoch").get<int64_t>();
    m.finished = json.at("finished").get<bool>();
    m.world_size = json.at("world_size").get<int>();
    m.workload = json.at("workload").get<std::string>();
    m.seed = json.at("seed").get<uint64_t>();
    m.effective_config = json.at("effective_config");
    m.log_file = json.at("log_file").get<std::string>();
    m.record_json = json.at("record").get<std::string>();
    m.rank_bytes = json.at("rank_bytes").get<std::vector<uint64_t>>();
    m.rank_crc32 = json.at("rank_crc32").get<std::vector<uint32_t>>();
    m.written_utc = json.value("written_utc", "");
    if (m.epoch < 1 || m.world_size < 1 || m.rank_bytes.size() != static_cast<size_t>(m.world_size) ||
        m.rank_crc32.size() != static_cast<size_t>(m.world_size))
      throw UserError("epoch, world_size and the rank files do not agree");
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(source + ": " + e.what());
  } catch (const UserError& e) {
    throw UserError(source + ": " + e.what());
  }
}

std::string checkpoint_folder_for_log(const std::string& log_file) {
  const std::string stem = log_file.size() > 4 && log_file.compare(log_file.size() - 4, 4, ".txt") == 0
                               ? log_file.substr(0, log_file.size() - 4)
                               : log_file;
  return stem + ".checkpoints";
}

std::string checkpoint_name(int64_t epoch) {
  char name[32];
  std::snprintf(name, sizeof name, "epoch_%04lld", static_cast<long long>(epoch));
  return name;
}

FoundCheckpoint find_checkpoint(const std::string& path) {
  if (!fs::is_directory(path)) throw UserError("--resume '" + path + "': no such folder");
  FoundCheckpoint found;
  fs::path normal = fs::path(path).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // a trailing slash
  const std::string name = normal.filename().string();
  const bool single = fs::exists(fs::path(path) / kCheckpointManifestFile) || name.rfind("epoch_", 0) == 0;
  const std::vector<std::string> candidates = single ? std::vector<std::string>{path} : checkpoints_in(path);
  if (candidates.empty())
    throw UserError("--resume '" + path + "': no checkpoint in it (folders epoch_NNNN written by --checkpoint-every)");
  for (const std::string& candidate : candidates) {
    try {
      found.manifest = check_checkpoint(candidate);
      found.path = candidate;
      return found;
    } catch (const UserError& e) {
      found.refused.push_back(candidate + ": " + e.what());
    }
  }
  std::string reasons;
  for (const std::string& reason : found.refused) reasons += "; " + reason;
  throw UserError("--resume '" + path + "': no usable checkpoint" + reasons);
}

}  // namespace mlh
