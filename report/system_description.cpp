#include "report/system_description.h"

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The largest count of nodes, accelerators or processors believed (the largest published systems
// have some thousands); a larger one, or a product above it, counts as not given.
constexpr int64_t kMostCounted = 1000000;

std::optional<int> positive_integer(const json& value) {
  if (value.is_number_integer() && value.get<int64_t>() > 0 && value.get<int64_t>() < 1000000)
    return static_cast<int>(value.get<int64_t>());
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  static const std::regex digits(R"(\s*(\d{1,6})\s*)");
  std::smatch match;
  if (!std::regex_match(text, match, digits) || std::stoi(match[1]) <= 0) return std::nullopt;
  return std::stoi(match[1]);
}

std::optional<int> integer_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? std::nullopt : positive_integer(*it);
}

// A model name, "" for the placeholders submitters wrote where there is none.
std::string model_name(const std::string& name) {
  static const std::regex none(R"(\s*(n/?a|none|-)?\s*)", std::regex::icase);
  return std::regex_match(name, none) ? "" : name;
}

std::string text_field(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// A quoted field of a Python dict literal: 'name': 'value'.
std::optional<std::string> python_literal_field(const std::string& text, const std::string& name) {
  const std::regex field("'" + name + R"(':\s*'([^']*)')");
  std::smatch match;
  if (!std::regex_search(text, match, field)) return std::nullopt;
  return match[1].str();
}

// The processors per node a CPU description names: "2x Intel(R) Xeon(R) ..." (v0.5 entry.json's cpu, or
// its hardware "8-nodes 2x Intel(R) Xeon(R) Platinum 8180 processor").
std::optional<int> processors_in_text(const std::string& text) {
  static const std::regex count(R"((?:^|\s)(\d{1,3})\s*x\s+\S)");
  std::smatch match;
  if (!std::regex_search(text, match, count) || std::stoi(match[1]) <= 0) return std::nullopt;
  return std::stoi(match[1]);
}

// A `nodes` list: groups of identical nodes, each {num_nodes, accelerator, num_accelerators (per node),
// cpu}. Accelerators add up over the groups; a TPU slice's num_accelerators is already the slice's
// total (v0.5: "tpuv2-512" on 64 hosts, num_accelerators 512), never multiplied by its hosts.
void read_nodes_list(const json& groups, const std::string& hardware, SystemDescription& system) {
  int64_t accelerators = 0, nodes = 0, processors = 0;  // each term below 10^6 x 10^6: no overflow
  bool tpu = false, per_node_uniform = true;
  std::optional<int> per_node;
  for (const json& group : groups) {
    if (!group.is_object()) continue;
    const int count = integer_field(group, "num_nodes").value_or(1);
    nodes += count;
    const std::string model = group.contains("accelerator") && group["accelerator"].is_string()
                                  ? model_name(group["accelerator"].get<std::string>())
                                  : "";
    if (system.accelerator_model.empty()) system.accelerator_model = model;
    if (system.host_processor_model.empty()) system.host_processor_model = model_name(text_field(group, "cpu"));
    if (const auto each = integer_field(group, "num_accelerators")) {
      if (tpu_slice_cores(model)) {
        tpu = true;
        accelerators += *each;
      } else {
        accelerators += int64_t{count} * *each;
      }
      if (per_node && *per_node != *each) per_node_uniform = false;
      per_node = *each;
    }
    const auto sockets = processors_in_text(text_field(group, "cpu"));
    processors += int64_t{count} * sockets.value_or(processors_in_text(hardware).value_or(1));
  }
  // More than any system has (a slip of the keyboard, or an attack on the reader): no counts at all.
  if (nodes == 0 || nodes > kMostCounted || accelerators > kMostCounted || processors > kMostCounted) return;
  system.nodes = static_cast<int>(nodes);
  if (accelerators > 0) {
    if (tpu || !per_node_uniform) {
      system.accelerators_total = static_cast<int>(accelerators);
    } else {
      system.accelerators_per_node = per_node;
    }
    system.count_fields = tpu ? "nodes list: the TPU slice's num_accelerators" : "nodes list: num_nodes x num_accelerators";
  } else {
    system.host_processors_per_node = processors / nodes;
    if (processors % nodes != 0) system.host_processors_per_node.reset();
    system.count_fields = "nodes list: num_nodes x processors per node";
  }
}

// JSON with the trailing commas some submitters left before a closing brace or bracket removed (Alibaba's
// v0.7 systems files); strings are left alone.
std::string without_trailing_commas(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      escaped = !escaped && c == '\\';
      if (c == '"' && !escaped) in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',') {
      size_t next = i + 1;
      while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
      if (next < text.size() && (text[next] == '}' || text[next] == ']')) continue;
    }
    out.push_back(c);
  }
  return out;
}

