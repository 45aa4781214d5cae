// Settings flow one way: a YAML config file -> `--set key=value` overrides -> typed fields. A
// ConfigMap holds the flat key -> YAML value map; typed structs bind their fields to keys through
// `bind`, which converts and records each value (so the effective config can be logged); keys nobody
// bound are errors. Every error is a UserError naming the file and line, or the --set, and the key.
// A key's bounds or allowed values are declared at its bind, checked there and shown in its help:
//
//   config.bind("beam_size", beam_size, "beam width", at_least(1));
//   config.bind("label_smoothing", label_smoothing, "...", in_range(0.0, 1.0, Ends::kOpenHigh));
//   config.bind("submission_division", division, "...", one_of({"closed", "open"}));
//   config.bind_choice("optimizer", optimizer, "...", {{"sgd", Optimizer::kSgd}, {"lars", Optimizer::kLars}});
//
// What relates two keys (model_size a multiple of heads) stays in the struct's validate().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "base/user_error.h"

namespace mlh {

// Which ends of an in_range interval belong to it.
enum class Ends { kClosed, kOpen, kOpenLow, kOpenHigh };

// The interval a number (or every number of a list) must lie in.
struct Bounds {
  std::optional<double> low, high;
  bool low_open = false, high_open = false;

  bool contains(double value) const;
  // ">= 1", "> 0", "<= 8", "in [0, 1)".
  std::string describe() const;
};
Bounds at_least(double low);  // [low, inf)
Bounds above(double low);     // (low, inf)
Bounds at_most(double high);  // (-inf, high]
Bounds in_range(double low, double high, Ends ends = Ends::kClosed);

// The values a string key may take.
struct OneOf {
  std::vector<std::string> values;
};
inline OneOf one_of(std::vector<std::string> values) { return OneOf{std::move(values)}; }

// A key's names and the values they stand for, for bind_choice: {{"sgd", Optimizer::kSgd}, ...}.
template <class E>
using Choices = std::vector<std::pair<std::string, E>>;

// The name of `value` in `choices` (an internal error when it has none).
template <class E>
const std::string& choice_name(const Choices<E>& choices, E value) {
  for (const auto& [name, choice] : choices)
    if (choice == value) return name;
  throw_internal_error("a value with no name among its choices", __FILE__, __LINE__);
}

class ConfigMap {
 public:
  ConfigMap() = default;
  // Reads a YAML mapping of scalars and flow sequences. Throws UserError on a missing file,
  // malformed YAML (with line), a non-mapping document or a nested mapping.
  static ConfigMap from_file(const std::string& path);
  static ConfigMap from_yaml_text(const std::string& text, const std::string& source_name);

  // "key=value": the value is parsed as YAML (so `lr=1e-3`, `layers=[64,32]` work). Throws UserError
  // when there is no '=' or the key is empty. Unknown keys are reported by check_all_bound().
  void apply_override(const std::string& assignment);

  // Binds a field to a key: if the key is present its value replaces the field's default (converted
  // to T or a UserError), and the effective value is recorded either way.
  template <class T>
  void bind(const std::string& key, T& field, const std::string& help);
  // As bind, and the value (each value of a list) must lie within `bounds`, or a UserError names the
  // key, its origin and the bounds. T: int, int64_t, double or a list of them.
  template <class T>
  void bind(const std::string& key, T& field, const std::string& help, const Bounds& bounds);
  // As bind, and the value must be one of `allowed`.
  void bind(const std::string& key, std::string& field, const std::string& help, const OneOf& allowed);
  // Binds a key whose value names one of `choices`; the field takes the value it names. The effective
  // config records the name.
  template <class E>
  void bind_choice(const std::string& key, E& field, const std::string& help, const Choices<E>& choices);

  // Throws UserError naming every key that no struct bound, with the nearest known key.
  void check_all_bound() const;

  // The effective settings (every bound key and its value), for the log and the run record.
  const nlohmann::json& effective() const { return effective_; }
  // Help text per bound key, in binding order, its bounds or allowed values appended.
  const std::vector<std::pair<std::string, std::string>>& help() const { return help_; }
  const std::string& source_name() const { return source_name_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }

 private:
  struct Entry {
    YAML::Node node;
    std::string origin;  // "configs/<workload>.yaml:7" or "--set lr=1"
  };
  template <class T>
  T convert(const std::string& key, const Entry& entry) const;
  // Records the key and its help; the key's entry, or null when the config does not set it.
  const Entry* record(const std::string& key, const std::string& help);

  std::string source_name_;
  std::map<std::string, Entry> values_;
  std::set<std::string> bound_;
  nlohmann::json effective_ = nlohmann::json::object();
  std::vector<std::pair<std::string, std::string>> help_;
};

// Names the type a key expects, for error messages.
template <class T>
const char* config_type_name();

extern template void ConfigMap::bind(const std::string&, int64_t&, const std::string&);
extern template void ConfigMap::bind(const std::string&, int&, const std::string&);
extern template void ConfigMap::bind(const std::string&, double&, const std::string&);
extern template void ConfigMap::bind(const std::string&, bool&, const std::string&);
extern template void ConfigMap::bind(const std::string&, std::string&, const std::string&);
extern template void ConfigMap::bind(const std::string&, std::vector<int64_t>&, const std::string&);
extern template void ConfigMap::bind(const std::string&, std::vector<double>&, const std::string&);
extern template void ConfigMap::bind(const std::string&, int64_t&, const std::string&, const Bounds&);
extern template void ConfigMap::bind(const std::string&, int&, const std::string&, const Bounds&);
extern template void ConfigMap::bind(const std::string&, double&, const std::string&, const Bounds&);
extern template void ConfigMap::bind(const std::string&, std::vector<int64_t>&, const std::string&, const Bounds&);
extern template void ConfigMap::bind(const std::string&, std::vector<double>&, const std::string&, const Bounds&);

template <class E>
void ConfigMap::bind_choice(const std::string& key, E& field, const std::string& help, const Choices<E>& choices) {
  OneOf names;
  for (const auto& choice : choices) names.values.push_back(choice.first);
  std::string name = choice_name(choices, field);
  bind(key, name, help, names);
  for (const auto& [option, value] : choices)
    if (option == name) field = value;
}

}  // namespace mlh
