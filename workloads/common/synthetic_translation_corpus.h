// The generated corpus the translation workloads (Transformer, GNMT) train on when data_source is
// synthetic: the same keys in both, written once by the root rank under --data-dir, then prepared by
// the workload's own `mlharness prepare` format so it reaches the real loader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/wmt/prepare.h"
#include "harness/settings.h"
#include "harness/world.h"

namespace mlh {

struct SyntheticTranslationCorpus {
  int64_t pairs = 20000;
  int64_t data_seed = 1;
  int64_t dev_pairs = 200;
  int64_t test_pairs = 500;

  // Binds synthetic_pairs, synthetic_data_seed, synthetic_dev_pairs and synthetic_test_pairs.
  void bind(ConfigMap& config);
  // Throws UserError unless pairs >= 1, dev_pairs >= 0 and test_pairs >= 1.
  void validate() const;

  // The prepared folder, data_root/wmt-synthetic-p<pairs>-d<seed>-<subword_tag>-e<dev>-t<test>, on
  // every rank. The root rank writes the raw corpus (once) and runs prepare_translation_data with
  // `options` (format and subword keys set by the caller) when the folder does not exist yet.
  std::filesystem::path prepare(const World& world, const std::filesystem::path& data_root,
                                const std::string& subword_tag, wmt::PrepareOptions options) const;
};

// The regular files directly in `folder` (none when it cannot be read): a workload's data_files().
std::vector<std::string> regular_files_in(const std::filesystem::path& folder);

}  // namespace mlh
