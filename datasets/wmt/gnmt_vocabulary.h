// The MLPerf GNMT reference's vocabulary (rnn_translator seq2seq/data/tokenizer.py and config.py):
// ids 0..3 are the specials below, then one id per line of vocab.bpe.32000 (get_vocab.py's token
// column, bpe_codes.h), then made-up tokens "madeupword0000", "madeupword0001", ... up to a
// multiple of pad_to_multiple (the reference pads to 8 in fp16 and to 1 in fp32). Text is BPE'd
// with "@@ ".
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace mlh::wmt {

inline constexpr int32_t kGnmtPadId = 0;
inline constexpr int32_t kGnmtUnkId = 1;
inline constexpr int32_t kGnmtBosId = 2;
inline constexpr int32_t kGnmtEosId = 3;
inline constexpr char kGnmtPadToken[] = "<pad>";
inline constexpr char kGnmtUnkToken[] = "<unk>";
inline constexpr char kGnmtBosToken[] = "<s>";
inline constexpr char kGnmtEosToken[] = "<\\s>";  // sic: a backslash, as config.py spells it

class GnmtVocabulary {
 public:
  // `tokens` as the vocabulary file lists them, without the specials. A token listed twice (or
  // named like a special or made-up token) keeps both ids, and id() gives the last, as the
  // reference's dict does. Throws UserError for no tokens, an empty token, one with whitespace
  // inside (it could never match a word of a line; the reference keeps it), and a pad_to_multiple
  // outside 1..2^20.
  explicit GnmtVocabulary(std::vector<std::string> tokens, int64_t pad_to_multiple = 1);

  // One token per line; each line is stripped of surrounding whitespace as the reference strips it.
  // Throws UserError naming the file (and line, from 1) when it is missing, unreadable, not UTF-8,
  // has no line, or a line breaks the rules above.
  static GnmtVocabulary load(const std::filesystem::path& file, int64_t pad_to_multiple = 1);

  // Specials, file tokens and padding.
  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  const std::string& token(int32_t id) const;  // MLH_ASSERT: id in [0, size())
  // kGnmtUnkId for a token outside the vocabulary.
  int32_t id(const std::string& token) const;

  // The reference's segment(): the line is split at whitespace (Python's str.split()), each token
  // looked up (unknown -> kGnmtUnkId), and kGnmtBosId / kGnmtEosId are put before and after, so an
  // empty line gives {BOS, EOS}. Throws UserError for text that is not UTF-8 (naming the byte;
  // callers add their file and line).
  std::vector<int32_t> encode(const std::string& bpe_line) const;

  // The reference's detokenize(): the ids' tokens joined by spaces, then every "@@ " and "@@"
  // removed, then every "<s>", "<\s>" and "<pad>" (anywhere, not only whole tokens, and without
  // stopping at EOS), then surrounding whitespace stripped; "<unk>" and made-up tokens stay. An id
  // outside [0, size()) is a bug of the caller: MLH_ASSERT (the reference fails on it too).
  std::string decode(const std::vector<int32_t>& ids) const;

 private:
  GnmtVocabulary() = default;
  // `origin`: the file the tokens are the lines of, for messages; empty when given as a list.
  void build(std::vector<std::string> tokens, int64_t pad_to_multiple, const std::string& origin);

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
};

}  // namespace mlh::wmt
