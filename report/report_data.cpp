#include "report/report_data.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "compliance/log_reader.h"
#include "compliance/mllog_keys.h"
#include "compliance/run_summary.h"
#include "base/user_error.h"
#include "report/system_description.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::regex& result_log_name() {
  static const std::regex name(R"(result_(\d+)\.txt)");
  return name;
}

struct LogFile {
  fs::path path;
  int index = 0;
};

// A number in a RunResult record: protobuf's JSON writes 64-bit integers as strings.
std::optional<double> record_number(const json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    try {
      size_t used = 0;
      const double value = std::stod(it->get<std::string>(), &used);
      if (used == it->get<std::string>().size()) return value;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::string record_text(const json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_string() ? it->get<std::string>() : "";
}

// The record beside a log, or null (with a warning when it exists but is not a JSON object).
json read_record(const fs::path& path, std::vector<InputIssue>& issues) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return nullptr;
  std::ifstream in(path);
  json record = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object()) {
    issues.push_back({path.string(), "not a RunResult record (not a JSON object); the log beside it is used alone", false});
    return nullptr;
  }
  return record;
}

// Epochs the log ran: distinct epoch numbers of epoch_start records (v0.5: train_epoch values)
// before run_stop.
std::optional<double> epochs_run_in_log(const ParsedLog& log) {
  std::set<double> epochs;
  for (const LogRecord& r : log.records) {
    if (r.key == keys::kRunStop) break;
    if (r.key == keys::kEpochStart && r.metadata.contains(keys::kMetaEpochNum) && r.metadata[keys::kMetaEpochNum].is_number())
      epochs.insert(r.metadata[keys::kMetaEpochNum].get<double>());
    else if (r.key == "train_epoch" && r.value.is_number())
      epochs.insert(r.value.get<double>());
  }
  if (epochs.empty()) return std::nullopt;
  return static_cast<double>(epochs.size());
}

std::optional<double> logged_number(const ParsedLog& log, const char* key) {
  for (const LogRecord& r : log.records)
    if (r.key == key && r.value.is_number()) return r.value.get<double>();
  return std::nullopt;
}

std::string logged_text(const ParsedLog& log, const char* key) {
  for (const LogRecord& r : log.records)
    if (r.key == key && r.value.is_string()) return r.value.get<std::string>();
  return "";
}

// The data_source of the run's effective config when it is stand-in data rather than the benchmark's
// MLPerf dataset; "" otherwise (and for logs mlharness did not write).
std::string stand_in_data_source(const RunSummary& run) {
  static const std::set<std::string> stand_ins = {"synthetic", "synthetic_imagenet", "fashion_mnist"};
  if (!run.effective_config.is_object()) return "";
  const auto source = run.effective_config.find("data_source");
  if (source == run.effective_config.end() || !source->is_string() || !stand_ins.count(source->get<std::string>()))
    return "";
  return source->get<std::string>();
}

