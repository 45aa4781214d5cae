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
#include "compliance/result_groups.h"
#include "compliance/mllog_keys.h"
#include "compliance/run_summary.h"
#include "base/user_error.h"
#include "report/system_description.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The <i> of result_<i>.txt, and of the names with more after it (Intel's v0.7 DLRM logs:
// result_1_4n16r_32k_1593109255.txt); 0 for a result_*.txt without one.
int result_index(const fs::path& path) {
  static const std::regex numbered(R"(result_(\d{1,9})(?:\D.*)?\.txt)");
  std::smatch match;
  const std::string name = path.filename().string();
  return std::regex_match(name, match, numbered) ? std::stoi(match[1]) : 0;
}

struct LogFile {
  fs::path path;
  int index = 0;
};

bool by_index_then_path(const LogFile& a, const LogFile& b) { return std::tie(a.index, a.path) < std::tie(b.index, b.path); }

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

// What the submission's files say about the system a log ran on: systems/<system>.json, and v0.5's
// results/<system>/entry.json.
struct SubmissionFiles {
  std::optional<SystemDescription> system;
  std::optional<SystemDescription> entry;
};

class SystemFiles {
 public:
  explicit SystemFiles(std::vector<InputIssue>& issues) : issues_(issues) {}
  SubmissionFiles for_log_folder(const fs::path& folder) {
    return {read(system_file_for_log_folder(folder.string())), read(entry_file_for_log_folder(folder.string()))};
  }

 private:
  const std::optional<SystemDescription>& read(const std::string& path) {
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

  std::vector<InputIssue>& issues_;
  std::map<std::string, std::optional<SystemDescription>> cache_;
};

// What a log says about its system beyond RunSummary.
struct LogSystemFacts {
  std::optional<SystemDescription> entry;  // submission_entry (v0.6): a Python dict literal or a JSON object
  int nodes_clearing_caches = 0;           // v0.5 run_clear_caches records: one per node in NVIDIA's logs
};

LogSystemFacts log_system_facts(const ParsedLog& log) {
  LogSystemFacts facts;
  for (const LogRecord& r : log.records) {
    if (r.key == keys::kSubmissionEntry && !facts.entry) {
      if (r.value.is_string()) facts.entry = parse_submission_entry(r.value.get<std::string>());
      else if (r.value.is_object()) facts.entry = parse_submission_entry(r.value.dump());
    } else if (r.key == "run_clear_caches") {
      ++facts.nodes_clearing_caches;
    }
  }
  return facts;
}

std::string missing_events(const RunSummary& summary, const ParsedLog& log) {
  std::string what;
  if (!summary.run_start_ms) what = "no run_start";
  if (!summary.run_stop_ms) what += std::string(what.empty() ? "" : ", ") + "no run_stop";
  if (what.empty()) return "";
  if (log.truncated_last_line) what += " (its last line is cut off: the run was still going, or it crashed)";
  else if (summary.run_start_ms) what += " (the run was still going, or it crashed)";
  return what;
}

// A device count a name gives, and what it counts.
struct NamedCount {
  int count = 0;
  DeviceKind kind = DeviceKind::kAccelerator;
  std::string what;
};

// The count in a system or platform name, past the leading "<N>x" the label's own rule takes:
// "abci_2048xV100", "GN10X-8xV100" (N x a GPU model); "v100-1280", "V100x8" (a GPU model and N); a
// TPU slice "tpu-v3-128", whose name counts TPU cores: the count in v0.5's convention, which counted
// cores (a v0.5 log), else in the later rounds', which count chips, two cores each on v2 to v4.
std::optional<NamedCount> count_in_name(const std::string& name, LogFormat format) {
  if (const auto cores = tpu_slice_cores(name)) {
    if (format == LogFormat::kMlpV05) return NamedCount{*cores, DeviceKind::kAccelerator, "TPU cores, as v0.5 counted them"};
    if (*cores >= 2) return NamedCount{*cores / 2, DeviceKind::kAccelerator, "TPU chips, half its cores, as v0.6 on counted"};
  }
  static const std::regex count_then_gpu(R"((?:^|[^A-Za-z0-9])(\d{1,5})x([A-Za-z][A-Za-z0-9]*))", std::regex::icase);
  static const std::regex gpu_then_count(R"((?:^|[^A-Za-z0-9])([A-Za-z]{1,2}\d{2,3}[A-Za-z]?)[-x](\d{1,5})(?![\d.]))", std::regex::icase);
  std::smatch match;
  if (std::regex_search(name, match, count_then_gpu) && device_kind_by_name(match[2]) == DeviceKind::kGpu && std::stoi(match[1]) > 0)
    return NamedCount{std::stoi(match[1]), DeviceKind::kGpu, "GPUs"};
  if (std::regex_search(name, match, gpu_then_count) && device_kind_by_name(match[1]) == DeviceKind::kGpu && std::stoi(match[2]) > 0)
    return NamedCount{std::stoi(match[2]), DeviceKind::kGpu, "GPUs"};
  return std::nullopt;
}

// The systems JSON's (or entry.json's) fields as a device_count_source: "system JSON" for
// accelerators_per_node x number_of_nodes, the form of most files, else the fields named.
std::string description_source(const char* file, const SystemDescription& system) {
  if (system.count_fields == "accelerators_per_node x number_of_nodes" && std::string(file) == "system JSON") return file;
  return std::string(file) + " (" + system.count_fields + ")";
}

// The processes per node a v0.5 multi-node log's launch lines name (NVIDIA's PyTorch logs keep the
// shell trace: "nproc_per_node 8", SLURM_NTASKS_PER_NODE=8); nullopt when they name none.
std::optional<int> launched_ranks_per_node(const std::string& log_path) {
  static const std::regex launch(R"((?:nproc_per_node[= ]|SLURM_NTASKS_PER_NODE=)(\d{1,3})\b)");
  std::ifstream in(log_path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(":::", 0) == 0) continue;
    std::smatch match;
    if (std::regex_search(line, match, launch) && std::stoi(match[1]) > 0) return std::stoi(match[1]);
  }
  return std::nullopt;
}

