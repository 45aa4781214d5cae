// Text <-> subword ids. Implementations: the Tensor2Tensor subword vocabulary the MLPerf
// transformer ships (t2t_subword_codec.h) and a SentencePiece model `mlharness prepare` trains
// (sentencepiece_codec.h). Both keep the t2t id convention: 0 = padding, 1 = end of sentence.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "datasets/wmt/sentence_pair.h"

namespace mlh::wmt {

inline constexpr int32_t kPadId = 0;
inline constexpr int32_t kEosId = 1;

class SubwordCodec {
 public:
  virtual ~SubwordCodec() = default;
  // Number of ids, specials included; every id a codec produces is below it.
  virtual int64_t vocabulary_size() const = 0;
  // One raw sentence (no newline) -> ids, EOS appended.
  virtual TokenIds encode(const std::string& text) const = 0;
  // Ids -> detokenised text; stops at the first EOS, skips padding.
  virtual std::string decode(const TokenIds& ids) const = 0;
  // What the data folder holds, for logs and errors, e.g. "t2t subwords vocab.ende.32768".
  virtual std::string describe() const = 0;
};

}  // namespace mlh::wmt
