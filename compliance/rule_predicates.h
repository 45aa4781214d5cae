// The vocabulary of the compliance rule files (compliance/rules/README.md), read from YAML into
// tests: tests on a value (range, set, equality, multiple of, length, fields of an object...) and
// tests on a line (its value, its metadata, and its place in the log: after, not after, inside or
// outside an interval, within minutes of a key). A test returns "" when it holds, else a short
// reason naming what it saw and what it wanted.
//
// The rule files are compiled into mlharness, so a malformed one is a bug: the parsers throw
// InternalError naming the file and key.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "compliance/log_history.h"
#include "compliance/log_reader.h"

namespace mlh {

using ValueTest = std::function<std::string(const nlohmann::json& value, const LogHistory& before)>;
using LineTest = std::function<std::string(const LogRecord& line, const LogHistory& before)>;

// A span of the log: open from the last `opened_by` line until a `closed_by` line follows it.
struct Interval {
  std::string name;
  std::string opened_by;
  std::vector<std::string> closed_by;
};

struct NamedLineTest {
  std::string rule;  // the rule file's word for it: "value", "metadata", "after", ...
  LineTest test;
};

// `where` names the place in the rule files for errors ("0.7.0/common: init_stop").
ValueTest parse_value_test(const YAML::Node& node, const std::string& where);

// The line tests among the fields of a key record (value, metadata, after, not_after, inside,
// outside, within, any_of); other fields are left to the caller.
std::vector<NamedLineTest> parse_line_tests(const YAML::Node& record,
                                            const std::map<std::string, Interval>& intervals,
                                            const std::string& where);

// True for the record fields parse_line_tests reads.
bool is_line_test_field(const std::string& field);

// A value for messages: its JSON, cut to a readable length.
std::string describe_value(const nlohmann::json& value);

}  // namespace mlh