// A v0.5 entry.json's count. NVIDIA's multi-node entries name the whole pod (128 DGX-1s, 36 DGX-2Hs);
// each run counts the nodes its log shows (each clears its caches once: run_clear_caches) times the
// GPUs it launched per node: the entry's, or fewer where the log's launch lines say so (SSD on DGX-2H
// ran 8 ranks per node, as NVIDIA's v0.6 submission_entry counts that system).
std::pair<int, std::string> entry_file_count(const SystemDescription& entry, const LogSystemFacts& facts,
                                             const std::string& log_path) {
  const int pod_nodes = entry.nodes.value_or(1), logged_nodes = facts.nodes_clearing_caches;
  if (entry.accelerators_total || !entry.accelerators_per_node || pod_nodes < 2 || logged_nodes < 2 || logged_nodes >= pod_nodes)
    return {*entry.accelerator_count(), description_source("entry.json", entry)};
  int per_node = *entry.accelerators_per_node;
  std::string per_node_source = "entry.json num_accelerators " + std::to_string(per_node) + " per node";
  if (const auto launched = launched_ranks_per_node(log_path); launched && *launched < per_node) {
    per_node = *launched;
    per_node_source = std::to_string(per_node) + " ranks per node (the log's launch lines; entry.json: " +
                      std::to_string(*entry.accelerators_per_node) + " GPUs per node)";
  }
  return {logged_nodes * per_node, per_node_source + " x " + std::to_string(logged_nodes) +
                                       " nodes (one run_clear_caches each in the log; the entry names a " +
                                       std::to_string(pod_nodes) + "-node pod)"};
}

