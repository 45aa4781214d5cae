#include "compliance/checker.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "compliance/benchmark_names.h"
#include "compliance/log_history.h"
#include "compliance/mllog_keys.h"
#include "compliance/rule_set.h"
#include "compliance/run_summary.h"
#include "base/user_error.h"

namespace mlh {
namespace {

std::string replace_all(std::string text, const std::string& placeholder, const std::string& value) {
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size())) {
    text.replace(at, placeholder.size(), value);
  }
  return text;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// submission_benchmark's value, or else the benchmark field of v0.5 lines.
std::string benchmark_of(const std::vector<LogRecord>& records) {
  for (const LogRecord& record : records) {
    if (record.key == keys::kSubmissionBenchmark && record.value.is_string()) return record.value.get<std::string>();
  }
  for (const LogRecord& record : records) {
    if (!record.benchmark.empty()) return record.benchmark;
  }
  return "";
}

// The benchmarks of mlharness's six that `ruleset` has a rules file for ("ncf" for 0.5.0's ncf.yaml,
// "gnmt" for 0.7.0's closed_gnmt.yaml).
std::vector<std::string> benchmarks_with_rules(const std::string& ruleset) {
  std::set<std::string> covered;
  for (const std::string& path : embedded_rule_file_names()) {
    if (path.compare(0, ruleset.size() + 1, ruleset + "/") != 0) continue;
    std::string name = path.substr(ruleset.size() + 1);
    for (const std::string prefix : {"closed_", "open_"}) {
      if (name.compare(0, prefix.size(), prefix) == 0) name = name.substr(prefix.size());
    }
    if (is_mlharness_benchmark(name)) covered.insert(name);
  }
  return std::vector<std::string>(covered.begin(), covered.end());
}

// Why a benchmark's rules are not checked: the ruleset has no file for an MLPerf benchmark.
std::string not_checked_reason(const std::string& ruleset, const std::string& benchmark) {
  std::string text = "ruleset " + ruleset + " has no rules for benchmark '" + benchmark + "'";
  if (const std::string skipped = skipped_benchmark_reason(benchmark); !skipped.empty()) return text + " (" + skipped + ")";
  const std::vector<std::string> covered = benchmarks_with_rules(ruleset);
  return text + " (mlharness's " + ruleset + " rules cover " + (covered.empty() ? "none" : join(covered, ", ")) +
         "), so its benchmark rules are not checked";
}

// A rule file to check, and what asked for it (for the message when it does not exist).
struct FileRequest {
  std::string name;
  std::string requested_by;  // "submission_benchmark = \"ncf\"", "the log's benchmark 'ncf'"
  std::string key;
  int line_number = 0;
  std::string benchmark;     // canonical, when the file holds a benchmark's rules
};

// The rules that apply to a log: common.yaml, and the files it and they bring in through `include`
// and `then`; a key declared in a later file replaces its earlier declaration.
struct ActiveRules {
  std::vector<KeyRule> keys;
  std::string format;
  std::vector<RuleFailure> failures;     // files asked for that do not exist
  std::vector<std::string> not_checked;  // an MLPerf benchmark's file that the ruleset does not have
};

// Benchmark files are looked up by the benchmark's canonical name (Google's v0.6 "mask" reads
// maskrcnn's rules); the log's own name is still what value tests see.
ActiveRules resolve_rules(const std::string& ruleset, const std::vector<LogRecord>& records,
                          const std::string& logged_benchmark) {
  ActiveRules active;
  const std::string benchmark = canonical_benchmark(logged_benchmark);
  std::deque<FileRequest> queue = {{"common", "the ruleset", "", 0, ""}};
  std::set<std::string> seen;
  while (!queue.empty()) {
    const FileRequest request = queue.front();
    queue.pop_front();
    if (!seen.insert(request.name).second) continue;
    const std::optional<RuleFile> file = load_rule_file(ruleset, request.name);
    if (!file && !request.benchmark.empty() && is_mlperf_benchmark(request.benchmark)) {
      const std::string reason = not_checked_reason(ruleset, request.benchmark);
      if (std::find(active.not_checked.begin(), active.not_checked.end(), reason) == active.not_checked.end()) {
        active.not_checked.push_back(reason);
      }
      continue;
    }
    if (!file) {
      active.failures.push_back({request.key, "rules", request.line_number,
                                 "ruleset " + ruleset + " has no rules file '" + request.name + "' (named by " +
                                     request.requested_by + ")",
                                 ""});
      continue;
    }
    if (!file->format.empty()) active.format = file->format;
    for (const KeyRule& rule : file->keys) {
      active.keys.erase(std::remove_if(active.keys.begin(), active.keys.end(),
                                       [&rule](const KeyRule& earlier) { return earlier.key == rule.key; }),
                        active.keys.end());
      active.keys.push_back(rule);
    }
    for (const std::string& include : file->includes) {
      if (include.find("{benchmark}") != std::string::npos && benchmark.empty()) {
        active.failures.push_back({keys::kSubmissionBenchmark, "rules", 0,
                                   "the log names no benchmark, so no benchmark rules apply", file->ruleset + "/" + file->name});
        continue;
      }
      const bool of_benchmark = include.find("{benchmark}") != std::string::npos;
      queue.push_back({replace_all(include, "{benchmark}", benchmark), "the log's benchmark '" + logged_benchmark + "'", "", 0,
                       of_benchmark ? benchmark : ""});
    }
    for (const KeyRule& rule : file->keys) {
      if (rule.then.empty()) continue;
      for (const LogRecord& record : records) {
        if (record.key != rule.key || !record.value.is_string()) continue;
        const std::string value = record.value.get<std::string>();
        const bool of_benchmark = rule.key == keys::kSubmissionBenchmark;
        const std::string name = of_benchmark ? canonical_benchmark(value) : value;
        queue.push_back({replace_all(rule.then, "{value}", name), rule.key + " = \"" + value + "\"", rule.key,
                         record.line_number, of_benchmark ? name : ""});
      }
    }
  }
  return active;
}

class Checker {
 public:
  Checker(const std::vector<LogRecord>& records, const ActiveRules& rules, CheckResult& result)
      : records_(records), rules_(rules), result_(result) {}

