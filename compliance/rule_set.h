// The compliance rule files (compliance/rules/<ruleset>/<name>.yaml, embedded in the binary), read
// into per-key rules. The vocabulary is documented in compliance/rules/README.md; the tests it
// builds live in rule_predicates.h. Which files apply to a log, and running them, is the checker's job.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compliance/rule_predicates.h"

namespace mlh {

// How often a key must appear in a log.
enum class Occurrences { kOptional, kExactlyOne, kAtLeastOne, kAbsent };

struct KeyRule {
  std::string key;
  std::string file;                          // where it was declared: "0.7.0/closed_gnmt"
  Occurrences occurrences = Occurrences::kOptional;
  std::vector<std::string> or_keys;          // at_least_one_or: this key or one of these at least once
  std::vector<NamedLineTest> line_tests;     // every line of the key must pass them
  std::optional<ValueTest> target;           // `reaches`: at least one line's value must pass it
  std::string target_text;                   // the target as written, for messages
  std::optional<double> target_value;        // the least value that reaches it ({min} or {above}; under
                                             // `at:` the first entry's: Mask R-CNN's box AP)
  // Under `at:`, each member's least value, as written: Mask R-CNN's {BBOX 0.377, SEGM 0.339}.
  std::vector<std::pair<std::string, double>> member_target_values;
  std::string then;                          // a file to check too, "{value}" = this key's value
  bool warning = false;                      // `level: warning`: all its failures are warnings
  std::vector<NamedLineTest> warning_tests;  // `warn: {...}`: line tests whose failures are warnings
};

struct RuleFile {
  std::string ruleset;
  std::string name;                          // "common", "closed_gnmt"
  std::string format;                        // the line format, common.yaml only: ":::MLLOG"
  std::vector<std::string> includes;         // more files; "{benchmark}" = the log's benchmark
  std::vector<KeyRule> keys;
};

// Throws InternalError naming the file for YAML outside the vocabulary.
RuleFile parse_rule_file(const std::string& ruleset, const std::string& name, const std::string& yaml_text);

// The embedded file <ruleset>/<name>.yaml; nullopt when there is none.
std::optional<RuleFile> load_rule_file(const std::string& ruleset, const std::string& name);

// The rulesets with a common.yaml, sorted ("0.5.0", "0.6.0", "0.7.0").
std::vector<std::string> known_rulesets();

// Every embedded file, as "<ruleset>/<name>".
std::vector<std::string> embedded_rule_file_names();

}  // namespace mlh
