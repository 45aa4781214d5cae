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

constexpr const char* kPartialSuffix = ".partial";

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

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
    write_text_file((partial / checkpoint_rank_file(world.rank())).string(), bytes);
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
    write_text_file((partial / kCheckpointManifestFile).string(), manifest.to_json().dump(1) + "\n");
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
  const std::vector<std::string> all = checkpoints_in(final_path.parent_path().string());
  for (size_t i = static_cast<size_t>(std::max<int64_t>(kept, 1)); i < all.size(); ++i) {
    std::error_code ignored;
    fs::remove_all(all[i], ignored);
  }
  return final_path.string();
}

TrainingState read_rank_state(const std::string& checkpoint_path, int rank) {
  const fs::path file = fs::path(checkpoint_path) / checkpoint_rank_file(rank);
  return TrainingState::from_bytes(read_checkpoint_file(file.string()), file.string());
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