  void run() {
    std::map<std::string, const KeyRule*> rule_of_key;
    for (const KeyRule& rule : rules_.keys) rule_of_key[rule.key] = &rule;
    LogHistory history(records_);
    for (size_t i = 0; i < records_.size(); ++i) {
      const LogRecord& record = records_[i];
      lines_of_key_[record.key].push_back(&record);
      if (const auto found = rule_of_key.find(record.key); found != rule_of_key.end()) check_line(*found->second, record, history);
      history.add(i);
    }
    for (const KeyRule& rule : rules_.keys) check_count(rule);
    check_alternatives();
    for (const KeyRule& rule : rules_.keys) check_target(rule);
  }

 private:
  // A failed rule; a warning where its key is `level: warning` or the test is one of its `warn:`.
  void fail(const KeyRule& rule, const std::string& what, int line_number, const std::string& message,
            bool warning = false) {
    const RuleFailure failure{rule.key, what, line_number, message, rule.file};
    if (warning || rule.warning) {
      result_.warnings.push_back(failure.to_string());
    } else {
      result_.failures.push_back(failure);
    }
  }

  const std::vector<const LogRecord*>& lines_of(const std::string& key) {
    return lines_of_key_[key];
  }

  void check_line(const KeyRule& rule, const LogRecord& record, const LogHistory& before) {
    for (const NamedLineTest& test : rule.line_tests) {
      if (std::string reason = test.test(record, before); !reason.empty()) fail(rule, test.rule, record.line_number, reason);
    }
    for (const NamedLineTest& test : rule.warning_tests) {
      if (std::string reason = test.test(record, before); !reason.empty()) {
        fail(rule, test.rule, record.line_number, reason, true);
      }
    }
    if (rule.target && (*rule.target)(record.value, before).empty()) reached_.insert(rule.key);
  }

