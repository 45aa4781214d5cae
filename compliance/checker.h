// The MLPerf compliance checker: judges a parsed log against a rule set (compliance/rules/<ruleset>/,
// the vocabulary in compliance/rules/README.md) the way the official mlperf_logging checker does for
// 0.6.0 and 0.7.0, plus mlharness's own NCF rules (0.7.0 closed_ncf, and 0.5.0 for v0.5 logs).
// A log of a run resumed from a checkpoint (mlharness_resumed_from) fails whatever the rules say:
// its time to train covers only the resumed part. Benchmark rule files are found by the benchmark's
// canonical name (benchmark_names.h: Google's v0.6 "mask" is checked with maskrcnn's rules).
#pragma once

#include <string>
#include <vector>

#include "compliance/log_reader.h"

namespace mlh {

struct RuleFailure {
  std::string key;        // the log key the rule is about; empty for whole-log failures
  std::string rule;       // "count", "value", "metadata", "after", "reaches", "parse", "rules", "resumed", ...
  int line_number = 0;    // the offending line; 0 when the failure is about the whole log
  std::string message;    // what is wrong
  std::string file;       // the rule file: "0.7.0/closed_gnmt"; empty for parse failures
  // "line 42: opt_adam_epsilon: value: 1e-08 is not equal to 1e-09 [0.7.0/closed_transformer]"
  std::string to_string() const;
};

struct CheckResult {
  std::string ruleset;
  std::string benchmark;               // as the log names it; empty when it names none
  bool passed = false;                 // no failures (rules not checked are no failures)
  // A resumed run first; then every failed rule, in log order, then the end-of-log ones.
  std::vector<RuleFailure> failures;
  // An exactly_one key repeated with the same value, and the failed rules of keys marked
  // `level: warning` (as RuleFailure::to_string writes them).
  std::vector<std::string> warnings;
  // Rules the ruleset does not have for the log's MLPerf benchmark: "ruleset 0.5.0 has no rules for
  // benchmark 'gnmt' (...)". The rest of the log (the ruleset's common rules) is still checked; a
  // benchmark that is no MLPerf benchmark fails instead.
  std::vector<std::string> not_checked;
};

// The rule set for the log's line format: :::MLLOG -> 0.7.0, :::MLL -> 0.6.0, :::MLPv0.5.0 -> 0.5.0;
// "" when the log has no MLPerf lines.
std::string default_ruleset(const ParsedLog& log);

// `ruleset` "" means default_ruleset(log). Throws UserError for a ruleset that does not exist.
CheckResult check_log(const ParsedLog& log, const std::string& ruleset = "");

// The rule sets compiled in, sorted.
std::vector<std::string> known_compliance_rulesets();

}  // namespace mlh
