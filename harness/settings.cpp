#include "harness/settings.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/user_error.h"

namespace mlh {

namespace {

// Levenshtein distance, for "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  std::ostringstream out;
  out << YAML::Dump(node);
  std::string text = out.str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

template <class T>
std::vector<double> numbers_of(const T& field) {
  if constexpr (std::is_arithmetic_v<T>) {
    return {static_cast<double>(field)};
  } else {
    return std::vector<double>(field.begin(), field.end());
  }
}

}  // namespace

bool Bounds::contains(double value) const {
  if (low && (low_open ? value <= *low : value < *low)) return false;
  if (high && (high_open ? value >= *high : value > *high)) return false;
  return true;
}

std::string Bounds::describe() const {
  if (low && high)
    return std::string("in ") + (low_open ? "(" : "[") + number_text(*low) + ", " + number_text(*high) +
           (high_open ? ")" : "]");
  if (low) return (low_open ? "> " : ">= ") + number_text(*low);
  if (high) return (high_open ? "< " : "<= ") + number_text(*high);
  return "any number";
}

Bounds at_least(double low) { return Bounds{low, std::nullopt, false, false}; }
Bounds above(double low) { return Bounds{low, std::nullopt, true, false}; }
Bounds at_most(double high) { return Bounds{std::nullopt, high, false, false}; }
Bounds in_range(double low, double high, Ends ends) {
  return Bounds{low, high, ends == Ends::kOpen || ends == Ends::kOpenLow,
                ends == Ends::kOpen || ends == Ends::kOpenHigh};
}

template <> const char* config_type_name<int64_t>() { return "an integer"; }
template <> const char* config_type_name<int>() { return "an integer"; }
template <> const char* config_type_name<double>() { return "a number"; }
template <> const char* config_type_name<bool>() { return "true or false"; }
template <> const char* config_type_name<std::string>() { return "a string"; }
template <> const char* config_type_name<std::vector<int64_t>>() { return "a list of integers"; }
template <> const char* config_type_name<std::vector<double>>() { return "a list of numbers"; }

ConfigMap ConfigMap::from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot read config file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return from_yaml_text(text.str(), path);
}

ConfigMap ConfigMap::from_yaml_text(const std::string& text, const std::string& source_name) {
  ConfigMap config;
  config.source_name_ = source_name;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw UserError(source_name + ":" + std::to_string(e.mark.line + 1) +
                    ": malformed YAML: " + e.msg);
  }
  if (root.IsNull()) return config;
  if (!root.IsMap())
    throw UserError(source_name + ": a config must be a mapping of 'key: value' lines");
  for (const auto& item : root) {
    const std::string origin = source_name + ":" + std::to_string(item.first.Mark().line + 1);
    if (!item.first.IsScalar()) {
      throw UserError(origin + ": a key is " +
                      (item.first.IsMap() ? "a mapping" : item.first.IsSequence() ? "a list" : "empty") +
                      "; settings are flat 'key: value' lines with names as keys");
    }
    const std::string key = item.first.as<std::string>();
    const YAML::Node& value = item.second;
    if (value.IsMap())
      throw UserError(origin + ": key '" + key + "' holds a mapping; settings are flat 'key: value'");
    config.values_[key] = Entry{value, origin};
  }
  return config;
}

void ConfigMap::apply_override(const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos)
    throw UserError("--set '" + assignment + "': expected key=value");
  const std::string key = assignment.substr(0, equals);
  if (key.empty()) throw UserError("--set '" + assignment + "': the key before '=' is empty");
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(equals + 1));
  } catch (const YAML::Exception& e) {
    throw UserError("--set '" + assignment + "': malformed value: " + e.msg);
  }
  values_[key] = Entry{value, "--set " + assignment};
}

