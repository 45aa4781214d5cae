#include "compliance/rule_predicates.h"

#include <cmath>
#include <memory>
#include <sstream>

#include "base/user_error.h"

namespace mlh {
namespace {

using nlohmann::json;

[[noreturn]] void bad_rule(const std::string& where, const std::string& what) {
  throw InternalError("compliance rules " + where + ": " + what);
}

std::string flow_text(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

// A YAML scalar as the JSON value a log would carry: booleans, numbers, else a string. Quoted
// scalars stay strings.
json scalar_to_json(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar()) bad_rule(where, "expected a single value, got " + flow_text(node));
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text == "true") return true;
  if (text == "false") return false;
  if (text == "null" || text == "~") return nullptr;
  try {
    size_t used = 0;
    const long long integer = std::stoll(text, &used);
    if (used == text.size()) return integer;
  } catch (const std::exception&) {
  }
  try {
    size_t used = 0;
    const double number = std::stod(text, &used);
    if (used == text.size()) return number;
  } catch (const std::exception&) {
  }
  return text;
}

double as_number(const YAML::Node& node, const std::string& where) {
  const json value = scalar_to_json(node, where);
  if (!value.is_number()) bad_rule(where, "expected a number, got " + flow_text(node));
  return value.get<double>();
}

std::string number_text(double number) { return json(number).dump(); }

bool numbers_equal(double a, double b) {
  return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

bool json_equal(const json& value, const json& expected) {
  if (value.is_number() && expected.is_number()) return numbers_equal(value.get<double>(), expected.get<double>());
  return value == expected;
}

// A number in a rule: a constant, or the metadata field of the last line of some key (+ plus).
class NumberOperand {
 public:
  NumberOperand(const YAML::Node& node, const std::string& where) {
    if (!node.IsMap()) {
      constant_ = as_number(node, where);
      return;
    }
    for (const auto& entry : node) {
      const std::string name = entry.first.as<std::string>();
      if (name == "plus") {
        plus_ = as_number(entry.second, where);
      } else if (name == "initially") {
        initially_ = as_number(entry.second, where);
      } else if (name == "last") {
        const std::string reference = entry.second.as<std::string>();
        const size_t dot = reference.find('.');
        if (dot == std::string::npos) bad_rule(where, "'last' wants key.field, got '" + reference + "'");
        key_ = reference.substr(0, dot);
        field_ = reference.substr(dot + 1);
      } else {
        bad_rule(where, "unknown entry '" + name + "' in a number reference (last, plus, initially)");
      }
    }
    if (key_.empty()) bad_rule(where, "a number reference needs 'last: key.field'");
  }

  double value(const LogHistory& before) const {
    if (key_.empty()) return constant_;
    const json* last = before.last_metadata(key_, field_);
    const double base = last != nullptr && last->is_number() ? last->get<double>() : initially_;
    return base + plus_;
  }

  std::string describe(const LogHistory& before) const {
    if (key_.empty()) return number_text(constant_);
    std::string text = "the last " + key_ + " " + field_;
    if (plus_ != 0) text += (plus_ > 0 ? " + " : " - ") + number_text(std::fabs(plus_));
    return number_text(value(before)) + " (" + text + ")";
  }

 private:
  double constant_ = 0;
  std::string key_;
  std::string field_;
  double plus_ = 0;
  double initially_ = 0;
};

bool is_integer(double quotient) { return std::fabs(std::round(quotient) - quotient) < 1e-5; }

using Comparison = bool (*)(double value, double bound);

ValueTest compare(const YAML::Node& argument, const std::string& where, Comparison holds, const char* relation) {
  const auto bound = std::make_shared<NumberOperand>(argument, where);
  return [bound, holds, relation](const json& value, const LogHistory& before) -> std::string {
    if (!value.is_number()) return describe_value(value) + " is not a number";
    if (holds(value.get<double>(), bound->value(before))) return "";
    return describe_value(value) + " is not " + relation + " " + bound->describe(before);
  };
}

ValueTest equals_test(const YAML::Node& argument, const std::string& where) {
  if (argument.IsMap()) {
    return compare(argument, where, [](double a, double b) { return numbers_equal(a, b); }, "equal to");
  }
  const json expected = scalar_to_json(argument, where);
  return [expected](const json& value, const LogHistory&) -> std::string {
    if (json_equal(value, expected)) return "";
    return describe_value(value) + " is not equal to " + describe_value(expected);
  };
}

ValueTest one_of_test(const YAML::Node& argument, const std::string& where) {
  if (!argument.IsSequence()) bad_rule(where, "one_of wants a list");
  json allowed = json::array();
  for (const auto& item : argument) allowed.push_back(scalar_to_json(item, where));
  return [allowed](const json& value, const LogHistory&) -> std::string {
    for (const json& candidate : allowed) {
      if (json_equal(value, candidate)) return "";
    }
    return describe_value(value) + " is not one of " + allowed.dump();
  };
}

ValueTest not_empty_test(const YAML::Node&, const std::string&) {
  return [](const json& value, const LogHistory&) -> std::string {
    return value.is_string() && value.get<std::string>().empty() ? "the value is the empty string" : "";
  };
}

ValueTest multiple_of_test(const YAML::Node& argument, const std::string& where) {
  const double step = as_number(argument, where);
  return [step](const json& value, const LogHistory&) -> std::string {
    if (!value.is_number()) return describe_value(value) + " is not a number";
    if (is_integer(value.get<double>() / step)) return "";
    return describe_value(value) + " is not a multiple of " + number_text(step);
  };
}

ValueTest power_of_two_times_test(const YAML::Node& argument, const std::string& where) {
  const double unit = as_number(argument, where);
  return [unit](const json& value, const LogHistory&) -> std::string {
    if (!value.is_number()) return describe_value(value) + " is not a number";
    const double ratio = value.get<double>() / unit;
    if (ratio > 0 && is_integer(std::log2(ratio))) return "";
    return describe_value(value) + " is not " + number_text(unit) + " times a power of two";
  };
}

size_t size_of(const json& value) { return value.is_string() ? value.get<std::string>().size() : value.size(); }

ValueTest length_test(const YAML::Node& argument, const std::string& where, bool at_least) {
  const double wanted = as_number(argument, where);
  return [wanted, at_least](const json& value, const LogHistory&) -> std::string {
    if (!value.is_array() && !value.is_string()) return describe_value(value) + " is not a list";
    const double size = static_cast<double>(size_of(value));
    if (at_least ? size >= wanted : size == wanted) return "";
    return describe_value(value) + " has " + std::to_string(size_of(value)) + " elements, not " +
           (at_least ? "at least " : "") + number_text(wanted);
  };
}

ValueTest type_test(const YAML::Node& argument, const std::string& where) {
  static const std::map<std::string, bool (*)(const json&)> kTypes = {
      {"boolean", [](const json& v) { return v.is_boolean(); }},
      {"number", [](const json& v) { return v.is_number(); }},
      {"string", [](const json& v) { return v.is_string(); }},
      {"list", [](const json& v) { return v.is_array(); }},
      {"object", [](const json& v) { return v.is_object(); }},
  };
  const std::string name = argument.as<std::string>();
  const auto type = kTypes.find(name);
  if (type == kTypes.end()) bad_rule(where, "unknown type '" + name + "' (boolean, number, string, list, object)");
  const auto holds = type->second;
  return [holds, name](const json& value, const LogHistory&) -> std::string {
    return holds(value) ? "" : describe_value(value) + " is not a " + name;
  };
}

// The part of `value` a selector names: an object field, or a list index; nullptr when absent.
const json* select(const json& value, const std::string& selector) {
  if (value.is_object()) {
    const auto found = value.find(selector);
    return found == value.end() ? nullptr : &*found;
  }
  if (value.is_array() && !selector.empty() && selector.find_first_not_of("0123456789") == std::string::npos) {
    const size_t index = std::stoul(selector);
    return index < value.size() ? &value[index] : nullptr;
  }
  return nullptr;
}

ValueTest at_test(const YAML::Node& argument, const std::string& where) {
  if (!argument.IsMap()) bad_rule(where, "'at' wants {field or index: test}");
  std::vector<std::pair<std::string, ValueTest>> parts;
  for (const auto& entry : argument) {
    const std::string selector = entry.first.as<std::string>();
    parts.emplace_back(selector, parse_value_test(entry.second, where + " at " + selector));
  }
  return [parts](const json& value, const LogHistory& before) -> std::string {
    for (const auto& [selector, test] : parts) {
      const json* part = select(value, selector);
      if (part == nullptr) return describe_value(value) + " has no [" + selector + "]";
      if (std::string reason = test(*part, before); !reason.empty()) return "[" + selector + "] " + reason;
    }
    return "";
  };
}

using ValueTestParser = std::function<ValueTest(const YAML::Node& argument, const std::string& where)>;

const std::map<std::string, ValueTestParser>& value_test_parsers() {
  static const std::map<std::string, ValueTestParser> parsers = {
      {"min", [](const YAML::Node& a, const std::string& w) {
         return compare(a, w, [](double v, double b) { return v >= b; }, "at least");
       }},
      {"max", [](const YAML::Node& a, const std::string& w) {
         return compare(a, w, [](double v, double b) { return v <= b; }, "at most");
       }},
      {"above", [](const YAML::Node& a, const std::string& w) {
         return compare(a, w, [](double v, double b) { return v > b; }, "above");
       }},
      {"below", [](const YAML::Node& a, const std::string& w) {
         return compare(a, w, [](double v, double b) { return v < b; }, "below");
       }},
      {"equals", equals_test},
      {"one_of", one_of_test},
      {"not_empty", not_empty_test},
      {"multiple_of", multiple_of_test},
      {"power_of_two_times", power_of_two_times_test},
      {"length", [](const YAML::Node& a, const std::string& w) { return length_test(a, w, false); }},
      {"min_length", [](const YAML::Node& a, const std::string& w) { return length_test(a, w, true); }},
      {"type", type_test},
      {"at", at_test},
  };
  return parsers;
}

std::vector<std::string> key_list(const YAML::Node& node, const std::string& where) {
  if (!node.IsSequence()) bad_rule(where, "expected a list of keys, got " + flow_text(node));
  std::vector<std::string> keys;
  for (const auto& item : node) keys.push_back(item.as<std::string>());
  return keys;
}

LineTest value_line_test(const YAML::Node& node, const std::string& where) {
  ValueTest test = parse_value_test(node, where);
  return [test](const LogRecord& line, const LogHistory& before) { return test(line.value, before); };
}

LineTest metadata_line_test(const YAML::Node& node, const std::string& where) {
  if (!node.IsMap()) bad_rule(where, "metadata wants {field: test}");
  std::vector<std::pair<std::string, ValueTest>> fields;
  for (const auto& entry : node) {
    const std::string field = entry.first.as<std::string>();
    fields.emplace_back(field, parse_value_test(entry.second, where + " metadata " + field));
  }
  return [fields](const LogRecord& line, const LogHistory& before) -> std::string {
    for (const auto& [field, test] : fields) {
      const auto found = line.metadata.find(field);
      if (found == line.metadata.end()) return "metadata has no '" + field + "'";
      if (std::string reason = test(*found, before); !reason.empty()) return "metadata " + field + ": " + reason;
    }
    return "";
  };
}

LineTest after_line_test(const YAML::Node& node, const std::string& where) {
  const std::vector<std::string> keys = key_list(node, where);
  return [keys](const LogRecord&, const LogHistory& before) -> std::string {
    for (const std::string& key : keys) {
      if (before.count(key) == 0) return "no " + key + " before it";
    }
    return "";
  };
}

LineTest not_after_line_test(const YAML::Node& node, const std::string& where) {
  const std::vector<std::string> keys = key_list(node, where);
  return [keys](const LogRecord&, const LogHistory& before) -> std::string {
    for (const std::string& key : keys) {
      if (before.count(key) > 0) return "comes after " + key + " (line " + std::to_string(before.last_line(key)) + ")";
    }
    return "";
  };
}

bool is_open(const Interval& interval, const LogHistory& before) {
  const long opened = before.last_index(interval.opened_by);
  if (opened < 0) return false;
  for (const std::string& closer : interval.closed_by) {
    if (before.last_index(closer) > opened) return false;
  }
  return true;
}

std::vector<Interval> interval_list(const YAML::Node& node, const std::map<std::string, Interval>& intervals,
                                    const std::string& where) {
  std::vector<Interval> list;
  for (const std::string& name : key_list(node, where)) {
    const auto found = intervals.find(name);
    if (found == intervals.end()) bad_rule(where, "no interval '" + name + "' in this file's intervals");
    list.push_back(found->second);
  }
  return list;
}

LineTest inside_line_test(const YAML::Node& node, const std::map<std::string, Interval>& intervals,
                          const std::string& where, bool inside) {
  const std::vector<Interval> list = interval_list(node, intervals, where);
  return [list, inside](const LogRecord&, const LogHistory& before) -> std::string {
    for (const Interval& interval : list) {
      if (is_open(interval, before) == inside) continue;
      if (inside) return "not inside a " + interval.name + " (no " + interval.opened_by + " still open)";
      return "inside the " + interval.name + " opened by " + interval.opened_by + " at line " +
             std::to_string(before.last_line(interval.opened_by));
    }
    return "";
  };
}

LineTest within_line_test(const YAML::Node& node, const std::string& where) {
  if (!node.IsMap() || !node["minutes"] || !node["of_first"]) bad_rule(where, "within wants {minutes, of_first}");
  const double minutes = as_number(node["minutes"], where);
  const std::string key = node["of_first"].as<std::string>();
  return [minutes, key](const LogRecord& line, const LogHistory& before) -> std::string {
    const double* first_ms = before.first_time_ms(key);
    if (first_ms == nullptr) return "";  // `after` rules say when the key is missing
    const double elapsed_minutes = (line.time_ms - *first_ms) / 60000.0;
    if (elapsed_minutes < minutes) return "";
    std::ostringstream reason;
    reason << "comes " << elapsed_minutes << " minutes after the first " << key << "; the limit is " << minutes;
    return reason.str();
  };
}

LineTest any_of_line_test(const YAML::Node& node, const std::map<std::string, Interval>& intervals,
                          const std::string& where) {
  if (!node.IsSequence()) bad_rule(where, "any_of wants a list of groups");
  std::vector<std::vector<NamedLineTest>> groups;
  for (const auto& group : node) {
    for (const auto& entry : group) {
      if (!is_line_test_field(entry.first.as<std::string>())) {
        bad_rule(where, "any_of group holds '" + entry.first.as<std::string>() + "', which is not a line test");
      }
    }
    groups.push_back(parse_line_tests(group, intervals, where + " any_of"));
  }
  return [groups](const LogRecord& line, const LogHistory& before) -> std::string {
    std::string reasons;
    for (size_t i = 0; i < groups.size(); ++i) {
      std::string failed;
      for (const NamedLineTest& test : groups[i]) {
        failed = test.test(line, before);
        if (!failed.empty()) break;
      }
      if (failed.empty()) return "";
      reasons += (i == 0 ? "" : "; ") + std::string("(") + std::to_string(i + 1) + ") " + failed;
    }
    return "no alternative holds: " + reasons;
  };
}

}  // namespace

std::string describe_value(const nlohmann::json& value) {
  std::string text = value.dump();
  constexpr size_t kMaxChars = 80;
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return text;
}

ValueTest parse_value_test(const YAML::Node& node, const std::string& where) {
  if (node.IsScalar() && node.Scalar() == "present") {
    return [](const nlohmann::json&, const LogHistory&) { return std::string(); };
  }
  if (!node.IsMap()) bad_rule(where, "a value test is a mapping or 'present', got " + flow_text(node));
  std::vector<ValueTest> tests;
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const auto parser = value_test_parsers().find(name);
    if (parser == value_test_parsers().end()) bad_rule(where, "unknown value test '" + name + "'");
    tests.push_back(parser->second(entry.second, where));
  }
  return [tests](const nlohmann::json& value, const LogHistory& before) -> std::string {
    for (const ValueTest& test : tests) {
      if (std::string reason = test(value, before); !reason.empty()) return reason;
    }
    return "";
  };
}

