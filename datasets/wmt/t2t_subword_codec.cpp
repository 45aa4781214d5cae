#include "datasets/wmt/t2t_subword_codec.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "datasets/wmt/utf8.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr char32_t kUndefinedCharacter = 0x3013;  // what "\<n>;" of no character decodes to
constexpr std::u32string_view kEscapeCharacters = U"\\_u;0123456789";
constexpr std::u32string_view kReservedPad[] = {U"<pad>_", U"<pad>"};
constexpr std::u32string_view kReservedEos[] = {U"<EOS>_", U"<EOS>"};

bool is_alphanumeric(char32_t c) {
  return (U_GET_GC_MASK(static_cast<UChar32>(c)) & (U_GC_L_MASK | U_GC_N_MASK)) != 0;
}

std::string code_point_name(char32_t c) {
  char text[16];
  std::snprintf(text, sizeof(text), "U+%04X", static_cast<unsigned>(c));
  return text;
}

// tensor2tensor's tokenizer.encode: runs of alphanumeric and of other characters; a single space
// between two alphanumeric runs is dropped (it is implied).
std::vector<std::u32string_view> split_tokens(std::u32string_view text) {
  std::vector<std::u32string_view> tokens;
  if (text.empty()) return tokens;
  size_t token_start = 0;
  bool previous_alnum = is_alphanumeric(text[0]);
  for (size_t pos = 1; pos < text.size(); ++pos) {
    const bool alnum = is_alphanumeric(text[pos]);
    if (alnum != previous_alnum) {
      const std::u32string_view token = text.substr(token_start, pos - token_start);
      if (token != U" " || token_start == 0) tokens.push_back(token);
      token_start = pos;
    }
    previous_alnum = alnum;
  }
  tokens.push_back(text.substr(token_start));
  return tokens;
}

// tensor2tensor's tokenizer.decode: a space between two tokens that both start alphanumeric.
std::u32string join_tokens(const std::vector<std::u32string>& tokens) {
  std::u32string text;
  bool previous_alnum = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool alnum = is_alphanumeric(tokens[i][0]);
    if (i > 0 && previous_alnum && alnum) text.push_back(U' ');
    text += tokens[i];
    previous_alnum = alnum;
  }
  return text;
}

// The inverse of escaping, as the reference's regex \\u|\\\\|\\([0-9]+); does it: left to right,
// the first alternative that matches at a backslash wins; a backslash that starts none stays.
std::u32string unescape(std::u32string_view token) {
  std::u32string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size();) {
    if (token[i] != U'\\' || i + 1 >= token.size()) {
      out.push_back(token[i++]);
      continue;
    }
    if (token[i + 1] == U'u') {
      out.push_back(U'_');
      i += 2;
      continue;
    }
    if (token[i + 1] == U'\\') {
      out.push_back(U'\\');
      i += 2;
      continue;
    }
    size_t end = i + 1;
    uint64_t value = 0;
    while (end < token.size() && token[end] >= U'0' && token[end] <= U'9') {
      value = std::min<uint64_t>(value * 10 + (token[end] - U'0'), uint64_t{kMaxCodePoint} + 1);
      ++end;
    }
    if (end > i + 1 && end < token.size() && token[end] == U';') {
      const bool surrogate = value >= 0xD800 && value <= 0xDFFF;  // not encodable as UTF-8
      out.push_back(value > kMaxCodePoint || surrogate ? kUndefinedCharacter
                                                       : static_cast<char32_t>(value));
      i = end + 1;
    } else {
      out.push_back(token[i++]);
    }
  }
  return out;
}

std::string read_vocabulary_bytes(const fs::path& file) {
  std::error_code status_error;
  const fs::file_status status = fs::status(file, status_error);
  if (!fs::exists(status)) {
    throw UserError(file.string() +
                    ": no such file; give the t2t subword vocabulary (the MLPerf transformer ships "
                    "vocab.translate_ende_wmt32k.32768.subwords; the data folder holds it as "
                    "vocab.ende.32768)");
  }
  if (fs::is_directory(status)) {
    throw UserError(file.string() + ": is a folder, expected a t2t subword vocabulary file");
  }
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw UserError(file.string() + ": cannot be opened (" +
                    (errno != 0 ? std::strerror(errno) : "unknown reason") +
                    "); check that the file is readable");
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError(file.string() + ": cannot be read to its end");
  return bytes;
}

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