// An eval_accuracy value as one number: the value itself, or the first number of an object such as
// {"BBOX": .., "SEGM": ..} (whose name is then the quality's name).
std::optional<double> quality_number(const json& value, std::string* name) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {  // v0.6 transformer logs write the BLEU score as a string
    try {
      size_t used = 0;
      const double number = std::stod(value.get<std::string>(), &used);
      if (used == value.get<std::string>().size()) return number;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  if (!value.is_object()) return std::nullopt;
  for (const auto& [key, member] : value.items()) {
    if (!member.is_number()) continue;
    *name = key;
    return member.get<double>();
  }
  return std::nullopt;
}

class SystemFiles {
 public:
  explicit SystemFiles(std::vector<InputIssue>& issues) : issues_(issues) {}
  const std::optional<SystemDescription>& for_log_folder(const fs::path& folder) {
    const std::string path = system_file_for_log_folder(folder.string());
    const auto known = cache_.find(path);
    if (known != cache_.end()) return known->second;
    std::optional<SystemDescription> system;
    std::error_code error;
    if (!path.empty() && fs::is_regular_file(path, error)) {
      std::string problem;
      system = read_system_file(path, &problem);
      if (!system)
        issues_.push_back({path, "system description " + problem + "; platform and device count come from the logs", false});
    }
    return cache_.emplace(path, system).first->second;
  }

 private:
  std::vector<InputIssue>& issues_;
  std::map<std::string, std::optional<SystemDescription>> cache_;
};

std::string missing_events(const RunSummary& summary, const ParsedLog& log) {
  std::string what;
  if (!summary.run_start_ms) what = "no run_start";
  if (!summary.run_stop_ms) what += std::string(what.empty() ? "" : ", ") + "no run_stop";
  if (what.empty()) return "";
  if (log.truncated_last_line) what += " (its last line is cut off: the run was still going, or it crashed)";
  else if (summary.run_start_ms) what += " (the run was still going, or it crashed)";
  return what;
}

RunPlatform resolve_platform(const RunSummary& summary, const std::optional<SystemDescription>& system,
                             const std::optional<SystemDescription>& entry, const json& record, const fs::path& log_folder) {
  RunPlatform where;
  std::string label;
  if (!summary.platform.empty() && summary.platform.find("PLACEHOLDER") == std::string::npos) {
    label = summary.platform;
    where.platform_source = "log submission_platform";
  } else if (system && !system->system_name.empty()) {
    label = system->system_name;
    where.platform_source = "system JSON system_name";
  } else if (!record.is_null() && !record_text(record, "platform").empty()) {
    label = record_text(record, "platform");
    where.platform_source = "RunResult platform";
  } else {
    label = log_folder.parent_path().filename().string();
    where.platform_source = "folder name";
  }
  int label_count = 0;
  where.platform = platform_without_count(label, &label_count);
  if (where.platform.empty()) where.platform = label;

  if (system && !system->accelerator_model.empty()) where.device_model = system->accelerator_model;
  else if (!record.is_null() && !record_text(record, "device_model").empty()) where.device_model = record_text(record, "device_model");
  else if (entry) where.device_model = entry->accelerator_model;

  std::optional<double> record_devices;
  if (!record.is_null()) record_devices = record_number(record, "device_count");
  if (system && system->accelerator_count()) {
    where.device_count = *system->accelerator_count();
    where.device_count_source = "system JSON";
  } else if (record_devices && *record_devices > 0) {
    where.device_count = static_cast<int>(*record_devices);
    where.device_count_source = "RunResult device_count";
  } else if (entry && entry->accelerator_count()) {
    where.device_count = *entry->accelerator_count();
    where.device_count_source = "log submission_entry";
  } else if (label_count > 0) {
    where.device_count = label_count;
    where.device_count_source = "platform label";
  }

  const std::string record_device = record.is_null() ? "" : record_text(record, "device");
  if (record_device == "cpu") where.device_kind = DeviceKind::kCpu;
  else if (record_device == "cuda") where.device_kind = DeviceKind::kGpu;
  else if (const auto by_model = device_kind_by_name(where.device_model)) where.device_kind = *by_model;
  else if (const auto by_platform = device_kind_by_name(label)) where.device_kind = *by_platform;
  else where.device_kind = DeviceKind::kAccelerator;
  return where;
}

void take_quality(RunRow& row, const RunSummary& summary, const json& record) {
  row.quality_name = record.is_null() ? "" : record_text(record, "quality_name");
  if (!record.is_null()) {
    const auto target = record_number(record, "quality_target");
    if (target && *target > 0) row.quality_target = target;
    const auto evals = record.find("evals");
    if (!row.quality_name.empty() && evals != record.end() && evals->is_array()) {
      for (const json& point : *evals) {
        const auto epoch = record_number(point, "epoch");
        const auto quality = point.find("quality");
        if (!epoch || quality == point.end() || !quality->is_object()) continue;
        const auto value = quality->find(row.quality_name);
        if (value != quality->end() && value->is_number()) row.evals.push_back({*epoch, value->get<double>()});
      }
    }
  }
  if (!row.quality_target) row.quality_target = summary.target;
  if (!row.evals.empty()) return;
  std::string name = keys::kEvalAccuracy;
  for (const EvalAccuracyPoint& point : summary.evals)
    if (const auto value = quality_number(point.value, &name)) row.evals.push_back({point.epoch, *value});
  if (row.quality_name.empty()) row.quality_name = name;
}

// Why `train_samples` cannot be one epoch of `benchmark` ("" when it can, or the epoch is not fixed).
std::string not_an_epoch(const std::string& benchmark, double train_samples) {
  const std::vector<EpochSamples> epochs = mlperf_epoch_samples(benchmark);
  if (epochs.empty()) return "";
  std::string sizes;
  for (const EpochSamples& epoch : epochs) {
    if (train_samples >= epoch.min * (1 - kEpochSamplesTolerance) && train_samples <= epoch.max * (1 + kEpochSamplesTolerance))
      return "";
    sizes += std::string(sizes.empty() ? "" : " or ") + epoch.what;
  }
  char logged[32];
  std::snprintf(logged, sizeof logged, "%.0f", train_samples);
  return "train_samples " + std::string(logged) + " is not one epoch of " + benchmark + " (" + sizes +
         "); no throughput is derived from this log";
}

void take_throughput(RunRow& row, const ParsedLog& log, const json& record) {
  const auto record_rate = record.is_null() ? std::nullopt : record_number(record, "train_samples_per_second");
  if (record_rate && *record_rate > 0) {
    row.train_samples_per_second = record_rate;
    row.throughput_source = ThroughputSource::kRunResult;
    return;
  }
  const auto train_samples = logged_number(log, keys::kTrainSamples);
  if (!train_samples || !row.epochs_run || row.time_to_train_minutes <= 0) return;
  row.throughput_withheld = not_an_epoch(row.benchmark, *train_samples);
  if (!row.throughput_withheld.empty()) return;
  row.train_samples_per_second = *train_samples * *row.epochs_run / (row.time_to_train_minutes * 60.0);
  row.throughput_source = ThroughputSource::kDerivedFromLog;
}

void take_energy(RunRow& row, const json& record) {
  if (record.is_null()) return;
  row.device = record_text(record, "device");
  row.energy_source = record_text(record, "energy_source");
  const auto positive = [&](const char* key) {
    const auto value = record_number(record, key);
    return value && *value > 0 ? value : std::nullopt;
  };
  row.energy_joules = positive("energy_joules");
  row.mean_power_watts = positive("mean_power_watts");
  row.samples_per_joule = positive("samples_per_joule");
}

std::optional<RunRow> read_run(const LogFile& file, SystemFiles& systems, std::vector<InputIssue>& issues) {
  const std::string path = file.path.string();
  ParsedLog log;
  try {
    log = read_log_file(path);
  } catch (const UserError& e) {
    issues.push_back({path, e.what()});
    return std::nullopt;
  }
  if (log.records.empty()) {
    issues.push_back({path, "not an MLPerf log: no :::MLLOG, :::MLL or :::MLPv0.5.0 lines"});
    return std::nullopt;
  }
  const RunSummary summary = summarize_run(log);
  if (const std::string missing = missing_events(summary, log); !missing.empty()) {
    issues.push_back({path, missing});
    return std::nullopt;
  }
  if (*summary.run_stop_ms < *summary.run_start_ms) {
    issues.push_back({path, "run_stop is earlier than run_start"});
    return std::nullopt;
  }
  if (!log.errors.empty())
    issues.push_back({path,
                      std::to_string(log.errors.size()) + " unparsable log line(s), first line " +
                          std::to_string(log.errors.front().line_number) + ": " + log.errors.front().message +
                          "; the run is used",
                      false});

  fs::path record_path = file.path;
  record_path.replace_extension(".json");
  const json record = read_record(record_path, issues);
  const fs::path folder = file.path.parent_path();
  const std::optional<SystemDescription>& system = systems.for_log_folder(folder);
  const std::optional<SystemDescription> entry = parse_submission_entry(logged_text(log, keys::kSubmissionEntry));

  RunRow row;
  row.summary = summary;
  row.log_path = path;
  row.record_path = record.is_null() ? "" : record_path.string();
  row.log_format = to_string(summary.format);
  row.result_index = file.index;
  row.benchmark = summary.benchmark;
  if (row.benchmark.empty() && !record.is_null()) row.benchmark = record_text(record, "benchmark");
  if (row.benchmark.empty()) row.benchmark = folder.filename().string();
  if (const std::string data = stand_in_data_source(summary); !data.empty()) row.benchmark += " (" + data + " data)";
  const RunPlatform where = resolve_platform(summary, system, entry, record, folder);
  row.platform = where.platform;
  row.platform_source = where.platform_source;
  row.device_model = where.device_model;
  row.device_count = where.device_count;
  row.device_count_source = where.device_count_source;
  row.device_kind = where.device_kind;
  row.seed = summary.seed;
  if (!row.seed && !record.is_null())
    if (const auto seed = record_number(record, "seed")) row.seed = static_cast<int64_t>(*seed);
  row.global_batch_size = summary.global_batch_size;
  if (!row.global_batch_size && !record.is_null())
    if (const auto batch = record_number(record, "global_batch_size"); batch && *batch > 0)
      row.global_batch_size = static_cast<int64_t>(*batch);
  row.converged = summary.converged;
  row.status = summary.status;
  row.epochs_to_converge = summary.epochs_to_converge;
  row.time_to_train_minutes = *summary.time_to_train_minutes();
  const auto record_epochs = record.is_null() ? std::nullopt : record_number(record, "epochs_run");
  row.epochs_run = record_epochs && *record_epochs > 0 ? record_epochs : epochs_run_in_log(log);
  if (!row.epochs_run && !summary.evals.empty()) row.epochs_run = summary.evals.back().epoch;
  take_throughput(row, log, record);
  if (!row.throughput_withheld.empty()) issues.push_back({path, row.throughput_withheld, false});
  take_energy(row, record);
  take_quality(row, summary, record);
  return row;
}

// Logs whose benchmark differs from the rest of their folder (the folder's name when it is one of
// the benchmarks, else the most common one) are moved out of `rows` into `issues`.
void drop_mixed_benchmarks(std::vector<RunRow>& rows, const fs::path& folder, std::vector<InputIssue>& issues) {
  std::map<std::string, int> counts;
  for (const RunRow& row : rows) ++counts[row.benchmark];
  if (counts.size() < 2) return;
  std::string folder_benchmark = folder.filename().string();
  if (!counts.count(folder_benchmark))
    folder_benchmark = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
                         return a.second < b.second;
                       })->first;
  std::vector<RunRow> kept;
  for (RunRow& row : rows) {
    if (row.benchmark == folder_benchmark) {
      kept.push_back(std::move(row));
      continue;
    }
    issues.push_back({row.log_path, "a " + row.benchmark + " log in a folder of " + folder_benchmark +
                                        " logs: give each benchmark its own folder"});
  }
  rows = std::move(kept);
}

