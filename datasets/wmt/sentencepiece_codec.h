// SentencePiece subwords: the vocabulary `mlharness prepare` trains on raw parallel text, one joint
// model for source and target (the reference's vocabulary is joint too). Ids keep the t2t convention
// of subword_codec.h: 0 = padding, 1 = end of sentence, 2 = unknown, no begin-of-sentence id.
// decode skips ids outside the vocabulary (a model's padded embedding rows), as the t2t codec does.
//
// libsentencepiece runs in a separate module (mlh_sentencepiece, a C interface) that is opened with
// dlopen on first use, so its bundled protobuf never meets LibTorch's. The module is looked for next
// to the running executable, in ../datasets from there, then where the build put it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "datasets/wmt/subword_codec.h"

namespace mlh::wmt {

// A trained model (spm.model). Throws UserError naming the file when it is missing, unreadable, not a
// SentencePiece model, or trained with other special ids than pad 0 / EOS 1 / no BOS; and when the
// module cannot be found or opened.
std::unique_ptr<SubwordCodec> load_sentencepiece_codec(const std::filesystem::path& model_file);

struct SentencePieceTraining {
  // A soft limit (hard_vocab_limit=false): a small corpus gets fewer pieces instead of an error. It
  // must exceed the number of distinct characters plus 3 specials (character_coverage is 1.0).
  int64_t vocabulary_size = 32768;
  uint64_t seed = 1;
  // At most this many sentences are used, a seeded sample when the files hold more; 0 = all.
  int64_t max_sentences = 10'000'000;
};

// Trains a unigram model on the non-empty lines of `text_files` (UTF-8, one sentence per line) and
// writes "<model_prefix>.model" (no .vocab file). Deterministic: the same lines, options and seed give
// the same bytes on every machine (the trainer's thread count is fixed, not taken from the machine).
// Throws UserError naming the files for a missing file, no text, or a vocabulary_size the corpus
// cannot satisfy.
void train_sentencepiece_model(const std::vector<std::filesystem::path>& text_files,
                               const std::filesystem::path& model_prefix,
                               const SentencePieceTraining& training);

}  // namespace mlh::wmt