template <class T>
T ConfigMap::convert(const std::string& key, const Entry& entry) const {
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!entry.node.IsScalar()) throw YAML::Exception(YAML::Mark(), "not a scalar");
      return entry.node.Scalar();
    } else {
      if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>) {
        if (!entry.node.IsSequence()) throw YAML::Exception(YAML::Mark(), "not a sequence");
      }
      return entry.node.as<T>();
    }
  } catch (const YAML::Exception&) {
    throw UserError(entry.origin + ": key '" + key + "' expects " + config_type_name<T>() +
                    ", got " + describe(entry.node));
  }
}

const ConfigMap::Entry* ConfigMap::record(const std::string& key, const std::string& help) {
  MLH_ASSERT(bound_.count(key) == 0);
  bound_.insert(key);
  help_.emplace_back(key, help);
  const auto found = values_.find(key);
  return found == values_.end() ? nullptr : &found->second;
}

template <class T>
void ConfigMap::bind(const std::string& key, T& field, const std::string& help) {
  if (const Entry* entry = record(key, help)) field = convert<T>(key, *entry);
  effective_[key] = field;
}

template <class T>
void ConfigMap::bind(const std::string& key, T& field, const std::string& help, const Bounds& bounds) {
  const Entry* entry = record(key, help + "; " + bounds.describe());
  if (entry) field = convert<T>(key, *entry);
  for (double value : numbers_of(field)) {
    if (bounds.contains(value)) continue;
    MLH_ASSERT(entry != nullptr);  // a default outside its own bounds
    throw UserError(entry->origin + ": key '" + key + "' " + (std::is_arithmetic_v<T> ? "is " : "holds ") +
                    number_text(value) + "; it must be " + bounds.describe());
  }
  effective_[key] = field;
}

void ConfigMap::bind(const std::string& key, std::string& field, const std::string& help, const OneOf& allowed) {
  std::string names;  // "a, b or c"
  for (size_t i = 0; i < allowed.values.size(); ++i)
    names += (i == 0 ? "" : i + 1 == allowed.values.size() ? " or " : ", ") + allowed.values[i];
  const Entry* entry = record(key, help + "; " + (allowed.values.size() > 2 ? "one of " : "") + names);
  if (entry) field = convert<std::string>(key, *entry);
  if (std::find(allowed.values.begin(), allowed.values.end(), field) == allowed.values.end()) {
    MLH_ASSERT(entry != nullptr);  // a default outside its own choices
    throw UserError(entry->origin + ": key '" + key + "' is '" + field + "'; expected " + names);
  }
  effective_[key] = field;
}

void ConfigMap::check_all_bound() const {
  std::vector<std::string> problems;
  for (const auto& [key, entry] : values_) {
    if (bound_.count(key)) continue;
    std::string nearest;
    size_t best = 4;  // suggest only close matches
    for (const auto& known : bound_) {
      const size_t distance = edit_distance(key, known);
      if (distance < best) {
        best = distance;
        nearest = known;
      }
    }
    problems.push_back(entry.origin + ": unknown key '" + key + "'" +
                       (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)"));
  }
  if (problems.empty()) return;
  std::string message = problems.front();
  for (size_t i = 1; i < problems.size(); ++i) message += "; " + problems[i];
  throw UserError(message);
}

template void ConfigMap::bind(const std::string&, int64_t&, const std::string&);
template void ConfigMap::bind(const std::string&, int&, const std::string&);
template void ConfigMap::bind(const std::string&, double&, const std::string&);
template void ConfigMap::bind(const std::string&, bool&, const std::string&);
template void ConfigMap::bind(const std::string&, std::string&, const std::string&);
template void ConfigMap::bind(const std::string&, std::vector<int64_t>&, const std::string&);
template void ConfigMap::bind(const std::string&, std::vector<double>&, const std::string&);
template void ConfigMap::bind(const std::string&, int64_t&, const std::string&, const Bounds&);
template void ConfigMap::bind(const std::string&, int&, const std::string&, const Bounds&);
template void ConfigMap::bind(const std::string&, double&, const std::string&, const Bounds&);
template void ConfigMap::bind(const std::string&, std::vector<int64_t>&, const std::string&, const Bounds&);
template void ConfigMap::bind(const std::string&, std::vector<double>&, const std::string&, const Bounds&);

}  // namespace mlh
