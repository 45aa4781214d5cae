// Settings flow one way: a YAML config file -> `--set key=value` overrides -> typed fields. A
// ConfigMap holds the flat key -> YAML value map; typed structs bind their fields to keys through
// `bind`, which converts and records each value (so the effective config can be logged); keys nobody
// bound are errors. Every error is a UserError naming the file and line, or the --set, and the key.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace mlh {

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

  // Throws UserError naming every key that no struct bound, with the nearest known key.
  void check_all_bound() const;

  // The effective settings (every bound key and its value), for the log and the run record.
  const nlohmann::json& effective() const { return effective_; }
  // Help text per bound key, in binding order.
  const std::vector<std::pair<std::string, std::string>>& help() const { return help_; }
  const std::string& source_name() const { return source_name_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }

 private:
  struct Entry {
    YAML::Node node;
    std::string origin;  // "configs/ncf.yaml:7" or "--set lr=1"
  };
  template <class T>
  T convert(const std::string& key, const Entry& entry) const;

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

}  // namespace mlh