bool is_line_test_field(const std::string& field) {
  static const char* const kFields[] = {"value", "metadata", "after", "not_after", "inside", "outside", "within", "any_of"};
  for (const char* known : kFields) {
    if (field == known) return true;
  }
  return false;
}

std::vector<NamedLineTest> parse_line_tests(const YAML::Node& record, const std::map<std::string, Interval>& intervals,
                                            const std::string& where) {
  using Parser = std::function<LineTest(const YAML::Node&)>;
  const std::map<std::string, Parser> parsers = {
      {"value", [&](const YAML::Node& n) { return value_line_test(n, where); }},
      {"metadata", [&](const YAML::Node& n) { return metadata_line_test(n, where); }},
      {"after", [&](const YAML::Node& n) { return after_line_test(n, where); }},
      {"not_after", [&](const YAML::Node& n) { return not_after_line_test(n, where); }},
      {"inside", [&](const YAML::Node& n) { return inside_line_test(n, intervals, where, true); }},
      {"outside", [&](const YAML::Node& n) { return inside_line_test(n, intervals, where, false); }},
      {"within", [&](const YAML::Node& n) { return within_line_test(n, where); }},
      {"any_of", [&](const YAML::Node& n) { return any_of_line_test(n, intervals, where); }},
  };
  std::vector<NamedLineTest> tests;
  for (const auto& entry : record) {
    const std::string field = entry.first.as<std::string>();
    const auto parser = parsers.find(field);
    if (parser != parsers.end()) tests.push_back({field, parser->second(entry.second)});
  }
  return tests;
}

}  // namespace mlh