class T2tSubwordCodec final : public SubwordCodec {
 public:
  explicit T2tSubwordCodec(const fs::path& file) : file_(file.string()) {
    const std::string bytes = read_vocabulary_bytes(file);
    parse_lines(bytes);
    if (subtokens_.size() < 2) {
      throw UserError(file_ + ": " +
                      (subtokens_.empty()
                           ? std::string("is empty")
                           : "holds only " + std::to_string(subtokens_.size()) + " subtoken") +
                      "; a t2t subword vocabulary starts with '<pad>_' and '<EOS>_' and lists "
                      "one quoted subtoken per line");
    }
    check_reserved(0, kReservedPad);
    check_reserved(1, kReservedEos);
    if (subtokens_.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      throw UserError(file_ + ": holds more than 2^31-1 subtokens");
    }
    for (size_t id = 0; id < subtokens_.size(); ++id) {
      const std::u32string& subtoken = subtokens_[id];
      if (subtoken.empty()) continue;  // listed, never produced (tensor2tensor skips it too)
      ids_[subtoken] = static_cast<int32_t>(id);  // a repeated subtoken keeps its last id
      max_subtoken_length_ = std::max(max_subtoken_length_, subtoken.size());
      alphabet_.insert(subtoken.begin(), subtoken.end());
    }
    for (const char32_t c : kEscapeCharacters) {
      if (ids_.count(std::u32string_view(&c, 1)) == 0) {
        throw UserError(file_ + ": has no subtoken '" + to_utf8(std::u32string_view(&c, 1)) +
                        "' of its own; escaping needs each of \\ _ u ; 0-9 as a subtoken (a "
                        "tensor2tensor vocabulary lists them), so this is not a complete t2t "
                        "subword vocabulary");
      }
    }
    describe_ = "t2t subwords " + file.filename().string() + " (" +
                std::to_string(subtokens_.size()) + " ids)";
  }

  int64_t vocabulary_size() const override { return static_cast<int64_t>(subtokens_.size()); }

  TokenIds encode(const std::string& text) const override {
    std::u32string code_points;
    size_t bad_offset = 0;
    if (!decode_utf8(text, code_points, bad_offset)) {
      throw UserError("text is not valid UTF-8 (byte " + std::to_string(bad_offset) +
                      " of the sentence); the corpus must be UTF-8");
    }
    TokenIds ids;
    std::u32string escaped;
    for (const std::u32string_view token : split_tokens(code_points)) {
      escape(token, escaped);
      append_subtoken_ids(escaped, ids);
    }
    ids.push_back(kEosId);
    return ids;
  }

  std::string decode(const TokenIds& ids) const override {
    std::u32string joined;
    for (const int32_t id : ids) {
      if (id == kEosId) break;
      if (id == kPadId || id < 0 || static_cast<size_t>(id) >= subtokens_.size()) continue;
      joined += subtokens_[static_cast<size_t>(id)];
    }
    std::vector<std::u32string> tokens;
    for (size_t start = 0; start < joined.size();) {
      size_t end = joined.find(U'_', start);
      if (end == std::u32string::npos) end = joined.size();
      if (end > start) {
        tokens.push_back(unescape(std::u32string_view(joined).substr(start, end - start)));
      }
      start = end + 1;
    }
    return to_utf8(join_tokens(tokens));
  }

  std::string describe() const override { return describe_; }

