#include "datasets/wmt/bpe_codes.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>

#include "base/user_error.h"
#include "datasets/wmt/utf8.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kEndOfWord = kBpeEndOfWord;
constexpr std::string_view kVersionPrefix = "#version:";
constexpr std::string_view kLineStripChars = "\r\n ";

// The text between the leading and trailing '\r', '\n' and ' ' of a line.
std::string_view strip_line(std::string_view line) {
  const size_t begin = line.find_first_not_of(kLineStripChars);
  if (begin == std::string_view::npos) return {};
  const size_t end = line.find_last_not_of(kLineStripChars);
  return line.substr(begin, end - begin + 1);
}

// Calls `visit(token, offset)` for each non-empty ' '-separated token of the stripped line.
template <typename Visit>
void for_each_token(std::string_view line, Visit&& visit) {
  const std::string_view stripped = strip_line(line);
  const size_t base = stripped.empty() ? 0 : static_cast<size_t>(stripped.data() - line.data());
  size_t start = 0;
  while (start <= stripped.size()) {
    size_t end = stripped.find(' ', start);
    if (end == std::string_view::npos) end = stripped.size();
    if (end > start) visit(stripped.substr(start, end - start), base + start);
    start = end + 1;
  }
}

// The code points of `word` as UTF-8 strings; false with the offset of the first bad byte.
bool split_characters(std::string_view word, std::vector<std::string>& characters,
                      size_t& bad_offset) {
  characters.clear();
  return for_each_code_point(word, bad_offset, [&](char32_t, size_t start, size_t bytes) {
    characters.emplace_back(word.substr(start, bytes));
    return true;
  });
}

bool valid_utf8(std::string_view text, size_t& bad_offset) {
  return for_each_code_point(text, bad_offset, [](char32_t, size_t, size_t) { return true; });
}

// The code point that ends just before `position` (valid UTF-8 assumed).
char32_t code_point_before(std::string_view text, size_t position) {
  size_t start = position - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  auto i = static_cast<int32_t>(start);
  UChar32 c = 0;
  U8_NEXT(bytes, i, static_cast<int32_t>(text.size()), c);
  return static_cast<char32_t>(c);
}

char32_t code_point_at(std::string_view text, size_t position) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  auto i = static_cast<int32_t>(position);
  UChar32 c = 0;
  U8_NEXT(bytes, i, static_cast<int32_t>(text.size()), c);
  return static_cast<char32_t>(c);
}

// ---- learning ----

using SymbolId = int32_t;
using PairKey = uint64_t;

PairKey pair_key(SymbolId first, SymbolId second) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(first)) << 32) |
         static_cast<uint32_t>(second);
}
SymbolId first_of(PairKey pair) { return static_cast<SymbolId>(pair >> 32); }
SymbolId second_of(PairKey pair) { return static_cast<SymbolId>(pair & 0xFFFFFFFFu); }

struct Word {
  std::vector<SymbolId> symbols;
  int64_t frequency = 0;
};

struct Change {
  int32_t word;
  std::vector<SymbolId> old_symbols;
};

// learn_bpe.py's state: the words as symbol sequences, pair counts (`stats_`, pruned below a
// threshold for speed, with `big_stats_` holding what was pruned) and, per pair, how often it
// occurs in each word.
class Learner {
 public:
  explicit Learner(const std::vector<std::string>& lines) { count_words(lines); }

  BpeCodes learn(int64_t num_merges, int64_t min_frequency) {
    BpeCodes codes;
    codes.version = BpeCodes::Version::k02;
    count_pairs();
    if (stats_.empty()) return codes;
    big_stats_ = stats_;
    int64_t highest = std::numeric_limits<int64_t>::min();
    for (const auto& [pair, count] : stats_) highest = std::max(highest, count);
    double threshold = static_cast<double>(highest) / 10.0;

    PairKey best = 0;
    for (int64_t i = 0; i < num_merges; ++i) {
      if (!stats_.empty()) best = most_frequent();
      if (stats_.empty() || (i > 0 && static_cast<double>(stats_[best]) < threshold)) {
        // The best pair may have been pruned: start again from the full counts.
        prune(threshold);
        stats_ = big_stats_;
        best = most_frequent();
        threshold = static_cast<double>(stats_[best] * i) / (static_cast<double>(i) + 10000.0);
        prune(threshold);
      }
      if (stats_[best] < min_frequency) break;

      codes.merges.push_back({text(first_of(best)), text(second_of(best))});
      const std::vector<Change> changes = replace_pair(best);
      update_pair_statistics(best, changes);
      stats_[best] = 0;
      if (i % 100 == 0) prune(threshold);
    }
    return codes;
  }

