#include "harness/checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#if MLH_WITH_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

#include "base/user_error.h"
#include "harness/results.h"

namespace mlh {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifest = "manifest.json";
constexpr const char* kPartialSuffix = ".partial";

std::string rank_file(int rank) { return "rank_" + std::to_string(rank) + ".state"; }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path.string() + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError("cannot read '" + path.string() + "'");
  return bytes;
}

// The complete checkpoints in a run's folder, newest first.
std::vector<fs::path> checkpoints_in(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind("epoch_", 0) == 0 && name.find('.') == std::string::npos)
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) { return a > b; });
  return found;
}

// The manifest, after checking every rank file against it.
CheckpointManifest check_checkpoint(const fs::path& path) {
  const fs::path manifest_path = path / kManifest;
  if (!fs::exists(manifest_path)) throw UserError("no " + std::string(kManifest) + " (not a finished checkpoint)");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(read_file(manifest_path));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string(kManifest) + " is not JSON: " + e.what());
  }
  CheckpointManifest manifest = CheckpointManifest::from_json(json, manifest_path.string());
  for (int r = 0; r < manifest.world_size; ++r) {
    const fs::path file = path / rank_file(r);
    std::error_code error;
    const auto bytes = fs::file_size(file, error);
    if (error) throw UserError(rank_file(r) + " is missing");
    if (bytes != manifest.rank_bytes[static_cast<size_t>(r)])
      throw UserError(rank_file(r) + " has " + std::to_string(bytes) + " bytes where the manifest says " +
                      std::to_string(manifest.rank_bytes[static_cast<size_t>(r)]) + " (cut short)");
    if (crc32_of(read_file(file)) != manifest.rank_crc32[static_cast<size_t>(r)])
      throw UserError(rank_file(r) + " fails its CRC-32 check (damaged)");
  }
  return manifest;
}

}  // namespace

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

std::string write_checkpoint(const World& world, const std::string& folder, CheckpointManifest manifest,
                             const TrainingState& rank_state, int64_t kept) {
  const fs::path final_path = fs::path(world.broadcast_string(folder)) / checkpoint_name(manifest.epoch);
  const fs::path partial = final_path.string() + kPartialSuffix;
  if (world.is_root()) {
    std::error_code error;
    fs::remove_all(partial, error);
    fs::create_directories(partial, error);
    if (error) throw UserError("cannot create checkpoint folder '" + partial.string() + "': " + error.message());
  }
  world.comm().barrier();

  const std::string bytes = rank_state.to_bytes();
  try {
    write_text_file((partial / rank_file(world.rank())).string(), bytes);
  } catch (...) {
    // The job ends with this error; rank 0 leaves no half-built checkpoint behind.
    std::error_code ignored;
    if (world.is_root()) fs::remove_all(partial, ignored);
    throw;
  }
  const std::vector<double> sizes = world.allgather({static_cast<double>(bytes.size()), static_cast<double>(crc32_of(bytes))});
  if (!world.is_root()) return "";

  try {
    manifest.world_size = world.size();
    manifest.rank_bytes.clear();
    manifest.rank_crc32.clear();
    for (int r = 0; r < world.size(); ++r) {
      manifest.rank_bytes.push_back(static_cast<uint64_t>(sizes[2 * static_cast<size_t>(r)]));
      manifest.rank_crc32.push_back(static_cast<uint32_t>(sizes[2 * static_cast<size_t>(r) + 1]));
    }
    manifest.written_utc = utc_now();
    write_text_file((partial / kManifest).string(), manifest.to_json().dump(1) + "\n");
    std::error_code error;
    fs::remove_all(final_path, error);
    fs::rename(partial, final_path, error);
    if (error) throw UserError("cannot finish checkpoint '" + final_path.string() + "': " + error.message());
    sync_directory(final_path.parent_path().string());
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(partial, ignored);
    throw;
  }
  const std::vector<fs::path> all = checkpoints_in(final_path.parent_path());
  for (size_t i = static_cast<size_t>(std::max<int64_t>(kept, 1)); i < all.size(); ++i) {
    std::error_code ignored;
    fs::remove_all(all[i], ignored);
  }
  return final_path.string();
}

FoundCheckpoint find_checkpoint(const std::string& path) {
  if (!fs::is_directory(path)) throw UserError("--resume '" + path + "': no such folder");
  FoundCheckpoint found;
  fs::path normal = fs::path(path).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // a trailing slash
  const std::string name = normal.filename().string();
  const bool single = fs::exists(fs::path(path) / kManifest) || name.rfind("epoch_", 0) == 0;
  const std::vector<fs::path> candidates = single ? std::vector<fs::path>{fs::path(path)} : checkpoints_in(path);
  if (candidates.empty())
    throw UserError("--resume '" + path + "': no checkpoint in it (folders epoch_NNNN written by --checkpoint-every)");
  for (const fs::path& candidate : candidates) {
    try {
      found.manifest = check_checkpoint(candidate);
      found.path = candidate.string();
      return found;
    } catch (const UserError& e) {
      found.refused.push_back(candidate.string() + ": " + e.what());
    }
  }
  std::string reasons;
  for (const std::string& reason : found.refused) reasons += "; " + reason;
  throw UserError("--resume '" + path + "': no usable checkpoint" + reasons);
}

TrainingState read_rank_state(const std::string& checkpoint_path, int rank) {
  const fs::path file = fs::path(checkpoint_path) / rank_file(rank);
  return TrainingState::from_bytes(read_file(file), file.string());
}

void save_random_streams(TrainingState& state, const torch::Device& device) {
  {
    at::Generator cpu = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(cpu.mutex());
    state.put("random/cpu", cpu.get_state());
  }
#if MLH_WITH_CUDA
  if (device.is_cuda()) {
    at::Generator gpu = at::cuda::detail::getDefaultCUDAGenerator(device.index());
    std::lock_guard<std::mutex> lock(gpu.mutex());
    state.put("random/cuda", gpu.get_state());
  }
#endif
}

void restore_random_streams(const TrainingState& state, const torch::Device& device) {
  {
    at::Generator cpu = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(cpu.mutex());
    cpu.set_state(state.get("random/cpu"));
  }
#if MLH_WITH_CUDA
  if (device.is_cuda()) {
    at::Generator gpu = at::cuda::detail::getDefaultCUDAGenerator(device.index());
    std::lock_guard<std::mutex> lock(gpu.mutex());
    gpu.set_state(state.get("random/cuda"));
  }
#endif
}

}  // namespace mlh
