#include "datasets/wmt/gnmt_vocabulary.h"

#include <unicode/utf8.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>

#include "base/user_error.h"
#include "datasets/wmt/bpe_codes.h"
#include "datasets/wmt/utf8.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxPadToMultiple = int64_t{1} << 20;

// Where the first and last non-whitespace code points of `text` start and end (Python's strip()),
// and whether whitespace lies between them. False with the offset of the first bad byte for text
// that is not UTF-8.
struct StripResult {
  size_t begin = 0;
  size_t end = 0;
  bool inner_whitespace = false;
};

bool python_strip(std::string_view text, StripResult& result, size_t& bad_offset) {
  bool seen_text = false;
  bool whitespace_since_text = false;
  result = {};
  return for_each_code_point(text, bad_offset, [&](char32_t c, size_t start, size_t bytes) {
    if (is_python_whitespace(c)) {
      whitespace_since_text = seen_text;
      return true;
    }
    if (!seen_text) result.begin = start;
    if (whitespace_since_text) result.inner_whitespace = true;
    seen_text = true;
    whitespace_since_text = false;
    result.end = start + bytes;
    return true;
  });
}

void replace_all(std::string& text, std::string_view from) {
  size_t write = 0;
  for (size_t read = 0; read < text.size();) {
    if (text.compare(read, from.size(), from) == 0) {
      read += from.size();
    } else {
      text[write++] = text[read++];
    }
  }
  text.resize(write);
}

std::string padding_token(int64_t index) {
  char name[32];
  std::snprintf(name, sizeof(name), "madeupword%04lld", static_cast<long long>(index));
  return name;
}

}  // namespace

GnmtVocabulary::GnmtVocabulary(std::vector<std::string> tokens, int64_t pad_to_multiple) {
  build(std::move(tokens), pad_to_multiple, "");
}

void GnmtVocabulary::build(std::vector<std::string> tokens, int64_t pad_to_multiple,
                           const std::string& origin) {
  const auto where = [&](size_t k) {
    return origin.empty() ? "GNMT vocabulary token " + std::to_string(k + 1)
                          : origin + ":" + std::to_string(k + 1);
  };
  if (pad_to_multiple < 1 || pad_to_multiple > kMaxPadToMultiple) {
    throw UserError("GNMT vocabulary: pad_to_multiple is " + std::to_string(pad_to_multiple) +
                    "; expected 1 (fp32) to " + std::to_string(kMaxPadToMultiple) +
                    " (the reference pads to 8 in fp16)");
  }
  if (tokens.empty()) {
    throw UserError((origin.empty() ? std::string("GNMT vocabulary") : origin) +
                    ": no tokens; expected one BPE token per line (vocab.bpe.32000)");
  }
  for (size_t k = 0; k < tokens.size(); ++k) {
    StripResult strip;
    size_t bad = 0;
    if (!python_strip(tokens[k], strip, bad)) {
      throw UserError(where(k) + ": invalid UTF-8 at byte " + std::to_string(bad + 1));
    }
    if (tokens[k].empty()) {
      throw UserError(where(k) + ": empty token; expected one BPE token per line");
    }
    if (strip.begin != 0 || strip.end != tokens[k].size() || strip.inner_whitespace) {
      throw UserError(where(k) + ": token \"" + tokens[k] +
                      "\" contains whitespace; expected one BPE token per line");
    }
  }

  tokens_ = {kGnmtPadToken, kGnmtUnkToken, kGnmtBosToken, kGnmtEosToken};
  tokens_.insert(tokens_.end(), std::make_move_iterator(tokens.begin()),
                 std::make_move_iterator(tokens.end()));
  const auto unpadded = static_cast<int64_t>(tokens_.size());
  const int64_t padded = (unpadded + pad_to_multiple - 1) / pad_to_multiple * pad_to_multiple;
  if (padded > std::numeric_limits<int32_t>::max()) {
    throw UserError((origin.empty() ? std::string("GNMT vocabulary") : origin) + ": " +
                    std::to_string(padded) + " tokens do not fit 32-bit ids");
  }
  for (int64_t i = 0; i < padded - unpadded; ++i) tokens_.push_back(padding_token(i));

  // As the reference's dict: a token listed again (or named like a special or padding token) is
  // looked up as its last id.
  ids_.reserve(tokens_.size());
  for (size_t id = 0; id < tokens_.size(); ++id) ids_[tokens_[id]] = static_cast<int32_t>(id);
}

