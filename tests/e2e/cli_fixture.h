// Runs the mlharness binary in a fresh folder per test and captures what it printed: the fixture of
// the command-line tests.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_paths.h"

namespace mlh {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // Runs mlharness with `args` (shell words) inside the test's folder, under `launcher` if given.
  Outcome run(const std::string& args, const std::string& launcher = "", int timeout_s = 120) {
    const std::string command = "cd '" + dir_.string() + "' && timeout " + std::to_string(timeout_s) + " " +
                                launcher + " '" + test_paths::mlharness_binary() + "' " + args +
                                " >stdout.txt 2>stderr.txt";
    const int status = std::system(command.c_str());
    Outcome outcome;
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    outcome.out = read_file(dir_ / "stdout.txt");
    outcome.err = read_file(dir_ / "stderr.txt");
    return outcome;
  }
  // A user error: exit 2, one line on stderr holding `expected`, and no results written.
  void expect_user_error(const std::string& args, const std::string& expected) {
    const Outcome outcome = run(args);
    EXPECT_EQ(outcome.exit_code, 2) << args << "\n" << outcome.err;
    EXPECT_THAT(outcome.err, ::testing::HasSubstr(expected)) << args;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
    if (!fs::exists(dir_ / "results")) return;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "results")) {
      EXPECT_FALSE(entry.is_regular_file()) << "left behind: " << entry.path();
    }
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

}  // namespace mlh