  void check_count(const KeyRule& rule) {
    const std::vector<const LogRecord*>& lines = lines_of(rule.key);
    const int first_line = lines.empty() ? 0 : lines.front()->line_number;
    const std::string found = "found " + std::to_string(lines.size());
    switch (rule.occurrences) {
      case Occurrences::kExactlyOne: {
        if (lines.size() == 1) return;
        if (lines.empty()) return fail(rule, "count", 0, "required exactly once, found none");
        std::set<std::string> values;
        for (const LogRecord* line : lines) values.insert(describe_value(line->value));
        if (values.size() == 1) {
          result_.warnings.push_back(rule.key + ": required exactly once, " + found + " with the same value (line " +
                                     std::to_string(first_line) + ")");
          return;
        }
        return fail(rule, "count", first_line,
                    "required exactly once, " + found + " with different values: " +
                        join(std::vector<std::string>(values.begin(), values.end()), ", "));
      }
      case Occurrences::kAtLeastOne:
        if (lines.empty()) fail(rule, "count", 0, "required at least once, found none");
        return;
      case Occurrences::kAbsent:
        if (!lines.empty()) fail(rule, "count", first_line, "must not appear with these rules, " + found);
        return;
      case Occurrences::kOptional:
        return;
    }
  }

  // at_least_one_or: each group of keys needs one line among them.
  void check_alternatives() {
    std::set<std::set<std::string>> checked;
    for (const KeyRule& rule : rules_.keys) {
      if (rule.or_keys.empty()) continue;
      std::set<std::string> group(rule.or_keys.begin(), rule.or_keys.end());
      group.insert(rule.key);
      if (!checked.insert(group).second) continue;
      const bool any = std::any_of(group.begin(), group.end(), [this](const std::string& key) { return !lines_of(key).empty(); });
      if (!any) {
        fail(rule, "count", 0,
             "required at least once: " + join(std::vector<std::string>(group.begin(), group.end()), " or ") +
                 ", found none");
      }
    }
  }

  void check_target(const KeyRule& rule) {
    const std::vector<const LogRecord*>& lines = lines_of(rule.key);
    if (!rule.target || lines.empty() || reached_.count(rule.key) > 0) return;
    const LogRecord& last = *lines.back();
    fail(rule, "reaches", 0,
         "none of " + std::to_string(lines.size()) + " lines reaches " + rule.target_text + "; the last is " +
             describe_value(last.value) + " (line " + std::to_string(last.line_number) + ")");
  }

  const std::vector<LogRecord>& records_;
  const ActiveRules& rules_;
  CheckResult& result_;
  std::map<std::string, std::vector<const LogRecord*>> lines_of_key_;
  std::set<std::string> reached_;
};

// A run resumed from a checkpoint times only its resumed part: whatever its rules say, it is no
// compliant result (one failure, at its first mlharness_resumed_from line).
std::optional<RuleFailure> resumed_run_failure(const std::vector<LogRecord>& records) {
  for (const LogRecord& record : records) {
    if (record.key != keys::kResumedFrom) continue;
    return RuleFailure{keys::kResumedFrom, "resumed", record.line_number,
                       resumed_run_reason(read_resumed_from(record.value)), ""};
  }
  return std::nullopt;
}

std::string format_of_ruleset(const std::string& ruleset) {
  const std::optional<RuleFile> common = load_rule_file(ruleset, "common");
  return common ? common->format : "";
}

}  // namespace

std::string RuleFailure::to_string() const {
  std::string text = line_number > 0 ? "line " + std::to_string(line_number) + ": " : "";
  if (!key.empty()) text += key + ": ";
  text += rule + ": " + message;
  if (!file.empty()) text += " [" + file + "]";
  return text;
}