GnmtVocabulary GnmtVocabulary::load(const fs::path& file, int64_t pad_to_multiple) {
  std::error_code error;
  if (!fs::exists(file, error)) {
    throw UserError(file.string() + ": no such GNMT vocabulary file (vocab.bpe.32000)");
  }
  if (fs::is_directory(file, error)) {
    throw UserError(file.string() + ": is a folder; expected the GNMT vocabulary file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot be opened (" + std::strerror(errno) + ")");
  const std::string contents((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError(file.string() + ": cannot be read (" + std::strerror(errno) + ")");

  std::vector<std::string> tokens;
  for (size_t start = 0; start < contents.size();) {
    size_t end = contents.find('\n', start);
    if (end == std::string::npos) end = contents.size();
    const std::string_view line(contents.data() + start, end - start);
    StripResult strip;
    size_t bad = 0;
    if (!python_strip(line, strip, bad)) {
      throw UserError(file.string() + ":" + std::to_string(tokens.size() + 1) +
                      ": invalid UTF-8 at byte " + std::to_string(bad + 1) +
                      " of the line; expected a UTF-8 vocabulary file");
    }
    tokens.emplace_back(line.substr(strip.begin, strip.end - strip.begin));
    start = end + 1;
  }
  GnmtVocabulary vocabulary;
  vocabulary.build(std::move(tokens), pad_to_multiple, file.string());
  return vocabulary;
}

const std::string& GnmtVocabulary::token(int32_t id) const {
  MLH_ASSERT(id >= 0 && id < size());
  return tokens_[static_cast<size_t>(id)];
}

int32_t GnmtVocabulary::id(const std::string& token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? kGnmtUnkId : it->second;
}

std::vector<int32_t> GnmtVocabulary::encode(const std::string& bpe_line) const {
  std::vector<int32_t> ids{kGnmtBosId};
  const auto* bytes = reinterpret_cast<const uint8_t*>(bpe_line.data());
  const auto length = static_cast<int32_t>(bpe_line.size());
  int32_t token_start = -1;
  std::string token;
  const auto finish_token = [&](int32_t end) {
    if (token_start < 0) return;
    token.assign(bpe_line, static_cast<size_t>(token_start),
                 static_cast<size_t>(end - token_start));
    ids.push_back(id(token));
    token_start = -1;
  };
  for (int32_t i = 0; i < length;) {
    const int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) {
      throw UserError("GNMT vocabulary: invalid UTF-8 at byte " + std::to_string(start + 1) +
                      " of a BPE line");
    }
    if (is_python_whitespace(static_cast<char32_t>(c))) {
      finish_token(start);
    } else if (token_start < 0) {
      token_start = start;
    }
  }
  finish_token(length);
  ids.push_back(kGnmtEosId);
  return ids;
}

std::string GnmtVocabulary::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (size_t k = 0; k < ids.size(); ++k) {
    if (k > 0) text += ' ';
    text += token(ids[k]);
  }
  replace_all(text, std::string(kBpeSeparator) + " ");
  replace_all(text, kBpeSeparator);
  replace_all(text, kGnmtBosToken);
  replace_all(text, kGnmtEosToken);
  replace_all(text, kGnmtPadToken);
  StripResult strip;
  size_t bad = 0;
  MLH_ASSERT(python_strip(text, strip, bad));
  return text.substr(strip.begin, strip.end - strip.begin);
}

}  // namespace mlh::wmt