RunPlatform resolve_platform(const RunSummary& summary, const SubmissionFiles& files, const LogSystemFacts& facts,
                             const json& record, const fs::path& log_folder) {
  // NVIDIA's v0.6 systems lines repeat the logs' submission_entry: the log's own is taken first.
  const bool system_is_entry = files.system && files.system->from_log_lines;
  const std::optional<SystemDescription> system = system_is_entry ? std::nullopt : files.system;
  const std::optional<SystemDescription>& entry_file = files.entry;
  const std::optional<SystemDescription>& entry = facts.entry || !system_is_entry ? facts.entry : files.system;
  const std::string entry_source = facts.entry ? "log submission_entry" : "system JSON entry line";
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
  } else if (entry_file && entry_file->is_tpu_slice()) {  // v0.5 Google: every system folder is "tpu"
    label = entry_file->accelerator_model;
    where.platform_source = "entry.json accelerator";
  } else {
    label = log_folder.parent_path().filename().string();
    where.platform_source = "folder name";
  }
  int label_count = 0;
  where.platform = platform_without_count(label, &label_count);
  if (where.platform.empty()) where.platform = label;

  std::optional<DeviceKind> count_kind;  // the kind the count's own source says, before the model's
  const auto take = [&](int count, std::string source, std::optional<DeviceKind> kind = std::nullopt) {
    where.device_count = count;
    where.device_count_source = std::move(source);
    count_kind = kind;
  };
  std::optional<double> record_devices;
  if (!record.is_null()) record_devices = record_number(record, "device_count");
  if (system && system->accelerator_count()) {
    take(*system->accelerator_count(), description_source("system JSON", *system));
  } else if (system && system->processor_count()) {
    take(*system->processor_count(), description_source("system JSON", *system), DeviceKind::kCpuSocket);
  } else if (entry_file && entry_file->accelerator_count()) {
    auto [count, source] = entry_file_count(*entry_file, facts, summary.path);
    take(count, std::move(source));
  } else if (entry_file && entry_file->processor_count()) {
    take(*entry_file->processor_count(), description_source("entry.json", *entry_file), DeviceKind::kCpuSocket);
  } else if (record_devices && *record_devices > 0) {
    take(static_cast<int>(*record_devices), "RunResult device_count");
  } else if (entry && entry->accelerator_count()) {
    take(*entry->accelerator_count(), entry_source);
  } else if (entry && entry->processor_count()) {
    take(*entry->processor_count(), entry_source + " (" + entry->count_fields + ")", DeviceKind::kCpuSocket);
  } else if (label_count > 0) {
    take(label_count, "platform label");
  } else {
    // The folders: the benchmark's (or the system's, where logs sit in it), the system's, and in v0.5's
    // layout <submission>/results/<system>/<benchmark> the submission's ("resnet-tpuv3-32").
    const std::string folder = log_folder.filename().string(), system_folder = log_folder.parent_path().filename().string();
    const fs::path results = log_folder.parent_path().parent_path();
    const std::string submission_folder = results.filename() == "results" ? results.parent_path().filename().string() : "";
    for (const auto& [name, source] : {std::pair{label, "platform label"}, std::pair{system_folder, "system folder name"},
                                       std::pair{folder, "folder name"}, std::pair{submission_folder, "submission folder name"}}) {
      if (const auto named = count_in_name(name, summary.format)) {
        take(named->count, std::string(source) + " '" + name + "' (" + named->what + ")", named->kind);
        break;
      }
    }
  }

  const bool counts_processors = count_kind == DeviceKind::kCpuSocket;
  const SystemDescription* described = system ? &*system : entry_file ? &*entry_file : entry ? &*entry : nullptr;
  if (counts_processors && described) where.device_model = described->host_processor_model;
  else if (system && !system->accelerator_model.empty()) where.device_model = system->accelerator_model;
  else if (!record.is_null() && !record_text(record, "device_model").empty()) where.device_model = record_text(record, "device_model");
  else if (entry_file && !entry_file->accelerator_model.empty()) where.device_model = entry_file->accelerator_model;
  else if (entry) where.device_model = entry->accelerator_model;

  const std::string record_device = record.is_null() ? "" : record_text(record, "device");
  if (record_device == "cpu") where.device_kind = DeviceKind::kCpu;
  else if (record_device == "cuda") where.device_kind = DeviceKind::kGpu;
  else if (count_kind) where.device_kind = *count_kind;
  else if (const auto by_model = device_kind_by_name(where.device_model)) where.device_kind = *by_model;
  else if (const auto by_platform = device_kind_by_name(label)) where.device_kind = *by_platform;
  else where.device_kind = DeviceKind::kAccelerator;
  return where;
}

