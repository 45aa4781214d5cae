// UTF-8 <-> code points for the translation text code (BLEU, the t2t subword codec, Moses, BPE), with ICU's
// strict decoder: no overlong forms, surrogates or code points above U+10FFFF, as Python decodes.
#pragma once

#include <unicode/utf8.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mlh::wmt {

// Calls visit(code point, byte offset, byte length) for each code point of `text`, in order; false
// with the byte offset (from 0) of the first invalid sequence in `bad_offset`. Stops early, returning
// true, when `visit` returns false.
template <typename Visit>
bool for_each_code_point(std::string_view text, size_t& bad_offset, Visit visit) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < length;) {
    const int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) {
      bad_offset = static_cast<size_t>(start);
      return false;
    }
    if (!visit(static_cast<char32_t>(c), static_cast<size_t>(start), static_cast<size_t>(i - start))) return true;
  }
  return true;
}

// The code points of `text` into `out`; false with the byte offset (from 0) of the first invalid
// sequence in `bad_offset`.
inline bool decode_utf8(std::string_view text, std::u32string& out, size_t& bad_offset) {
  out.clear();
  out.reserve(text.size());
  return for_each_code_point(text, bad_offset, [&](char32_t c, size_t, size_t) {
    out.push_back(c);
    return true;
  });
}

// s/(A)(B)/.../g over code points for one-character groups, as Perl and Python regexes apply it:
// matches scan left to right and do not overlap; `rewrite(out, a, b)` appends a matched pair's
// replacement.
template <typename First, typename Second, typename Rewrite>
std::u32string substitute_pairs(const std::u32string& text, First first, Second second, Rewrite rewrite) {
  std::u32string out;
  out.reserve(text.size() + text.size() / 2);
  size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && first(text[i]) && second(text[i + 1])) {
      rewrite(out, text[i], text[i + 1]);
      i += 2;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

// Code points (valid ones) -> UTF-8.
inline std::string to_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char32_t c : text) {
    uint8_t bytes[U8_MAX_LENGTH];
    int32_t length = 0;
    U8_APPEND_UNSAFE(bytes, length, static_cast<UChar32>(c));
    out.append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(length));
  }
  return out;
}

}  // namespace mlh::wmt
