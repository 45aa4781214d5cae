// Raw parallel text: two UTF-8 files with one sentence per line, line i of one the translation of
// line i of the other (as WMT's training corpora and newstest come once de-SGML'd).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mlh::wmt {

struct ParallelText {
  std::vector<std::string> source;  // same length as target
  std::vector<std::string> target;
  // Pairs dropped because one side is empty or only whitespace, as the reference's corpus cleaning
  // (Moses clean-corpus-n) drops them.
  int64_t dropped_empty_pairs = 0;
};

// Reads both files. Lines lose a trailing '\r' (CRLF files) and the first a UTF-8 byte order mark;
// a final line without '\n' counts. Throws UserError naming both files and both line counts when the
// counts differ; naming the file and line for invalid UTF-8 or a NUL byte; and naming both files when
// no pair is left (every pair had an empty side).
ParallelText read_parallel_text(const std::filesystem::path& source_file,
                                const std::filesystem::path& target_file);

// Writes `lines`, each followed by '\n' (parent folders created). Throws UserError when the file
// cannot be written.
void write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines);

}  // namespace mlh::wmt