std::vector<std::string> known_compliance_rulesets() { return known_rulesets(); }

std::string default_ruleset(const ParsedLog& log) {
  if (log.records.empty()) return "";
  const std::string format = to_string(log.records.front().format);
  for (const std::string& ruleset : known_rulesets()) {
    if (format_of_ruleset(ruleset) == format) return ruleset;
  }
  return "";
}

namespace {

// The formats MLPerf published that no official checker reads (Alibaba's): the round's ruleset
// and why the log fails it as a whole; nullopt for the formats the checker reads.
std::optional<std::pair<std::string, std::string>> unreadable_by_the_checker(LogFormat format) {
  if (format == LogFormat::kMllogSeconds)
    return std::pair<std::string, std::string>{"0.7.0", "its :::MLLOG lines give time_s where the format has time_ms: "
                                                         "the official checker stops on them (KeyError 'time_ms')"};
  if (format == LogFormat::kAlibabaV06)
    return std::pair<std::string, std::string>{"0.6.0", "Alibaba's own line format (MLPerf: <benchmark> [date time], "
                                                         "key: value): the official checker reads none of its lines"};
  return std::nullopt;
}

}  // namespace

CheckResult check_log(const ParsedLog& log, const std::string& requested_ruleset) {
  CheckResult result;
  if (!log.records.empty()) {
    if (const auto unreadable = unreadable_by_the_checker(log.records.front().format)) {
      result.ruleset = requested_ruleset.empty() ? unreadable->first : requested_ruleset;
      result.benchmark = benchmark_of(log.records);
      result.failures.push_back({"", "parse", 0, unreadable->second, ""});
      return result;
    }
  }
  result.ruleset = requested_ruleset.empty() ? default_ruleset(log) : requested_ruleset;
  const std::vector<std::string> rulesets = known_rulesets();
  if (result.ruleset.empty() && log.records.empty()) {
    result.failures.push_back({"", "parse", 0, "no MLPerf log lines (:::MLLOG, :::MLL or :::MLPv0.5.0)", ""});
  } else if (std::find(rulesets.begin(), rulesets.end(), result.ruleset) == rulesets.end()) {
    throw UserError("unknown compliance ruleset '" + result.ruleset + "' (known: " + join(rulesets, ", ") + ")");
  }

  if (std::optional<RuleFailure> resumed = resumed_run_failure(log.records)) result.failures.push_back(*resumed);
  for (const LogParseError& error : log.errors) {
    const bool truncated = log.truncated_last_line && &error == &log.errors.back();
    result.failures.push_back({"", "parse", error.line_number,
                               truncated ? "the last line is truncated (" + error.message + ")" : error.message, ""});
  }
  if (!result.ruleset.empty()) {
    const std::string format = format_of_ruleset(result.ruleset);
    std::vector<LogRecord> records;
    std::set<std::string> other_formats;
    for (const LogRecord& record : log.records) {
      if (to_string(record.format) == format) {
        records.push_back(record);
      } else {
        other_formats.insert(to_string(record.format));
      }
    }
    if (records.empty()) {
      std::string message = "no " + format + " lines";
      if (!other_formats.empty()) {
        message += " (its lines are " + join(std::vector<std::string>(other_formats.begin(), other_formats.end()), ", ") +
                   ": check it with the ruleset of that format)";
      }
      result.failures.push_back({"", "parse", 0, message, ""});
    }
    result.benchmark = benchmark_of(records);
    ActiveRules rules = resolve_rules(result.ruleset, records, result.benchmark);
    result.failures.insert(result.failures.end(), rules.failures.begin(), rules.failures.end());
    result.not_checked = rules.not_checked;
    Checker(records, rules, result).run();
  }
  result.passed = result.failures.empty();
  return result;
}

}  // namespace mlh
