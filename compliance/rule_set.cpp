#include "compliance/rule_set.h"

#include <map>

#include "compliance/rules/embedded_rules.h"
#include "base/user_error.h"

namespace mlh {
namespace {

[[noreturn]] void bad_rule(const std::string& where, const std::string& what) {
  throw InternalError("compliance rules " + where + ": " + what);
}

Occurrences parse_occurrences(const YAML::Node& node, KeyRule& rule, const std::string& where) {
  static const std::map<std::string, Occurrences> kWords = {
      {"optional", Occurrences::kOptional},
      {"exactly_one", Occurrences::kExactlyOne},
      {"at_least_one", Occurrences::kAtLeastOne},
      {"absent", Occurrences::kAbsent},
  };
  if (node.IsMap() && node["at_least_one_or"]) {
    for (const auto& other : node["at_least_one_or"]) rule.or_keys.push_back(other.as<std::string>());
    return Occurrences::kOptional;
  }
  const auto word = node.IsScalar() ? kWords.find(node.Scalar()) : kWords.end();
  if (word == kWords.end()) {
    bad_rule(where, "count is exactly_one, at_least_one, optional, absent or {at_least_one_or: [...]}");
  }
  return word->second;
}

// The threshold of a `reaches` test: its min or above; under `at:` its first entry's.
std::optional<double> threshold_of(const YAML::Node& test) {
  if (!test.IsMap()) return std::nullopt;
  if (test["min"]) return test["min"].as<double>();
  if (test["above"]) return test["above"].as<double>();
  if (test["at"] && test["at"].IsMap() && test["at"].size() > 0) return threshold_of(test["at"].begin()->second);
  return std::nullopt;
}

KeyRule parse_key_rule(const std::string& key, const YAML::Node& record,
                       const std::map<std::string, Interval>& intervals, const std::string& file) {
  const std::string where = file + ": " + key;
  if (!record.IsMap()) bad_rule(where, "a key's rules are a mapping");
  KeyRule rule;
  rule.key = key;
  rule.file = file;
  for (const auto& entry : record) {
    const std::string field = entry.first.as<std::string>();
    if (field == "count") {
      rule.occurrences = parse_occurrences(entry.second, rule, where);
    } else if (field == "reaches") {
      rule.target = parse_value_test(entry.second, where + " reaches");
      YAML::Emitter text;
      text << YAML::Flow << entry.second;
      rule.target_text = text.c_str();
      rule.target_value = threshold_of(entry.second);
      if (entry.second.IsMap() && entry.second["at"] && entry.second["at"].IsMap())
        for (const auto& member : entry.second["at"])
          if (const auto threshold = threshold_of(member.second))
            rule.member_target_values.emplace_back(member.first.as<std::string>(), *threshold);
    } else if (field == "then") {
      rule.then = entry.second.as<std::string>();
    } else if (field == "level") {
      const std::string level = entry.second.as<std::string>();
      if (level != "warning" && level != "failure") bad_rule(where, "level is warning or failure, not '" + level + "'");
      rule.warning = level == "warning";
    } else if (field == "warn") {
      if (!entry.second.IsMap()) bad_rule(where, "warn wants a mapping of line tests (value, metadata, after, ...)");
      for (const auto& test : entry.second) {
        if (!is_line_test_field(test.first.as<std::string>())) {
          bad_rule(where, "warn holds '" + test.first.as<std::string>() + "', which is not a line test");
        }
      }
      rule.warning_tests = parse_line_tests(entry.second, intervals, where + " warn");
    } else if (!is_line_test_field(field)) {
      bad_rule(where, "unknown field '" + field + "'");
    }
  }
  rule.line_tests = parse_line_tests(record, intervals, where);
  return rule;
}

std::map<std::string, Interval> parse_intervals(const YAML::Node& node, const std::string& file) {
  std::map<std::string, Interval> intervals;
  if (!node) return intervals;
  for (const auto& entry : node) {
    Interval interval;
    interval.name = entry.first.as<std::string>();
    const YAML::Node& spec = entry.second;
    if (!spec["opened_by"] || !spec["closed_by"]) bad_rule(file, "interval '" + interval.name + "' wants opened_by and closed_by");
    interval.opened_by = spec["opened_by"].as<std::string>();
    for (const auto& closer : spec["closed_by"]) interval.closed_by.push_back(closer.as<std::string>());
    intervals[interval.name] = interval;
  }
  return intervals;
}

}  // namespace

RuleFile parse_rule_file(const std::string& ruleset, const std::string& name, const std::string& yaml_text) {
  const std::string file = ruleset + "/" + name;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    bad_rule(file, e.what());
  }
  if (!root.IsMap()) bad_rule(file, "the file is not a mapping");
  for (const auto& entry : root) {
    const std::string field = entry.first.as<std::string>();
    if (field != "format" && field != "include" && field != "intervals" && field != "keys") {
      bad_rule(file, "unknown top-level field '" + field + "' (format, include, intervals, keys)");
    }
  }
  RuleFile rules;
  rules.ruleset = ruleset;
  rules.name = name;
  if (root["format"]) rules.format = root["format"].as<std::string>();
  for (const auto& include : root["include"]) rules.includes.push_back(include.as<std::string>());
  const std::map<std::string, Interval> intervals = parse_intervals(root["intervals"], file);
  for (const auto& entry : root["keys"]) {
    rules.keys.push_back(parse_key_rule(entry.first.as<std::string>(), entry.second, intervals, file));
  }
  return rules;
}

std::optional<RuleFile> load_rule_file(const std::string& ruleset, const std::string& name) {
  const auto found = embedded_rules().find(ruleset + "/" + name);
  if (found == embedded_rules().end()) return std::nullopt;
  return parse_rule_file(ruleset, name, found->second);
}

std::vector<std::string> known_rulesets() {
  std::vector<std::string> rulesets;
  const std::string common = "/common";
  for (const auto& [path, text] : embedded_rules()) {
    if (path.size() > common.size() && path.compare(path.size() - common.size(), common.size(), common) == 0) {
      rulesets.push_back(path.substr(0, path.size() - common.size()));
    }
  }
  return rulesets;
}

std::vector<std::string> embedded_rule_file_names() {
  std::vector<std::string> names;
  for (const auto& [path, text] : embedded_rules()) names.push_back(path);
  return names;
}

}  // namespace mlh