void drop_repeated_seeds(std::vector<RunRow>& rows, std::vector<InputIssue>& issues) {
  std::map<std::tuple<std::string, std::string, int, int64_t>, std::string> first_log;
  std::vector<RunRow> kept;
  for (RunRow& row : rows) {
    if (row.seed) {
      const auto [it, inserted] =
          first_log.emplace(std::make_tuple(row.benchmark, row.platform, row.device_count, *row.seed), row.log_path);
      if (!inserted) {
        issues.push_back({row.log_path, "seed " + std::to_string(*row.seed) + " again (first run of it: " + it->second +
                                            "); each seed counts once per benchmark, platform and device count"});
        continue;
      }
    }
    kept.push_back(std::move(row));
  }
  rows = std::move(kept);
}

// The result logs under one input, by folder, each folder's logs in result index order.
std::map<fs::path, std::vector<LogFile>> find_logs(const std::string& input, std::vector<InputIssue>& issues) {
  std::map<fs::path, std::vector<LogFile>> by_folder;
  std::error_code error;
  const fs::path root(input);
  if (!fs::exists(root, error))
    throw UserError("report: '" + input + "' does not exist; give folders that hold result_<i>.txt logs");
  std::smatch match;
  if (!fs::is_directory(root, error)) {
    const std::string name = root.filename().string();
    const int index = std::regex_match(name, match, result_log_name()) ? std::stoi(match[1]) : 0;
    by_folder[root.parent_path()].push_back({root, index});
    return by_folder;
  }
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(error) || !std::regex_match(name, match, result_log_name())) continue;
    by_folder[it->path().parent_path()].push_back({it->path(), std::stoi(match[1])});
  }
  if (error) issues.push_back({input, "not fully readable: " + error.message(), false});
  if (by_folder.empty()) issues.push_back({input, "no result_<i>.txt logs in this folder or below it"});
  for (auto& [folder, files] : by_folder)
    std::sort(files.begin(), files.end(), [](const LogFile& a, const LogFile& b) { return a.index < b.index; });
  return by_folder;
}

}  // namespace

