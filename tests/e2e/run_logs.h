// Reading the logs of the mini runs that ctest makes first (tests/e2e/CMakeLists.txt): each run
// keeps its results under MLH_E2E_DIR/<run>/results.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compliance/log_reader.h"

namespace mlh {

// The one result log under a run's folder.
inline std::filesystem::path log_of(const std::string& run) {
  const std::filesystem::path results = std::filesystem::path(MLH_E2E_DIR) / run / "results";
  std::vector<std::filesystem::path> logs;
  if (std::filesystem::exists(results))
    for (const auto& entry : std::filesystem::recursive_directory_iterator(results))
      if (entry.path().extension() == ".txt") logs.push_back(entry.path());
  EXPECT_EQ(logs.size(), 1u) << "run " << run << " should leave exactly one log";
  return logs.empty() ? std::filesystem::path() : logs.front();
}

inline std::vector<LogRecord> records_of(const std::string& run) {
  const ParsedLog log = read_log_file(log_of(run).string());
  EXPECT_TRUE(log.errors.empty());
  return log.records;
}

inline std::vector<double> eval_accuracies(const std::vector<LogRecord>& records) {
  std::vector<double> values;
  for (const auto& r : records)
    if (r.key == "eval_accuracy") values.push_back(r.value.get<double>());
  return values;
}

// The first record with `key`, or null.
inline const LogRecord* find(const std::vector<LogRecord>& records, const std::string& key) {
  for (const auto& r : records)
    if (r.key == key) return &r;
  return nullptr;
}

// What the run printed (mini_run.sh keeps it).
inline std::string console_of(const std::string& run) {
  std::ifstream in(std::filesystem::path(MLH_E2E_DIR) / run / "console.txt");
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace mlh
