// UTF-8 <-> code points for the translation text code (BLEU, the t2t subword codec), with ICU's
// strict decoder: no overlong forms, surrogates or code points above U+10FFFF, as Python decodes.
#pragma once

#include <unicode/utf8.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mlh::wmt {

// The code points of `text` into `out`; false with the byte offset (from 0) of the first invalid
// sequence in `bad_offset`.
inline bool decode_utf8(std::string_view text, std::u32string& out, size_t& bad_offset) {
  out.clear();
  out.reserve(text.size());
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
    out.push_back(static_cast<char32_t>(c));
  }
  return true;
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