 private:
  SymbolId intern(const std::string& symbol) {
    const auto [it, inserted] =
        symbol_ids_.try_emplace(symbol, static_cast<SymbolId>(texts_.size()));
    if (inserted) texts_.push_back(symbol);
    return it->second;
  }
  const std::string& text(SymbolId symbol) const { return texts_[static_cast<size_t>(symbol)]; }

  void count_words(const std::vector<std::string>& lines) {
    std::unordered_map<std::string, int32_t> word_index;
    std::vector<std::string> characters;
    for (size_t line = 0; line < lines.size(); ++line) {
      for_each_token(lines[line], [&](std::string_view token, size_t offset) {
        const auto [it, inserted] =
            word_index.try_emplace(std::string(token), static_cast<int32_t>(words_.size()));
        if (!inserted) {
          ++words_[static_cast<size_t>(it->second)].frequency;
          return;
        }
        size_t bad = 0;
        if (!split_characters(token, characters, bad)) {
          throw UserError("BPE training text line " + std::to_string(line + 1) +
                          ": invalid UTF-8 at byte " + std::to_string(offset + bad + 1) +
                          " of the line; convert the text to UTF-8");
        }
        characters.back() += kEndOfWord;
        Word word;
        word.frequency = 1;
        for (const std::string& character : characters) word.symbols.push_back(intern(character));
        words_.push_back(std::move(word));
      });
    }
  }

  void count_pairs() {
    for (size_t w = 0; w < words_.size(); ++w) {
      const Word& word = words_[w];
      for (size_t k = 1; k < word.symbols.size(); ++k) {
        const PairKey pair = pair_key(word.symbols[k - 1], word.symbols[k]);
        stats_[pair] += word.frequency;
        indices_[pair][static_cast<int32_t>(w)] += 1;
      }
    }
  }

  // The greatest (count, first symbol, second symbol).
  PairKey most_frequent() const {
    auto best = stats_.begin();
    for (auto it = std::next(best); it != stats_.end(); ++it) {
      if (it->second > best->second) {
        best = it;
      } else if (it->second == best->second) {
        const int by_first = text(first_of(it->first)).compare(text(first_of(best->first)));
        if (by_first > 0 ||
            (by_first == 0 &&
             text(second_of(it->first)).compare(text(second_of(best->first))) > 0)) {
          best = it;
        }
      }
    }
    return best->first;
  }