const char* to_string(ThroughputSource source) {
  switch (source) {
    case ThroughputSource::kNone: return "";
    case ThroughputSource::kRunResult: return "RunResult";
    case ThroughputSource::kDerivedFromLog: return "derived from log";
  }
  return "";
}

std::optional<double> mlperf_quality_target(const std::string& benchmark) {
  // shared/spec/mlperf-logging.md §4 (the v0.7 rule sets; ncf from the v0.5/v0.6 rules).
  static const std::map<std::string, double> targets = {{"resnet", 0.759}, {"ssd", 0.23}, {"maskrcnn", 0.377},
                                                        {"gnmt", 0.24},    {"transformer", 0.25}, {"ncf", 0.635}};
  const auto it = targets.find(benchmark);
  if (it == targets.end()) return std::nullopt;
  return it->second;
}

std::vector<EpochSamples> mlperf_epoch_samples(const std::string& benchmark) {
  // shared/spec/workloads.md: ImageNet train; COCO train2017 with annotations (Mask R-CNN's filter
  // may differ slightly: within the tolerance); WMT16 pairs of at most 50 (reference) or 75 (NVIDIA)
  // tokens; WMT17 pairs; MovieLens-20M train positives, alone or with their 4 negatives each.
  static const std::map<std::string, std::vector<EpochSamples>> epochs = {
      {"resnet", {{1281167, 1281167, "1,281,167 ImageNet images"}}},
      {"ssd", {{117266, 117266, "117,266 COCO train2017 images"}}},
      {"maskrcnn", {{117266, 117266, "117,266 COCO train2017 images"}}},
      {"gnmt", {{3498161, 3975116, "3,498,161 to 3,975,116 WMT16 sentence pairs"}}},
      {"transformer", {{4590101, 4590101, "4,590,101 WMT17 sentence pairs"}}},
      {"ncf", {{19861770, 19861770, "19,861,770 MovieLens-20M train ratings"},
               {99308850, 99308850, "99,308,850 with 4 negatives each"}}}};
  const auto it = epochs.find(benchmark);
  return it == epochs.end() ? std::vector<EpochSamples>{} : it->second;
}

