// `mlharness prepare --workload transformer|gnmt --src train.en --tgt train.de --out DIR [...]`: the
// translation workloads' prepare step (datasets/wmt/prepare.h), its options bound like settings
// (the flag --dev-pairs is the key dev_pairs). The Transformer adds --vocabulary-size (its
// SentencePiece model), GNMT --bpe-merges.
#pragma once

#include <string>

#include "datasets/wmt/prepare.h"
#include "harness/settings.h"

namespace mlh {

class TranslationPrepare {
 public:
  explicit TranslationPrepare(wmt::TranslationFormat format);
  void bind(ConfigMap& options);
  // Writes the folder; returns what was written and the command that trains on it. Throws UserError
  // for a missing --src, --tgt or --out and for what prepare_translation_data rejects.
  std::string run(const std::string& workload) const;

 private:
  wmt::PrepareOptions options_;
  std::string source_file_, target_file_, out_dir_;
  int64_t seed_ = 1;
};

}  // namespace mlh