  // Moves counts below `threshold` out of stats_ into big_stats_ (adding what went negative while
  // pruned, replacing the rest).
  void prune(double threshold) {
    for (auto it = stats_.begin(); it != stats_.end();) {
      if (static_cast<double>(it->second) < threshold) {
        if (it->second < 0) {
          big_stats_[it->first] += it->second;
        } else {
          big_stats_[it->first] = it->second;
        }
        it = stats_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Merges `pair` in every word the index lists, as learn_bpe.py's regular expression does on the
  // word's symbols joined by spaces: "first second" where it is neither preceded nor followed by a
  // non-whitespace character.
  std::vector<Change> replace_pair(PairKey pair) {
    // Copies: interning below may move the symbol texts.
    const std::string first = text(first_of(pair));
    const std::string second = text(second_of(pair));
    const std::string pattern = first + ' ' + second;
    const std::string merged = first + second;
    std::vector<Change> changes;
    std::string joined;
    std::string replaced;
    for (const auto& [w, occurrences] : indices_[pair]) {
      if (occurrences < 1) continue;
      Word& word = words_[static_cast<size_t>(w)];
      joined.clear();
      for (size_t k = 0; k < word.symbols.size(); ++k) {
        if (k > 0) joined += ' ';
        joined += text(word.symbols[k]);
      }
      replaced.clear();
      size_t copied = 0;
      size_t search = 0;
      for (size_t found; (found = joined.find(pattern, search)) != std::string::npos;) {
        const size_t end = found + pattern.size();
        const bool free_before =
            found == 0 || is_python_whitespace(code_point_before(joined, found));
        const bool free_after =
            end == joined.size() || is_python_whitespace(code_point_at(joined, end));
        if (free_before && free_after) {
          replaced.append(joined, copied, found - copied);
          replaced += merged;
          copied = search = end;
        } else {
          search = found + 1;
        }
      }
      replaced.append(joined, copied, std::string::npos);

      Change change{w, std::move(word.symbols)};
      word.symbols.clear();
      size_t start = 0;
      while (true) {
        size_t space = replaced.find(' ', start);
        if (space == std::string::npos) space = replaced.size();
        word.symbols.push_back(intern(replaced.substr(start, space - start)));
        if (space == replaced.size()) break;
        start = space + 1;
      }
      changes.push_back(std::move(change));
    }
    return changes;
  }

  void adjust(PairKey pair, int32_t word, int64_t frequency, int sign) {
    stats_[pair] += sign * frequency;
    indices_[pair][word] += sign;
  }

  // learn_bpe.py's update_pair_statistics, step for step: takes away the pairs around each old
  // occurrence of `pair` and adds those around each new symbol.
  void update_pair_statistics(PairKey pair, const std::vector<Change>& changes) {
    stats_[pair] = 0;
    indices_[pair].clear();
    const SymbolId first = first_of(pair);
    const SymbolId second = second_of(pair);
    const SymbolId merged = intern(text(first) + text(second));
    for (const Change& change : changes) {
      const std::vector<SymbolId>& old_word = change.old_symbols;
      const std::vector<SymbolId>& word = words_[static_cast<size_t>(change.word)].symbols;
      const int64_t frequency = words_[static_cast<size_t>(change.word)].frequency;
      const auto old_size = static_cast<int64_t>(old_word.size());
      const auto size = static_cast<int64_t>(word.size());
      const auto old_at = [&](int64_t k) { return old_word[static_cast<size_t>(k)]; };
      const auto at = [&](int64_t k) { return word[static_cast<size_t>(k)]; };

      for (int64_t i = 0;;) {
        while (i < old_size && old_at(i) != first) ++i;
        if (i >= old_size) break;
        if (i < old_size - 1 && old_at(i + 1) == second) {
          if (i > 0) adjust(pair_key(old_at(i - 1), old_at(i)), change.word, frequency, -1);
          if (i < old_size - 2) {
            // In "A B C B C" merging "B C", the middle "C B" was already taken away above.
            if (old_at(i + 2) != first || i >= old_size - 3 || old_at(i + 3) != second) {
              adjust(pair_key(old_at(i + 1), old_at(i + 2)), change.word, frequency, -1);
            }
          }
          i += 2;
        } else {
          i += 1;
        }
      }

      for (int64_t i = 0;;) {
        while (i < size && at(i) != merged) ++i;
        if (i >= size) break;
        if (i > 0) adjust(pair_key(at(i - 1), at(i)), change.word, frequency, +1);
        // In "A BC BC" the pair "BC BC" was counted by the step above.
        if (i < size - 1 && at(i + 1) != merged) {
          adjust(pair_key(at(i), at(i + 1)), change.word, frequency, +1);
        }
        i += 1;
      }
    }
  }

  std::vector<std::string> texts_;
  std::unordered_map<std::string, SymbolId> symbol_ids_;
  std::vector<Word> words_;
  std::unordered_map<PairKey, int64_t> stats_;
  std::unordered_map<PairKey, int64_t> big_stats_;
  std::unordered_map<PairKey, std::unordered_map<int32_t, int64_t>> indices_;
};

// ---- the codes file ----

std::string read_file(const fs::path& file, const char* what) {
  std::error_code error;
  if (!fs::exists(file, error)) throw UserError(file.string() + ": no such " + what);
  if (fs::is_directory(file, error)) {
    throw UserError(file.string() + ": is a folder; expected a " + what);
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot be opened (" + std::strerror(errno) + ")");
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError(file.string() + ": cannot be read (" + std::strerror(errno) + ")");
  return contents;
}

// The lines of a file, each without its '\n'; a final '\n' ends the last line.
std::vector<std::string_view> split_lines(std::string_view contents) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < contents.size()) {
    size_t end = contents.find('\n', start);
    if (end == std::string_view::npos) end = contents.size();
    lines.push_back(contents.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// "0.2" -> {0, 2}, ignoring trailing ".0" groups as apply_bpe.py does; false when a part is not a
// number.
bool parse_version(std::string field, std::vector<int64_t>& parts) {
  while (true) {
    const size_t dot = field.rfind('.');
    if (dot == std::string::npos || dot + 1 == field.size() ||
        field.find_first_not_of('0', dot + 1) != std::string::npos) {
      break;
    }
    field.erase(dot);
  }
  parts.clear();
  size_t start = 0;
  while (true) {
    size_t dot = field.find('.', start);
    if (dot == std::string::npos) dot = field.size();
    const std::string part = field.substr(start, dot - start);
    if (part.empty() || part.size() > 18 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    parts.push_back(std::stoll(part));
    if (dot == field.size()) return true;
    start = dot + 1;
  }
}

}  // namespace

bool is_python_whitespace(char32_t c) {
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

BpeCodes learn_bpe_codes(const std::vector<std::string>& lines, int64_t num_merges,
                         int64_t min_frequency) {
  return Learner(lines).learn(num_merges, min_frequency);
}

void write_bpe_codes(const fs::path& file, const BpeCodes& codes) {
  std::error_code error;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), error);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw UserError(file.string() + ": cannot be written (" + std::strerror(errno) + ")");
  }
  if (codes.version == BpeCodes::Version::k02) out << kVersionPrefix << " 0.2\n";
  for (const BpeMerge& merge : codes.merges) out << merge.first << ' ' << merge.second << '\n';
  out.flush();
  if (!out) {
    throw UserError(file.string() + ": cannot be written (" + std::strerror(errno) + ")");
  }
}

BpeCodes read_bpe_codes(const fs::path& file) {
  const std::string contents =
      read_file(file, "BPE codes file (subword-nmt's learn_bpe.py output)");
  const std::vector<std::string_view> lines = split_lines(contents);
  if (lines.empty()) {
    throw UserError(file.string() +
                    ": is empty; expected a BPE codes file (\"#version: 0.2\" "
                    "and one merge per line)");
  }
  BpeCodes codes;
  codes.version = BpeCodes::Version::k01;
  size_t first_merge = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    size_t bad = 0;
    if (!valid_utf8(lines[n], bad)) {
      throw UserError(file.string() + ":" + std::to_string(n + 1) + ": invalid UTF-8 at byte " +
                      std::to_string(bad + 1) + " of the line; expected a UTF-8 BPE codes file");
    }
  }
  if (lines[0].substr(0, kVersionPrefix.size()) == kVersionPrefix) {
    first_merge = 1;
    const std::string_view header = lines[0];
    const auto space = [](char c) {
      const auto byte = static_cast<unsigned char>(c);
      return byte < 0x80 && is_python_whitespace(byte);
    };
    // The last whitespace-separated field of the header.
    size_t end = header.size();
    while (end > 0 && space(header[end - 1])) --end;
    size_t begin = end;
    while (begin > 0 && !space(header[begin - 1])) --begin;
    std::vector<int64_t> version;
    const bool parsed = parse_version(std::string(header.substr(begin, end - begin)), version);
    if (parsed && version == std::vector<int64_t>{0, 2}) {
      codes.version = BpeCodes::Version::k02;
    } else if (parsed && version == std::vector<int64_t>{0, 1}) {
      codes.version = BpeCodes::Version::k01;
    } else {
      throw UserError(file.string() + ":1: unsupported BPE codes header \"" + std::string(header) +
                      "\"; expected \"#version: 0.2\" (subword-nmt's learn_bpe.py without --byte)");
    }
  }
  for (size_t n = first_merge; n < lines.size(); ++n) {
    const std::string_view merge = strip_line(lines[n]);
    const size_t space = merge.find(' ');
    if (merge.empty() || space == std::string_view::npos ||
        merge.find(' ', space + 1) != std::string_view::npos) {
      throw UserError(file.string() + ":" + std::to_string(n + 1) + ": \"" + std::string(lines[n]) +
                      "\" is not a merge; expected two subword units separated by one space");
    }
    codes.merges.push_back(
        {std::string(merge.substr(0, space)), std::string(merge.substr(space + 1))});
  }
  return codes;
}

BpeEncoder::BpeEncoder(const BpeCodes& codes) : version_(codes.version) {
  ranks_.reserve(codes.merges.size());
  for (size_t rank = 0; rank < codes.merges.size(); ++rank) {
    const BpeMerge& merge = codes.merges[rank];
    ranks_.try_emplace(merge.first + ' ' + merge.second, static_cast<int64_t>(rank));
  }
}

const std::vector<std::string>& BpeEncoder::segment_word(const std::string& word) {
  return segment(word, 0);
}

const std::vector<std::string>& BpeEncoder::segment(const std::string& word, size_t offset) {
  if (const auto cached = cache_.find(word); cached != cache_.end()) return cached->second;

  std::vector<std::string> symbols;
  size_t bad = 0;
  if (!split_characters(word, symbols, bad)) {
    throw UserError("BPE input: invalid UTF-8 at byte " + std::to_string(offset + bad + 1));
  }
  if (symbols.empty()) return cache_[word];
  if (version_ == BpeCodes::Version::k02) {
    symbols.back() += kEndOfWord;
  } else {
    symbols.emplace_back(kEndOfWord);
  }

  std::string key;
  while (symbols.size() > 1) {
    int64_t best_rank = std::numeric_limits<int64_t>::max();
    size_t best_at = 0;
    for (size_t k = 0; k + 1 < symbols.size(); ++k) {
      key.assign(symbols[k]).append(1, ' ').append(symbols[k + 1]);
      const auto rank = ranks_.find(key);
      if (rank != ranks_.end() && rank->second < best_rank) {
        best_rank = rank->second;
        best_at = k;
      }
    }
    if (best_rank == std::numeric_limits<int64_t>::max()) break;
    const std::string first = symbols[best_at];
    const std::string second = symbols[best_at + 1];
    std::vector<std::string> merged;
    merged.reserve(symbols.size());
    for (size_t k = 0; k < symbols.size();) {
      if (k + 1 < symbols.size() && symbols[k] == first && symbols[k + 1] == second) {
        merged.push_back(first + second);
        k += 2;
      } else {
        merged.push_back(std::move(symbols[k]));
        k += 1;
      }
    }
    symbols = std::move(merged);
  }

  if (symbols.back() == kEndOfWord) {
    symbols.pop_back();
  } else if (symbols.back().size() >= kEndOfWord.size() &&
             symbols.back().compare(symbols.back().size() - kEndOfWord.size(), kEndOfWord.size(),
                                    kEndOfWord) == 0) {
    std::string& last = symbols.back();
    for (size_t at; (at = last.find(kEndOfWord)) != std::string::npos;) {
      last.erase(at, kEndOfWord.size());
    }
  }
  return cache_.emplace(word, std::move(symbols)).first->second;
}

std::string BpeEncoder::apply(const std::string& line) {
  std::string out;
  out.reserve(line.size() + line.size() / 2);
  const size_t leading = std::min(line.find_first_not_of(kLineStripChars), line.size());
  out.append(line, 0, leading);
  bool first_token = true;
  for_each_token(line, [&](std::string_view token, size_t offset) {
    const std::vector<std::string>& pieces = segment(std::string(token), offset);
    if (!first_token) out += ' ';
    first_token = false;
    for (size_t k = 0; k < pieces.size(); ++k) {
      out += pieces[k];
      if (k + 1 < pieces.size()) out.append(kBpeSeparator).append(1, ' ');
    }
  });
  const size_t last = line.find_last_not_of(kLineStripChars);
  const size_t trailing = last == std::string::npos ? line.size() : line.size() - last - 1;
  if (trailing > 0 && trailing != line.size()) out.append(line, line.size() - trailing, trailing);
  return out;
}

std::vector<BpeTokenCount> count_bpe_tokens(const std::vector<std::string>& lines) {
  std::unordered_map<std::string, size_t> index;
  std::vector<BpeTokenCount> counts;
  for (size_t line = 0; line < lines.size(); ++line) {
    for_each_token(lines[line], [&](std::string_view token, size_t offset) {
      const auto [it, inserted] = index.try_emplace(std::string(token), counts.size());
      if (!inserted) {
        ++counts[it->second].count;
        return;
      }
      size_t bad = 0;
      if (!valid_utf8(token, bad)) {
        throw UserError("BPE'd text line " + std::to_string(line + 1) + ": invalid UTF-8 at byte " +
                        std::to_string(offset + bad + 1) + " of the line");
      }
      counts.push_back({std::string(token), 1});
    });
  }
  std::stable_sort(
      counts.begin(), counts.end(),
      [](const BpeTokenCount& a, const BpeTokenCount& b) { return a.count > b.count; });
  return counts;
}

}  // namespace mlh::wmt
