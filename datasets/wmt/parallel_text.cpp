#include "datasets/wmt/parallel_text.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>

#include "base/user_error.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// The byte offset of the first byte that breaks UTF-8 (overlong forms, surrogates and code points
// above U+10FFFF included), or npos.
size_t invalid_utf8_offset(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      const unsigned char min = k == 1 ? low : 0x80, max = k == 1 ? high : 0xBF;
      if (byte < min || byte > max) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

bool blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; });
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::error_code error;
  if (!fs::exists(file, error)) throw UserError(file.string() + ": no such text file");
  if (fs::is_directory(file, error)) {
    throw UserError(file.string() + ": is a folder; expected a text file, one sentence per line");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot be opened (" + std::strerror(errno) + ")");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (lines.empty() && line.compare(0, kByteOrderMark.size(), kByteOrderMark) == 0) {
      line.erase(0, kByteOrderMark.size());
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = file.string() + ":" + std::to_string(lines.size() + 1);
    const size_t bad = invalid_utf8_offset(line);
    if (bad != std::string_view::npos) {
      throw UserError(where + ": invalid UTF-8 at byte " + std::to_string(bad + 1) +
                      " of the line; convert the file to UTF-8 (e.g. with iconv)");
    }
    if (line.find('\0') != std::string::npos) {
      throw UserError(where + ": holds a NUL byte; expected UTF-8 text, one sentence per line");
    }
    lines.push_back(std::move(line));
  }
  if (in.bad()) throw UserError(file.string() + ": read failed");
  return lines;
}

}  // namespace

ParallelText read_parallel_text(const fs::path& source_file, const fs::path& target_file) {
  std::vector<std::string> source = read_lines(source_file);
  std::vector<std::string> target = read_lines(target_file);
  if (source.size() != target.size()) {
    throw UserError("parallel text " + source_file.string() + " has " +
                    std::to_string(source.size()) + " lines but " + target_file.string() + " has " +
                    std::to_string(target.size()) +
                    "; line i of one must translate line i of the other");
  }
  ParallelText text;
  for (size_t i = 0; i < source.size(); ++i) {
    if (blank(source[i]) || blank(target[i])) {
      ++text.dropped_empty_pairs;
      continue;
    }
    text.source.push_back(std::move(source[i]));
    text.target.push_back(std::move(target[i]));
  }
  if (text.source.empty()) {
    throw UserError("parallel text " + source_file.string() + " and " + target_file.string() +
                    " hold no sentence pair (" + std::to_string(source.size()) +
                    " lines, every pair with an empty side); expected one sentence per line");
  }
  return text;
}

void write_lines(const fs::path& file, const std::vector<std::string>& lines) {
  std::error_code error;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), error);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  for (const std::string& line : lines) out << line << '\n';
  out.close();
  if (!out) throw UserError(file.string() + ": cannot be written");
}

}  // namespace mlh::wmt