std::string RunPlatform::label() const {
  return device_count > 0 ? std::to_string(device_count) + "x" + platform : platform;
}

std::string RunPlatform::label_with_kind() const {
  return device_count > 0 ? label() + ": " + count_label(device_count, device_kind) : platform;
}

const char* to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kGpu: return "gpu";
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kAccelerator: return "accelerator";
  }
  return "";
}

std::optional<DeviceKind> device_kind_by_name(const std::string& name) {
  static const std::regex gpu(R"(nvidia|tesla|geforce|quadro|titan|radeon|instinct|gpu|dgx|[ahpv]100|\bt4\b|\bl4\b|h200|cuda)",
                              std::regex::icase);
  static const std::regex cpu(R"(\bcpu|xeon|epyc|ryzen|threadripper|opteron|graviton|ampere altra)", std::regex::icase);
  if (std::regex_search(name, gpu)) return DeviceKind::kGpu;
  if (std::regex_search(name, cpu)) return DeviceKind::kCpu;
  return std::nullopt;
}

std::string count_noun(std::optional<DeviceKind> kind) {
  if (!kind) return "devices";
  switch (*kind) {
    case DeviceKind::kGpu: return "GPUs";
    case DeviceKind::kCpu: return "CPU ranks";
    case DeviceKind::kAccelerator: return "accelerators";
  }
  return "devices";
}

