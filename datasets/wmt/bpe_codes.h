// Byte pair encoding as subword-nmt does it (rsennrich/subword-nmt at 48ba99e, the commit the
// MLPerf GNMT reference's download_dataset.sh pins): learn_bpe.py's merges with its default
// options, apply_bpe.py's segmentation (no vocabulary filter, no glossaries, no dropout) and
// get_vocab.py's token counts. GNMT learns 32,000 merges on the tokenized training text of both
// languages at once.
//
// Input is Moses-tokenized text given line by line (no '\n'): tokens are separated by single spaces
// only, and each line first loses leading and trailing '\r', '\n' and ' ', as the scripts treat a
// line. Splitting a file into lines is the caller's business; the scripts' Python readers also
// break lines at '\r' (and learn_bpe/get_vocab at Unicode line separators), which Moses output does
// not contain. A symbol is one Unicode code point before merging. Text that is not UTF-8 throws
// UserError naming the line (the scripts fail to decode it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace mlh::wmt {

// Marks the end of a word inside merges ("#version: 0.2": glued to the word's last symbol).
inline constexpr char kBpeEndOfWord[] = "</w>";
// Ends every piece of a segmented word but its last ("Straß@@ e").
inline constexpr char kBpeSeparator[] = "@@";

// Python's str.isspace() for one code point: what str.split() and the regex \s treat as whitespace.
bool is_python_whitespace(char32_t c);

struct BpeMerge {
  std::string first;
  std::string second;
  bool operator==(const BpeMerge& other) const {
    return first == other.first && second == other.second;
  }
};

struct BpeCodes {
  enum class Version {
    k01,  // no header; "</w>" is a symbol of its own
    k02,  // "#version: 0.2"; "</w>" ends the last character
  };
  Version version = Version::k02;
  std::vector<BpeMerge> merges;  // by rank: earlier merges apply first
};

// learn_bpe.py -s num_merges: words are counted over all lines; each round merges the most frequent
// adjacent symbol pair (ties: the greater pair, comparing first then second symbol by code points),
// stopping early once the best pair occurs fewer than min_frequency times. Pair counts are kept
// incrementally and pruned exactly as learn_bpe.py keeps them, so even its approximations match:
// counts pushed below the pruning threshold and raised again, and merging by its regular
// expression, which also fires where a symbol ends in whitespace other than ' ' (e.g. a no-break
// space) before `first`. Text without a word of two or more characters gives no merges
// (learn_bpe.py crashes).
BpeCodes learn_bpe_codes(const std::vector<std::string>& lines, int64_t num_merges,
                         int64_t min_frequency = 2);

// The codes file as learn_bpe.py writes it: "#version: 0.2" (none for version 0.1), then "first
// second" per merge. Throws UserError when the file cannot be written.
void write_bpe_codes(const std::filesystem::path& file, const BpeCodes& codes);

// As apply_bpe.py reads it: a first line "#version: X" gives the version (0.1 and 0.2; trailing
// ".0"s ignored), without it the file is version 0.1 and its first line a merge. Each merge line,
// once '\r', '\n' and ' ' are stripped from its ends, must be two symbols and one space. A merge
// listed again keeps its first rank. Throws UserError naming the file (and line, from 1) when it is
// missing or unreadable, not UTF-8, of another version, or a line is not one merge.
BpeCodes read_bpe_codes(const std::filesystem::path& file);

// apply_bpe.py -c codes: each word is cut into characters (the last with "</w>" in version 0.2) and
// the pair of lowest rank is merged everywhere in it (left to right, not overlapping) until no pair
// has a rank; "</w>" is then removed from the last piece (every occurrence of it, as 48ba99e does)
// and all pieces but the last get kBpeSeparator. Leading and trailing whitespace of the line
// ('\r', '\n', ' ') is kept as it was, runs of spaces inside become one.
class BpeEncoder {
 public:
  explicit BpeEncoder(const BpeCodes& codes);

  // One line without its '\n'. Throws UserError for text that is not UTF-8 (naming the byte;
  // callers add their file and line). Not thread-safe: it caches each word's pieces.
  std::string apply(const std::string& line);
  // One word (no spaces) -> its pieces, without separators.
  const std::vector<std::string>& segment_word(const std::string& word);

 private:
  const std::vector<std::string>& segment(const std::string& word, size_t offset_in_line);

  BpeCodes::Version version_;
  std::unordered_map<std::string, int64_t> ranks_;  // "first second" -> rank
  std::unordered_map<std::string, std::vector<std::string>> cache_;
};

struct BpeTokenCount {
  std::string token;
  int64_t count = 0;
  bool operator==(const BpeTokenCount& other) const {
    return token == other.token && count == other.count;
  }
};

// get_vocab.py: how often each space-separated token occurs in `lines`, most frequent first, equal
// counts in order of first occurrence. GNMT's vocab.bpe.32000 is the token column of this list over
// the BPE'd training text, English then German. Throws UserError naming a line that is not UTF-8.
std::vector<BpeTokenCount> count_bpe_tokens(const std::vector<std::string>& lines);

}  // namespace mlh::wmt
