#include "compliance/run_summary.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compliance/benchmark_facts.h"
#include "compliance/benchmark_names.h"
#include "compliance/mllog_keys.h"

namespace mlh {
namespace {

std::string string_value(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

std::optional<int64_t> integer_value(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) return static_cast<int64_t>(value.get<double>());
  if (value.is_string()) {
    try {
      return std::stoll(value.get<std::string>());
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

// v0.5's lines, and Alibaba's v0.6 ones after them, carry an eval_accuracy's epoch and a run_stop's
// verdict in the value ({"value": 0.7598, "epoch": 79}, {"success": true}), not in metadata.
bool value_holds_the_details(LogFormat format) { return format == LogFormat::kMlpV05 || format == LogFormat::kAlibabaV06; }

// The epoch of an eval_accuracy record, counted from 1 (nullopt when the log does not say).
std::optional<double> eval_epoch(const LogRecord& r) {
  if (value_holds_the_details(r.format)) {
    if (r.value.is_object() && r.value.contains("epoch") && r.value["epoch"].is_number())
      return r.value["epoch"].get<double>() + 1;
    return std::nullopt;
  }
  if (r.metadata.contains("epoch_num") && r.metadata["epoch_num"].is_number())
    return r.metadata["epoch_num"].get<double>();
  return std::nullopt;
}

nlohmann::json eval_value(const LogRecord& r) {
  if (value_holds_the_details(r.format) && r.value.is_object() && r.value.contains("value")) return r.value["value"];
  return r.value;
}

// A success flag as the rounds logged it: true/false, or the strings "true"/"false" (Google's v0.5 TPU
// logs); nullopt for anything else.
std::optional<bool> success_flag(const nlohmann::json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "true" || text == "True") return true;
    if (text == "false" || text == "False") return false;
  }
  return std::nullopt;
}

// "success", "aborted" (v0.5's success false), the status a v0.6+ log names, or "" when run_stop
// gives no verdict (NVIDIA's v0.5 ResNet-50 and Transformer logs: a bare `run_stop`).
std::string stop_status(const LogRecord& r) {
  const nlohmann::json& holder = value_holds_the_details(r.format) ? r.value : r.metadata;
  if (!value_holds_the_details(r.format) && holder.contains("status")) return string_value(holder["status"]);
  if (holder.is_object() && holder.contains("success"))
    if (const std::optional<bool> success = success_flag(holder["success"])) return *success ? "success" : "aborted";
  return "";
}

// An eval_target object the log names ({"BBOX": 0.377, "SEGM": 0.339}), in its order.
std::vector<MemberTarget> logged_member_targets(const nlohmann::json& value) {
  std::vector<MemberTarget> targets;
  if (!value.is_object()) return targets;
  for (const auto& [name, member] : value.items())
    if (member.is_number()) targets.push_back({name, member.get<double>()});
  return targets;
}

bool several_numbers(const nlohmann::json& value) { return value.is_object() || value.is_array(); }

}  // namespace

std::vector<std::optional<double>> member_values(const nlohmann::json& value, const std::vector<MemberTarget>& targets) {
  std::vector<std::optional<double>> values;
  if (!several_numbers(value)) return values;
  for (size_t i = 0; i < targets.size(); ++i) {
    const nlohmann::json* member = nullptr;
    if (value.is_object() && value.contains(targets[i].name)) member = &value[targets[i].name];
    if (value.is_array() && i < value.size()) member = &value[i];
    values.push_back(member && member->is_number() ? std::optional<double>(member->get<double>()) : std::nullopt);
  }
  return values;
}

std::string members_below_target(const nlohmann::json& value, const std::vector<MemberTarget>& targets) {
  const std::vector<std::optional<double>> values = member_values(value, targets);
  std::ostringstream below;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i < values.size() && values[i] && reaches_target(*values[i], targets[i].value)) continue;
    below << (below.tellp() > 0 ? ", " : "") << targets[i].name;
    if (i < values.size() && values[i]) below << " " << *values[i] << " < " << targets[i].value;
    else below << " missing";
  }
  return below.str();
}

bool reaches_target(double accuracy, double target) {
  return accuracy >= target - kTargetTolerance * std::abs(target);
}

bool converged_by_own_log(const RunSummary& run) {
  if (run.evals.empty()) return false;
  const nlohmann::json& last = run.evals.back().value;
  if (!run.member_targets.empty() && several_numbers(last)) {
    const bool reached = members_below_target(last, run.member_targets).empty();
    return (run.status == "success" || run.status.empty()) && reached;
  }
  const bool judged_by_accuracy = run.target && last.is_number();
  if (run.status == "success") return !judged_by_accuracy || reaches_target(last.get<double>(), *run.target);
  if (run.status.empty()) return judged_by_accuracy && reaches_target(last.get<double>(), *run.target);
  return false;
}

