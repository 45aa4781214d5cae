#include "compliance/result_groups.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include "compliance/benchmark_names.h"
#include "compliance/log_reader.h"
#include "compliance/mllog_keys.h"
#include "base/user_error.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

bool is_result_file(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.rfind("result_", 0) == 0 && path.extension() == ".txt";
}

std::string system_of(const RunSummary& run) {
  const fs::path folder = fs::path(run.path).parent_path();
  // The benchmark folder may use a round's own name for it (Google's v0.6 results/<system>/mask).
  if (!run.benchmark.empty() && canonical_benchmark(folder.filename().string()) == run.benchmark &&
      folder.has_parent_path())
    return folder.parent_path().string();
  return folder.string();
}

}  // namespace

std::vector<std::string> find_result_files(const std::string& folder) {
  std::error_code error;
  const fs::file_status status = fs::status(folder, error);
  if (error || !fs::exists(status)) throw UserError("'" + folder + "' does not exist");
  if (fs::is_regular_file(status)) return {folder};
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file(error) && is_result_file(it->path())) files.push_back(it->path().string());
  }
  if (error) throw UserError("cannot list '" + folder + "': " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

ResultScan scan_results(const std::vector<std::string>& folders) {
  ResultScan scan;
  std::map<std::tuple<std::string, std::string>, ResultGroup> groups;
  std::map<std::string, std::set<std::string>> benchmarks_per_folder;
  std::set<std::string> seen;
  for (const std::string& folder : folders) {
    int& logs = scan.logs_per_folder[folder];
    for (const std::string& path : find_result_files(folder)) {
      std::error_code canonical_error;
      const fs::path canonical = fs::weakly_canonical(path, canonical_error);
      if (!seen.insert(canonical_error ? path : canonical.string()).second) {
        ++logs;
        continue;
      }
      ParsedLog log;
      try {
        log = read_log_file(path);
      } catch (const UserError& e) {
        scan.skipped.push_back({path, e.what()});
        continue;
      }
      if (log.records.empty()) {
        scan.skipped.push_back({path, not_a_log_reason(log)});
        continue;
      }
      ++logs;
      RunSummary run = summarize_run(log);
      benchmarks_per_folder[fs::path(path).parent_path().string()].insert(run.benchmark);
      ResultGroup& group = groups[{system_of(run), run.benchmark}];
      group.system = system_of(run);
      group.benchmark = run.benchmark;
      if (!run.platform.empty() &&
          std::find(group.platforms.begin(), group.platforms.end(), run.platform) == group.platforms.end())
        group.platforms.push_back(run.platform);
      if (group.effective_config.is_null()) group.effective_config = run.effective_config;
      group.runs.push_back(std::move(run));
    }
  }
  for (auto& [key, group] : groups) scan.groups.push_back(std::move(group));
  for (const auto& [folder, benchmarks] : benchmarks_per_folder) {
    if (benchmarks.size() < 2) continue;
    std::string list;
    for (const std::string& name : benchmarks) list += (list.empty() ? "" : ", ") + (name.empty() ? "(none)" : name);
    scan.notes.push_back("folder " + folder + " holds logs of several benchmarks (" + list + "); each is scored on its own");
  }
  return scan;
}

}  // namespace mlh