 private:
  void parse_lines(const std::string& bytes) {
    size_t line_number = 0;
    for (size_t start = 0; start < bytes.size();) {
      size_t end = bytes.find('\n', start);
      const bool last = end == std::string::npos;
      if (last) end = bytes.size();
      ++line_number;
      size_t first = start;
      size_t stop = end;
      while (first < stop && is_ascii_space(bytes[first])) ++first;
      while (stop > first && is_ascii_space(bytes[stop - 1])) --stop;
      const std::string_view line(bytes.data() + first, stop - first);
      const bool quoted = line.size() >= 2 && (line.front() == '\'' || line.front() == '"') &&
                          line.back() == line.front();
      if (!quoted) {
        throw UserError(file_ + ": line " + std::to_string(line_number) + " is " +
                        (line.empty()
                             ? std::string("empty")
                             : "not one quoted subtoken: " + std::string(line.substr(0, 40))) +
                        "; a t2t subword vocabulary lists one subtoken per line, as 'Hallo_'");
      }
      std::u32string subtoken;
      size_t bad_offset = 0;
      if (!decode_utf8(line.substr(1, line.size() - 2), subtoken, bad_offset)) {
        throw UserError(file_ + ": line " + std::to_string(line_number) +
                        " is not valid UTF-8 (byte " + std::to_string(bad_offset + 1) +
                        " of the line); the vocabulary file must be UTF-8");
      }
      subtokens_.push_back(std::move(subtoken));
      start = end + 1;
    }
  }

  template <size_t N>
  void check_reserved(size_t id, const std::u32string_view (&accepted)[N]) const {
    for (const std::u32string_view name : accepted) {
      if (subtokens_[id] == name) return;
    }
    throw UserError(file_ + ": line " + std::to_string(id + 1) + " is '" + to_utf8(subtokens_[id]) +
                    "', expected '" + to_utf8(accepted[0]) + "' (or '" + to_utf8(accepted[N - 1]) +
                    "'); a t2t subword vocabulary starts with the padding and EOS entries, ids 0 "
                    "and 1");
  }

  void escape(std::u32string_view token, std::u32string& out) const {
    out.clear();
    const auto put = [&](char32_t c) {
      if (alphabet_.count(c) != 0 && c != U'\n') {
        out.push_back(c);
      } else {
        for (const char c8 : "\\" + std::to_string(static_cast<uint32_t>(c)) + ";") {
          out.push_back(static_cast<char32_t>(c8));
        }
      }
    };
    for (const char32_t c : token) {
      if (c == U'\\') {
        put(U'\\');
        put(U'\\');
      } else if (c == U'_') {
        put(U'\\');
        put(U'u');
      } else {
        put(c);
      }
    }
    out.push_back(U'_');
  }

  // tensor2tensor's _escaped_token_to_subtoken_ids: greedy, longest subtoken first.
  void append_subtoken_ids(std::u32string_view escaped, TokenIds& ids) const {
    for (size_t start = 0; start < escaped.size();) {
      size_t end = std::min(escaped.size(), start + max_subtoken_length_);
      for (; end > start; --end) {
        const auto found = ids_.find(escaped.substr(start, end - start));
        if (found != ids_.end()) {
          ids.push_back(found->second);
          break;
        }
      }
      if (end == start) {
        throw UserError(
            file_ + ": cannot cut the escaped token '" + to_utf8(escaped) +
            "' into subtokens: character '" + to_utf8(escaped.substr(start, 1)) + "' (" +
            code_point_name(escaped[start]) +
            ") occurs inside subtokens of the vocabulary but is no subtoken of its own; "
            "use a complete t2t vocabulary");
      }
      start = end;
    }
  }

  std::string file_;
  std::string describe_;
  std::vector<std::u32string> subtokens_;
  // Views into subtokens_, which no longer changes once they are made.
  std::unordered_map<std::u32string_view, int32_t> ids_;
  std::unordered_set<char32_t> alphabet_;
  size_t max_subtoken_length_ = 0;
};

}  // namespace

std::unique_ptr<SubwordCodec> load_t2t_subword_codec(const fs::path& vocabulary_file) {
  return std::make_unique<T2tSubwordCodec>(vocabulary_file);
}

}  // namespace mlh::wmt
