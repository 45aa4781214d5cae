// Where the translation workloads (Transformer, GNMT) read their data, with the same keys in both: a
// data folder, or the generated corpus they train on when data_source is synthetic, written once by
// the root rank under --data-dir, then prepared in the workload's own `mlharness prepare` format so
// it reaches the real loader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/wmt/kept_pairs.h"
#include "datasets/wmt/prepare.h"
#include "harness/settings.h"
#include "harness/world.h"

namespace mlh {

struct SyntheticTranslationCorpus {
  int64_t pairs = 20000;
  int64_t data_seed = 1;
  int64_t dev_pairs = 200;
  int64_t test_pairs = 500;

  // Binds synthetic_pairs (>= 1), synthetic_data_seed, synthetic_dev_pairs (>= 0) and
  // synthetic_test_pairs (>= 1).
  void bind(ConfigMap& config);

  // The prepared folder, data_root/wmt-synthetic-p<pairs>-d<seed>-<subword_tag>-e<dev>-t<test>, on
  // every rank. The root rank writes the raw corpus (once) and runs prepare_translation_data with
  // `options` (format and subword keys set by the caller) when the folder does not exist yet.
  std::filesystem::path prepare(const World& world, const std::filesystem::path& data_root,
                                const std::string& subword_tag, wmt::PrepareOptions options) const;
};

// Where a translation workload's data comes from: data_source names a data folder at data_path (the
// real corpus or `mlharness prepare` output) or `synthetic` (the corpus above, prepared under
// --data-dir); length_policy says what becomes of pairs longer than the workload's max_length.
struct TranslationDataSettings {
  enum class Source { kFolder, kSynthetic };

  Source data_source = Source::kFolder;
  std::string data_path;
  SyntheticTranslationCorpus synthetic;
  wmt::LengthPolicy length_policy = wmt::LengthPolicy::kDiscard;

  // `folder_source`: data_source's name for the folder ("wmt"); `folder_description`: what the folder
  // holds, for the help; `workload`: the name `mlharness prepare --workload` takes.
  TranslationDataSettings(std::string folder_source, std::string folder_description, std::string workload);

  void bind(ConfigMap& config);
  // Throws UserError when data_source is the folder and data_path is empty.
  void validate() const;

  // The data folder on every rank: data_path, or the synthetic corpus prepared (SyntheticTranslationCorpus::prepare).
  std::filesystem::path folder(const World& world, const std::filesystem::path& data_root,
                               const std::string& subword_tag, wmt::PrepareOptions options) const;

 private:
  std::string folder_source_;
  std::string folder_description_;
  std::string workload_;
};

// The regular files directly in `folder` (none when it cannot be read): a workload's data_files().
std::vector<std::string> regular_files_in(const std::filesystem::path& folder);

}  // namespace mlh
