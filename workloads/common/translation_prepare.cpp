#include "workloads/common/translation_prepare.h"

#include "base/user_error.h"

namespace mlh {

TranslationPrepare::TranslationPrepare(wmt::TranslationFormat format) { options_.format = format; }

void TranslationPrepare::bind(ConfigMap& c) {
  c.bind("src", source_file_, "source-language text, one sentence per line (UTF-8)");
  c.bind("tgt", target_file_, "its translations, line by line");
  c.bind("out", out_dir_, "the data folder to write (must not exist, or be empty)");
  if (options_.format == wmt::TranslationFormat::kTransformer)
    c.bind("vocabulary_size", options_.vocabulary_size, "SentencePiece vocabulary size (a soft limit)");
  else
    c.bind("bpe_merges", options_.bpe_merges, "BPE merges learned (the reference: 32000)");
  c.bind("dev_pairs", options_.dev_pairs, "pairs held out as the dev split");
  c.bind("test_pairs", options_.test_pairs, "pairs held out as the BLEU test set");
  c.bind("seed", seed_, "seed of the held-out draw (and the SentencePiece sample)");
}

std::string TranslationPrepare::run(const std::string& workload) const {
  for (const auto& [flag, value] : {std::pair{"src", &source_file_}, {"tgt", &target_file_}, {"out", &out_dir_}})
    if (value->empty()) throw UserError(std::string("prepare needs --") + flag + " (see --help)");
  if (seed_ < 0) throw UserError("prepare --seed must be a non-negative integer");
  wmt::PrepareOptions options = options_;
  options.source_file = source_file_;
  options.target_file = target_file_;
  options.out_dir = out_dir_;
  options.seed = static_cast<uint64_t>(seed_);
  const wmt::PrepareSummary summary = wmt::prepare_translation_data(options);
  return wmt::describe(summary, options.out_dir) + "train with: mlharness --workload " + workload +
         " --set data_path=" + out_dir_ + "\n";
}

}  // namespace mlh