std::optional<double> RunSummary::time_to_train_minutes() const {
  if (!run_start_ms || !run_stop_ms) return std::nullopt;
  return (*run_stop_ms - *run_start_ms) / 60000.0;
}

RunSummary summarize_run(const ParsedLog& log) {
  RunSummary run;
  run.path = log.path;
  if (!log.records.empty()) run.format = log.records.front().format;
  for (const LogRecord& r : log.records) {
    if (run.logged_benchmark.empty() && !r.benchmark.empty()) run.logged_benchmark = r.benchmark;
    if (r.key.rfind("mlharness_", 0) == 0) run.written_by_mlharness = true;
    if (r.key == keys::kSubmissionBenchmark) run.logged_benchmark = string_value(r.value);
    else if (r.key == keys::kSubmissionPlatform) run.platform = string_value(r.value);
    else if (r.key == keys::kSubmissionDivision) run.division = string_value(r.value);
    else if (r.key == keys::kSubmissionOrg) run.org = string_value(r.value);
    else if (r.key == keys::kSeed) run.seed = integer_value(r.value);
    else if (r.key == keys::kGlobalBatchSize || (r.key == "input_batch_size" && !run.global_batch_size))
      run.global_batch_size = integer_value(r.value);
    else if (r.key == "eval_target" && r.value.is_number()) run.target = r.value.get<double>();
    else if (r.key == "eval_target" && r.value.is_object()) run.member_targets = logged_member_targets(r.value);
    else if (r.key == keys::kEffectiveConfig && r.value.is_object() && run.effective_config.is_null())
      run.effective_config = r.value;
    else if (r.key == keys::kResumedFrom && !run.resumed) {
      const ResumedFrom resumed = read_resumed_from(r.value);
      run.resumed = true;
      run.resumed_from_epoch = resumed.epoch;
      run.resumed_from_checkpoint = resumed.checkpoint;
      run.resumed_from_log = resumed.log_file;
    } else if (r.key == keys::kRunStart && !run.run_start_ms) run.run_start_ms = r.time_ms;
    else if (r.key == keys::kRunStop && !run.run_stop_ms) {
      run.run_stop_ms = r.time_ms;
      run.status = stop_status(r);
    } else if (r.key == keys::kEvalAccuracy && !run.run_stop_ms) {
      EvalAccuracyPoint point;
      point.epoch = eval_epoch(r).value_or(static_cast<double>(run.evals.size() + 1));
      point.value = eval_value(r);
      point.time_ms = r.time_ms;
      run.evals.push_back(std::move(point));
    }
  }
  if (log.truncated_last_line) run.problems.push_back("the log ends in the middle of a line");
  if (log.records.empty()) run.problems.push_back("no MLPerf log lines");
  for (const LogParseError& e : log.errors)
    run.problems.push_back("line " + std::to_string(e.line_number) + ": " + e.message);
  if (!log.records.empty() && !run.run_start_ms) run.problems.push_back("no run_start");
  if (!log.records.empty() && !run.run_stop_ms) run.problems.push_back("no run_stop");
  if (run.run_start_ms && run.run_stop_ms && *run.run_stop_ms < *run.run_start_ms)
    run.problems.push_back("run_stop before run_start");

  run.benchmark = canonical_benchmark(run.logged_benchmark);
  // A bare run_stop and no eval_target (Alibaba's v0.6 logs): MLPerf's target for the benchmark judges.
  if (run.status.empty() && !run.target) run.target = mlperf_quality_target(run.benchmark);
  const bool accuracy_of_several = std::any_of(run.evals.begin(), run.evals.end(),
                                               [](const EvalAccuracyPoint& point) { return several_numbers(point.value); });
  if (accuracy_of_several && run.member_targets.empty()) run.member_targets = mlperf_member_targets(run.benchmark);
  run.converged = converged_by_own_log(run);
  if (run.converged) run.epochs_to_converge = run.evals.back().epoch;
  return run;
}

ResumedFrom read_resumed_from(const nlohmann::json& value) {
  ResumedFrom resumed;
  if (!value.is_object()) return resumed;
  if (value.contains("epoch")) resumed.epoch = integer_value(value["epoch"]);
  if (value.contains("checkpoint")) resumed.checkpoint = string_value(value["checkpoint"]);
  if (value.contains("log_file")) resumed.log_file = string_value(value["log_file"]);
  return resumed;
}

std::string resumed_run_reason(const ResumedFrom& resumed) {
  std::string text = "resumed from a checkpoint";
  if (resumed.epoch) text += " after epoch " + std::to_string(*resumed.epoch);
  if (!resumed.checkpoint.empty()) text += " (" + resumed.checkpoint + ")";
  return text + ": a resumed run's time to train is not a compliant result";
}

}  // namespace mlh
