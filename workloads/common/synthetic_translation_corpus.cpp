#include "workloads/common/synthetic_translation_corpus.h"

#include <system_error>

#include "compliance/user_error.h"
#include "datasets/wmt/synthetic_corpus.h"

namespace mlh {

namespace fs = std::filesystem;

void SyntheticTranslationCorpus::bind(ConfigMap& config) {
  config.bind("synthetic_pairs", pairs, "synthetic: sentence pairs generated (train + dev + test)");
  config.bind("synthetic_data_seed", data_seed, "synthetic: seed of the corpus (not the run seed)");
  config.bind("synthetic_dev_pairs", dev_pairs, "synthetic: pairs held out as the dev split");
  config.bind("synthetic_test_pairs", test_pairs, "synthetic: pairs held out as the BLEU test set");
}

void SyntheticTranslationCorpus::validate() const {
  if (pairs < 1 || dev_pairs < 0 || test_pairs < 1)
    throw UserError("keys 'synthetic_pairs' >= 1, 'synthetic_dev_pairs' >= 0 and 'synthetic_test_pairs' >= 1 (got " +
                    std::to_string(pairs) + ", " + std::to_string(dev_pairs) + ", " + std::to_string(test_pairs) +
                    ")");
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

std::vector<std::string> regular_files_in(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(folder, ignored))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  return files;
}

}  // namespace mlh
