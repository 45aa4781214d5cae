// Files for tests: a fresh folder per test, and whole-file reads.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mlh::testing_files {

// An empty folder <gtest temp dir>/<group>/<test name>, made anew for each test.
inline std::filesystem::path fresh_test_folder(const std::string& group) {
  const std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) / group /
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

inline std::string contents_of(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

}  // namespace mlh::testing_files