SystemDescription describe(const json& object) {
  SystemDescription system;
  system.system_name = text_field(object, "system_name");
  system.accelerator_model = model_name(text_field(object, "accelerator_model_name"));
  system.host_processor_model = model_name(text_field(object, "host_processor_model_name"));
  system.accelerators_per_node = integer_field(object, "accelerators_per_node");
  for (const char* key : {"number_of_nodes", "number of nodes"})
    if (!system.nodes) system.nodes = integer_field(object, key);
  system.host_processors_per_node = integer_field(object, "host_processors_per_node");
  if (system.accelerators_per_node) {
    system.count_fields = "accelerators_per_node x number_of_nodes";
  } else if (system.host_processors_per_node && system.accelerator_model.empty()) {
    system.count_fields = "host_processors_per_node x number_of_nodes";
  } else if (const auto nodes = object.find("nodes"); nodes != object.end() && nodes->is_array()) {
    SystemDescription listed;
    read_nodes_list(*nodes, text_field(object, "hardware"), listed);
    if (system.accelerator_model.empty()) system.accelerator_model = listed.accelerator_model;
    if (system.host_processor_model.empty()) system.host_processor_model = listed.host_processor_model;
    system.accelerators_per_node = listed.accelerators_per_node;
    system.accelerators_total = listed.accelerators_total;
    system.nodes = listed.nodes;
    if (!system.host_processors_per_node) system.host_processors_per_node = listed.host_processors_per_node;
    system.count_fields = listed.count_fields;
  }
  return system;
}

// NVIDIA's v0.6 systems files: `<key>: {"value": <v>, "metadata": {...}}` lines, among them
// `platform` and `entry` (the submission_entry its logs carry).
std::optional<SystemDescription> from_log_lines(const std::string& text) {
  static const std::regex line(R"(^\s*(\w+):\s*(\{.*\})\s*$)");
  std::istringstream in(text);
  std::string platform;
  std::optional<SystemDescription> system;
  for (std::string row; std::getline(in, row);) {
    std::smatch match;
    if (!std::regex_match(row, match, line)) continue;
    const json record = json::parse(match[2].str(), nullptr, /*allow_exceptions=*/false);
    if (!record.is_object() || !record.contains("value")) continue;
    const json& value = record["value"];
    if (match[1] == "platform" && value.is_string()) platform = value.get<std::string>();
    if (match[1] == "entry") system = parse_submission_entry(value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (!system) return std::nullopt;
  if (!platform.empty()) system->system_name = platform;
  system->from_log_lines = true;
  return system;
}

}  // namespace

std::optional<int> SystemDescription::accelerator_count() const {
  if (accelerators_total) return accelerators_total;
  if (!accelerators_per_node) return std::nullopt;
  const int64_t count = int64_t{*accelerators_per_node} * nodes.value_or(1);
  if (count > kMostCounted) return std::nullopt;
  return static_cast<int>(count);
}

std::optional<int> SystemDescription::processor_count() const {
  if (accelerator_count() || !accelerator_model.empty() || !host_processors_per_node) return std::nullopt;
  const int64_t count = int64_t{*host_processors_per_node} * nodes.value_or(1);
  if (count > kMostCounted) return std::nullopt;
  return static_cast<int>(count);
}

bool SystemDescription::is_tpu_slice() const { return tpu_slice_cores(accelerator_model).has_value(); }

std::optional<int> tpu_slice_cores(const std::string& name) {
  static const std::regex slice(R"(\btpu[-_ ]?v\d+[a-z]?[-_ ](\d{1,5})(?!\d))", std::regex::icase);
  std::smatch match;
  if (!std::regex_search(name, match, slice) || std::stoi(match[1]) <= 0) return std::nullopt;
  return std::stoi(match[1]);
}

std::string system_file_for_log_folder(const std::string& log_folder) {
  const fs::path benchmark_folder = fs::path(log_folder).lexically_normal();
  const fs::path system_folder = benchmark_folder.parent_path();
  const fs::path results_folder = system_folder.parent_path();
  if (system_folder.empty() || results_folder.filename() != "results") return "";
  return (results_folder.parent_path() / "systems" / (system_folder.filename().string() + ".json")).string();
}

std::string entry_file_for_log_folder(const std::string& log_folder) {
  const fs::path system_folder = fs::path(log_folder).lexically_normal().parent_path();
  if (system_folder.empty() || system_folder.parent_path().filename() != "results") return "";
  return (system_folder / "entry.json").string();
}

std::optional<SystemDescription> read_system_file(const std::string& path, std::string* problem) {
  std::ifstream in(path);
  std::stringstream text;
  if (!in || !(text << in.rdbuf())) {
    *problem = "cannot be read";
    return std::nullopt;
  }
  json object = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) object = json::parse(without_trailing_commas(text.str()), nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    if (auto lines = from_log_lines(text.str())) return lines;
    *problem = "is not a JSON object";
    return std::nullopt;
  }
  return describe(object);
}

std::optional<SystemDescription> parse_submission_entry(const std::string& entry) {
  const json object = json::parse(entry, nullptr, /*allow_exceptions=*/false);
  if (object.is_object()) {  // Intel's v0.6 logs: a JSON object
    SystemDescription system = describe(object);
    if (system.accelerator_model.empty() && !system.accelerator_count() && !system.processor_count()) return std::nullopt;
    system.system_name = text_field(object, "hardware");
    return system;
  }
  const auto accelerators = python_literal_field(entry, "num_accelerators");
  const auto model = python_literal_field(entry, "accelerator");
  if (!accelerators && !model) return std::nullopt;
  SystemDescription system;
  if (model) system.accelerator_model = model_name(*model);
  if (accelerators) system.accelerators_per_node = positive_integer(*accelerators);
  if (const auto nodes = python_literal_field(entry, "num_nodes")) system.nodes = positive_integer(*nodes);
  if (const auto hardware = python_literal_field(entry, "hardware")) system.system_name = *hardware;
  system.count_fields = "num_accelerators x num_nodes";
  return system;
}

}  // namespace mlh::report
