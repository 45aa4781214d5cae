// What every fuzz target shares: the contract check and a file for parsers that read from a path.
// Contract: a parser given bad bytes throws mlh::UserError (BadSample is one); any other exception,
// a crash, a hang, a leak or a sanitizer report is a finding. So targets catch UserError only.
// Targets that also check properties of what they get back abort with MLH_FUZZ_EXPECT.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace mlh::fuzz {

// A folder of this process's own under /tmp (fixed per process, so no files pile up over millions of
// runs), created on first use.
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("mlh_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  return folder;
}

// Writes the fuzz input to `name` in the scratch folder, replacing it, and returns its path.
inline std::string write_input(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = (scratch_folder() / name).string();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
  return path;
}

[[noreturn]] inline void expectation_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: expected %s\n", file, line, condition);
  std::abort();
}

}  // namespace mlh::fuzz

// A property the code under test must give: when it does not hold, a finding (libFuzzer keeps the input).
#define MLH_FUZZ_EXPECT(condition) \
  ((condition) ? (void)0 : ::mlh::fuzz::expectation_failed(#condition, __FILE__, __LINE__))
