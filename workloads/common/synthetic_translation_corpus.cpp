#include "workloads/common/synthetic_translation_corpus.h"

#include <system_error>
#include <utility>

#include "base/user_error.h"
#include "datasets/wmt/synthetic_corpus.h"

namespace mlh {

namespace fs = std::filesystem;

void SyntheticTranslationCorpus::bind(ConfigMap& config) {
  config.bind("synthetic_pairs", pairs, "synthetic: sentence pairs generated (train + dev + test)", at_least(1));
  config.bind("synthetic_data_seed", data_seed, "synthetic: seed of the corpus (not the run seed)");
  config.bind("synthetic_dev_pairs", dev_pairs, "synthetic: pairs held out as the dev split", at_least(0));
  config.bind("synthetic_test_pairs", test_pairs, "synthetic: pairs held out as the BLEU test set", at_least(1));
}

fs::path SyntheticTranslationCorpus::prepare(const World& world, const fs::path& data_root,
                                             const std::string& subword_tag, wmt::PrepareOptions options) const {
  const std::string corpus = "wmt-synthetic-p" + std::to_string(pairs) + "-d" + std::to_string(data_seed);
  const fs::path folder = data_root / (corpus + "-" + subword_tag + "-e" + std::to_string(dev_pairs) + "-t" +
                                       std::to_string(test_pairs));
  if (!world.is_root() || fs::exists(folder)) return folder;
  const fs::path raw = data_root / (corpus + "-raw");
  options.source_file = raw / "train.en";
  options.target_file = raw / "train.de";
  if (!fs::exists(options.target_file))
    wmt::write_synthetic_parallel_corpus({pairs, static_cast<uint64_t>(data_seed)}, options.source_file,
                                         options.target_file);
  options.out_dir = folder;
  options.dev_pairs = dev_pairs;
  options.test_pairs = test_pairs;
  options.seed = static_cast<uint64_t>(data_seed);
  wmt::prepare_translation_data(options);
  return folder;
}

TranslationDataSettings::TranslationDataSettings(std::string folder_source, std::string folder_description,
                                                 std::string workload)
    : folder_source_(std::move(folder_source)),
      folder_description_(std::move(folder_description)),
      workload_(std::move(workload)) {}

void TranslationDataSettings::bind(ConfigMap& config) {
  config.bind_choice("data_source", data_source,
                     folder_source_ + " (a data folder at data_path" + folder_description_ +
                         ") or synthetic (a generated corpus, prepared under --data-dir)",
                     Choices<Source>{{folder_source_, Source::kFolder}, {"synthetic", Source::kSynthetic}});
  config.bind("data_path", data_path, folder_source_ + ": the data folder");
  synthetic.bind(config);
  config.bind_choice("length_policy", length_policy, "longer pairs: discard (the reference) or truncate",
                     Choices<wmt::LengthPolicy>{{"discard", wmt::LengthPolicy::kDiscard},
                                                {"truncate", wmt::LengthPolicy::kTruncate}});
}

void TranslationDataSettings::validate() const {
  if (data_source == Source::kFolder && data_path.empty())
    throw UserError("key 'data_path' is empty; data_source " + folder_source_ +
                    " reads its folder from there (--set data_path=DIR, or prepare one with `mlharness prepare "
                    "--workload " + workload_ + "`)");
}

fs::path TranslationDataSettings::folder(const World& world, const fs::path& data_root, const std::string& subword_tag,
                                         wmt::PrepareOptions options) const {
  if (data_source == Source::kFolder) return data_path;
  return synthetic.prepare(world, data_root, subword_tag, std::move(options));
}

std::vector<std::string> regular_files_in(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(folder, ignored))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  return files;
}

}  // namespace mlh