// The targets of a quality of several numbers in a RunResult record (quality_targets); empty for one.
std::vector<MemberTarget> record_members(const json& record) {
  std::vector<MemberTarget> members;
  const auto targets = record.find("quality_targets");
  if (targets == record.end() || !targets->is_array() || targets->size() < 2) return members;
  for (const json& target : *targets) {
    const auto value = record_number(target, "value");
    if (!target.is_object() || !value || record_text(target, "name").empty()) return {};
    members.push_back({record_text(target, "name"), *value});
  }
  return members;
}

void take_quality(RunRow& row, const RunSummary& summary, const json& record) {
  row.quality_name = record.is_null() ? "" : record_text(record, "quality_name");
  if (!record.is_null()) {
    const auto target = record_number(record, "quality_target");
    if (target && *target > 0) row.quality_target = target;
    row.quality_members = record_members(record);
    if (!row.quality_members.empty()) row.quality_name = row.quality_members.front().name;
    const auto evals = record.find("evals");
    if (!row.quality_name.empty() && evals != record.end() && evals->is_array()) {
      for (const json& point : *evals) {
        const auto epoch = record_number(point, "epoch");
        const auto quality = point.find("quality");
        if (!epoch || quality == point.end() || !quality->is_object()) continue;
        const auto value = quality->find(row.quality_name);
        if (value != quality->end() && value->is_number())
          row.evals.push_back({*epoch, value->get<double>(), member_values(*quality, row.quality_members)});
      }
    }
  }
  if (!row.quality_target) row.quality_target = summary.target;
  if (!row.evals.empty()) return;
  row.quality_members = summary.member_targets;
  std::string name = keys::kEvalAccuracy;
  for (const EvalAccuracyPoint& point : summary.evals) {
    std::vector<std::optional<double>> members = member_values(point.value, row.quality_members);
    if (!members.empty() && members.front()) row.evals.push_back({point.epoch, *members.front(), std::move(members)});
    else if (const auto value = quality_number(point.value, &name)) row.evals.push_back({point.epoch, *value, std::move(members)});
  }
  if (std::all_of(row.evals.begin(), row.evals.end(), [](const QualityPoint& p) { return p.members.empty(); }))
    row.quality_members.clear();  // one number per eval after all
  if (!row.quality_members.empty()) name = row.quality_members.front().name;
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
  // Records with the CPU packages' energy (RAPL): the run's energy is what was measured, GPU boards and
  // CPU packages, as its power and samples per joule are; the source names both parts.
  const std::string measured = record_text(record, "energy_measured");
  if (const auto cpu = positive("cpu_energy_joules")) {
    row.energy_joules = row.energy_joules.value_or(0.0) + *cpu;
    row.energy_source = (measured == "cpu" ? "" : row.energy_source + " + ") + record_text(record, "cpu_energy_source");
  }
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
    issues.push_back({path, not_a_log_reason(log)});
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
  const SubmissionFiles files = systems.for_log_folder(folder);

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
  const RunPlatform where = resolve_platform(summary, files, log_system_facts(log), record, folder);
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

// The runs of one folder are one system: a log naming another platform than most of its folder (SIAT's
// v0.7 result_3 says "Ascens 910" where four say "Ascend 910") is grouped with the rest, as `score`
// groups by folder, with a warning naming both.
void unify_platforms(std::vector<RunRow>& rows, std::vector<InputIssue>& issues) {
  std::map<std::pair<std::string, int>, int> counts;
  for (const RunRow& row : rows) ++counts[{row.platform, row.device_count}];
  if (counts.size() < 2) return;
  const auto most = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const std::string platform = most->first.first;  // named, not a structured binding: C++17 lambdas cannot capture one
  const int device_count = most->first.second;
  const DeviceKind kind = std::find_if(rows.begin(), rows.end(), [&](const RunRow& row) {
                            return row.platform == platform && row.device_count == device_count;
                          })->device_kind;
  for (RunRow& row : rows) {
    if (row.platform == platform && row.device_count == device_count) continue;
    issues.push_back({row.log_path, "names platform '" + row.platform + "' (" + count_label(row.device_count, row.device_kind) +
                                        ") where the other logs of its folder say '" + platform + "' (" +
                                        count_label(device_count, kind) + "); grouped with them",
                      false});
    row.platform = platform;
    row.device_count = device_count;
    row.device_kind = kind;
  }
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

// The result logs under one input, by folder, each folder's logs in result index order: every
// result_*.txt, the files `mlharness score` reads (find_result_files).
std::map<fs::path, std::vector<LogFile>> find_logs(const std::string& input, std::vector<InputIssue>& issues) {
  std::map<fs::path, std::vector<LogFile>> by_folder;
  std::error_code error;
  if (!fs::exists(fs::path(input), error))
    throw UserError("report: '" + input + "' does not exist; give folders that hold result_<i>.txt logs");
  std::vector<std::string> files;
  try {
    files = find_result_files(input);
  } catch (const UserError& e) {
    issues.push_back({input, std::string("not fully readable: ") + e.what()});
  }
  for (const std::string& file : files) {
    const fs::path path(file);
    by_folder[path.parent_path()].push_back({path, result_index(path)});
  }
  if (by_folder.empty()) issues.push_back({input, "no result_<i>.txt logs in this folder or below it"});
  for (auto& [folder, logs] : by_folder) std::sort(logs.begin(), logs.end(), by_index_then_path);
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
    case DeviceKind::kCpuSocket: return "cpu_socket";
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
    case DeviceKind::kCpuSocket: return "CPU sockets";
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
  std::vector<InputIssue> ignored;
  SystemFiles systems(ignored);
  const SubmissionFiles files = systems.for_log_folder(log_path.parent_path());
  fs::path record_path = log_path;
  record_path.replace_extension(".json");
  const json record = read_record(record_path, ignored);
  LogSystemFacts facts;
  try {
    facts = log_system_facts(read_log_file(summary.path));
  } catch (const UserError&) {
  }
  return resolve_platform(summary, files, facts, record, log_path.parent_path());
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
    std::sort(files.begin(), files.end(), by_index_then_path);
    std::vector<RunRow> rows;
    for (const LogFile& file : files) {
      ++collected.logs_found;
      if (auto row = read_run(file, systems, collected.issues)) rows.push_back(std::move(*row));
    }
    drop_mixed_benchmarks(rows, folder, collected.issues);
    unify_platforms(rows, collected.issues);
    for (RunRow& row : rows) collected.runs.push_back(std::move(row));
  }
  drop_repeated_seeds(collected.runs, collected.issues);
  std::stable_sort(collected.runs.begin(), collected.runs.end(), [](const RunRow& a, const RunRow& b) {
    return std::tie(a.benchmark, a.platform, a.device_count) < std::tie(b.benchmark, b.platform, b.device_count);
  });
  return collected;
}

}  // namespace mlh::report
