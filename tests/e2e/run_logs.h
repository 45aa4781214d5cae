// Reading the logs of the mini runs that ctest makes first (tests/e2e/CMakeLists.txt): each run
// keeps its results under <the e2e runs folder>/<run>/results (test_paths.h).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/log_reader.h"
#include "tests/test_paths.h"

namespace mlh {

// The one result log under a run's folder.
inline std::filesystem::path log_of(const std::string& run) {
  const std::filesystem::path results = std::filesystem::path(test_paths::e2e_runs_dir()) / run / "results";
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

// Each eval_accuracy value as logged: a number, or an object of several ({"BBOX": .., "SEGM": ..}).
inline std::vector<nlohmann::json> eval_accuracy_values(const std::vector<LogRecord>& records) {
  std::vector<nlohmann::json> values;
  for (const auto& r : records)
    if (r.key == "eval_accuracy") values.push_back(r.value);
  return values;
}

inline std::vector<double> train_losses(const std::vector<LogRecord>& records) {
  std::vector<double> values;
  for (const auto& r : records)
    if (r.key == "mlharness_train_loss") values.push_back(r.value.get<double>());
  return values;
}

// The run record beside the run's log (result_<i>.json).
inline nlohmann::json record_of(const std::string& run) {
  std::filesystem::path path = log_of(run);
  path.replace_extension(".json");
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The first record with `key`, or null.
inline const LogRecord* find(const std::vector<LogRecord>& records, const std::string& key) {
  for (const auto& r : records)
    if (r.key == key) return &r;
  return nullptr;
}

// How often each key occurs, and the last record of each key.
inline int count_of(const std::vector<LogRecord>& records, const std::string& key) {
  int count = 0;
  for (const auto& r : records) count += r.key == key;
  return count;
}

inline std::map<std::string, int> key_counts(const std::vector<LogRecord>& records) {
  std::map<std::string, int> counts;
  for (const auto& r : records) ++counts[r.key];
  return counts;
}

inline std::map<std::string, const LogRecord*> last_by_key(const std::vector<LogRecord>& records) {
  std::map<std::string, const LogRecord*> last;
  for (const auto& r : records) last[r.key] = &r;
  return last;
}

// A translation run's quality checks: run_stop says success, the last BLEU reaches eval_target (and
// stays below 1), and the target lies more than `margin` above the logged copy-source baseline, which
// is above 0. Prints the baseline and the BLEU per epoch under `run`.
inline void expect_translation_run_beats_copying(const std::string& run, const std::vector<LogRecord>& records,
                                                 double margin) {
  const LogRecord* run_stop = find(records, "run_stop");
  ASSERT_NE(run_stop, nullptr);
  EXPECT_EQ(run_stop->metadata["status"], "success");
  const std::vector<double> bleu = eval_accuracies(records);
  ASSERT_FALSE(bleu.empty());
  const LogRecord* target = find(records, "eval_target");
  ASSERT_NE(target, nullptr);
  EXPECT_GE(bleu.back(), target->value.get<double>());
  EXPECT_LT(bleu.back(), 1.0);
  const LogRecord* baseline = find(records, "mlharness_quality_baseline");
  ASSERT_NE(baseline, nullptr);
  EXPECT_EQ(baseline->value["name"], "copy-source baseline");
  const double copy_bleu = baseline->value["value"].get<double>();
  EXPECT_GT(copy_bleu, 0.0);
  EXPECT_GT(target->value.get<double>(), copy_bleu + margin);
  std::printf("%s: copy-source BLEU %.2f; BLEU per epoch:", run.c_str(), 100 * copy_bleu);
  for (const double b : bleu) std::printf(" %.2f", 100 * b);
  std::printf("\n");
}

// What the run printed (mini_run.sh keeps it).
inline std::string console_of(const std::string& run) {
  std::ifstream in(std::filesystem::path(test_paths::e2e_runs_dir()) / run / "console.txt");
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace mlh
