// Reading the checkpoints that mini runs made with `--checkpoint-every 1` leave under
// <the e2e runs folder>/<run>/results (test_paths.h): the newest one's manifest and each rank's state
// (harness/checkpoint.h, harness/training_state.h), and what two states hold alike.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/training_state.h"
#include "tests/test_paths.h"

namespace mlh {

struct RunCheckpoint {
  std::filesystem::path path;          // .../result_0.checkpoints/epoch_<eeee>
  nlohmann::json manifest;
  std::vector<TrainingState> ranks;    // rank_<r>.state, r = 0 ... world_size - 1
};

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The newest epoch_<eeee> checkpoint of the run (one per run: the run leaves one log).
inline RunCheckpoint last_checkpoint_of(const std::string& run) {
  namespace fs = std::filesystem;
  RunCheckpoint last;
  const fs::path results = fs::path(test_paths::e2e_runs_dir()) / run / "results";
  if (fs::exists(results))
    for (const auto& entry : fs::recursive_directory_iterator(results))
      if (entry.is_directory() && entry.path().filename().string().rfind("epoch_", 0) == 0 &&
          fs::exists(entry.path() / "manifest.json") && entry.path().filename() > last.path.filename())
        last.path = entry.path();
  EXPECT_FALSE(last.path.empty()) << "run " << run << " left no checkpoint (--checkpoint-every 1)";
  if (last.path.empty()) return last;
  last.manifest = nlohmann::json::parse(file_text(last.path / "manifest.json"));
  const int ranks = last.manifest.at("world_size").get<int>();
  for (int r = 0; r < ranks; ++r) {
    const fs::path file = last.path / ("rank_" + std::to_string(r) + ".state");
    last.ranks.push_back(TrainingState::from_bytes(file_text(file), file.string()));
  }
  return last;
}

inline std::vector<uint32_t> rank_crcs(const RunCheckpoint& checkpoint) {
  return checkpoint.manifest.at("rank_crc32").get<std::vector<uint32_t>>();
}

// The entries of two states, except those whose names start with one of `skipped`.
struct StateDifference {
  std::vector<std::string> compared;
  std::vector<std::string> differing;  // in one only, or another dtype, shape or any bit
  int64_t model_elements = 0;          // floating-point elements of the "model/" entries in both
  int64_t differing_model_elements = 0;
};

inline StateDifference compare_states(const TrainingState& a, const TrainingState& b,
                                      const std::vector<std::string>& skipped = {}) {
  const auto is_skipped = [&](const std::string& name) {
    for (const std::string& prefix : skipped)
      if (name.rfind(prefix, 0) == 0) return true;
    return false;
  };
  StateDifference d;
  for (const auto& [name, tensor] : a.tensors()) {
    if (is_skipped(name)) continue;
    d.compared.push_back(name);
    if (!b.contains(name)) {
      d.differing.push_back(name);
      continue;
    }
    const torch::Tensor& other = b.get(name);
    const bool same_kind = tensor.scalar_type() == other.scalar_type() && tensor.sizes() == other.sizes();
    if (!same_kind || !torch::equal(tensor, other)) d.differing.push_back(name);
    if (same_kind && name.rfind("model/", 0) == 0 && tensor.is_floating_point()) {
      d.model_elements += tensor.numel();
      d.differing_model_elements += tensor.ne(other).sum().item<int64_t>();
    }
  }
  for (const auto& entry : b.tensors())
    if (!is_skipped(entry.first) && !a.contains(entry.first)) d.differing.push_back(entry.first);
  return d;
}

inline std::string names(const std::vector<std::string>& list, size_t at_most = 8) {
  std::string text;
  for (size_t i = 0; i < list.size() && i < at_most; ++i) text += (i ? ", " : "") + list[i];
  if (list.size() > at_most) text += ", ... (" + std::to_string(list.size()) + " in all)";
  return text;
}

}  // namespace mlh