std::string count_label(int count, std::optional<DeviceKind> kind) {
  std::string noun = count_noun(kind);
  if (count == 1) noun.pop_back();  // "1 GPU", "1 CPU rank"
  return (count > 0 ? std::to_string(count) : std::string("?")) + " " + noun;
}

RunPlatform identify_run_platform(const RunSummary& summary) {
  const fs::path log_path(summary.path);
  std::optional<SystemDescription> system;
  const std::string system_path = system_file_for_log_folder(log_path.parent_path().string());
  std::error_code error;
  if (!system_path.empty() && fs::is_regular_file(system_path, error)) {
    std::string problem;
    system = read_system_file(system_path, &problem);
  }
  fs::path record_path = log_path;
  record_path.replace_extension(".json");
  std::vector<InputIssue> ignored;
  const json record = read_record(record_path, ignored);
  std::optional<SystemDescription> entry;
  try {
    entry = parse_submission_entry(logged_text(read_log_file(summary.path), keys::kSubmissionEntry));
  } catch (const UserError&) {
  }
  return resolve_platform(summary, system, entry, record, log_path.parent_path());
}

std::string RunRow::seed_label() const {
  return seed ? "seed " + std::to_string(*seed) : "run " + std::to_string(result_index);
}

std::string platform_without_count(const std::string& label, int* count) {
  static const std::regex counted(R"((\d{1,5})x\s*(.+))");
  std::smatch match;
  if (!std::regex_match(label, match, counted)) return label;
  if (count) *count = std::stoi(match[1]);
  return match[2].str();
}

CollectedRuns collect_runs(const std::vector<std::string>& inputs) {
  CollectedRuns collected;
  std::map<fs::path, std::vector<LogFile>> by_folder;
  std::set<fs::path> seen;
  for (const std::string& input : inputs) {
    for (auto& [folder, files] : find_logs(input, collected.issues)) {
      for (LogFile& file : files) {
        std::error_code error;
        const fs::path canonical = fs::weakly_canonical(file.path, error);
        if (!seen.insert(error ? file.path : canonical).second) continue;  // named twice
        by_folder[folder].push_back(std::move(file));
      }
    }
  }
  SystemFiles systems(collected.issues);
  for (auto& [folder, files] : by_folder) {
    std::sort(files.begin(), files.end(), [](const LogFile& a, const LogFile& b) { return a.index < b.index; });
    std::vector<RunRow> rows;
    for (const LogFile& file : files) {
      ++collected.logs_found;
      if (auto row = read_run(file, systems, collected.issues)) rows.push_back(std::move(*row));
    }
    drop_mixed_benchmarks(rows, folder, collected.issues);
    for (RunRow& row : rows) collected.runs.push_back(std::move(row));
  }
  drop_repeated_seeds(collected.runs, collected.issues);
  std::stable_sort(collected.runs.begin(), collected.runs.end(), [](const RunRow& a, const RunRow& b) {
    return std::tie(a.benchmark, a.platform, a.device_count) < std::tie(b.benchmark, b.platform, b.device_count);
  });
  return collected;
}

}  // namespace mlh::report
