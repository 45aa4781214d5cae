// Finds MLPerf result logs under folders and groups them the way they are scored: by system and
// benchmark. In the MLPerf layout <system>/<benchmark>/result_<i>.txt (which `mlharness` writes as
// <out>/<platform>/<benchmark>/result_<i>.txt) the system is the folder above the benchmark folder;
// elsewhere it is the folder that holds the logs. A folder holding logs of several benchmarks gives
// one group per benchmark, and a note saying so.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/run_summary.h"

namespace mlh {

struct ResultGroup {
  std::string system;                  // the system folder, as a path
  std::string benchmark;               // "" when the logs name none
  std::vector<std::string> platforms;  // the submission_platform values the logs name
  std::vector<RunSummary> runs;        // by path
  // The first mlharness_effective_config among the runs (null for logs that have none).
  nlohmann::json effective_config;
};

// A result_*.txt that is no usable log: unreadable, or no MLPerf line in it.
struct SkippedFile {
  std::string path;
  std::string reason;
};

struct ResultScan {
  std::vector<ResultGroup> groups;     // by system, then benchmark
  std::vector<SkippedFile> skipped;
  std::vector<std::string> notes;      // folders that mix benchmarks
  std::map<std::string, int> logs_per_folder;  // per folder given: the MLPerf logs read under it
};

// Every result_*.txt under `folder`, at any depth, sorted; `folder` may also name one log file.
// Throws UserError when it does not exist.
std::vector<std::string> find_result_files(const std::string& folder);

// Reads and groups the result files under every folder.
ResultScan scan_results(const std::vector<std::string>& folders);

}  // namespace mlh
