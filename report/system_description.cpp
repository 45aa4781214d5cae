#include "report/system_description.h"

#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

namespace mlh::report {
namespace {

namespace fs = std::filesystem;

std::optional<int> positive_integer(const nlohmann::json& value) {
  if (value.is_number_integer() && value.get<int64_t>() > 0) return static_cast<int>(value.get<int64_t>());
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  static const std::regex digits(R"(\s*(\d{1,6})\s*)");
  std::smatch match;
  if (!std::regex_match(text, match, digits) || std::stoi(match[1]) <= 0) return std::nullopt;
  return std::stoi(match[1]);
}

std::string text_field(const nlohmann::json& object, const char* key) {
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

}  // namespace

std::optional<int> SystemDescription::accelerator_count() const {
  if (!accelerators_per_node) return std::nullopt;
  return *accelerators_per_node * nodes.value_or(1);
}

std::string system_file_for_log_folder(const std::string& log_folder) {
  const fs::path benchmark_folder = fs::path(log_folder).lexically_normal();
  const fs::path system_folder = benchmark_folder.parent_path();
  const fs::path results_folder = system_folder.parent_path();
  if (system_folder.empty() || results_folder.filename() != "results") return "";
  return (results_folder.parent_path() / "systems" / (system_folder.filename().string() + ".json")).string();
}

std::optional<SystemDescription> read_system_file(const std::string& path, std::string* problem) {
  std::ifstream in(path);
  if (!in) {
    *problem = "cannot be read";
    return std::nullopt;
  }
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    *problem = "is not a JSON object";
    return std::nullopt;
  }
  SystemDescription system;
  system.system_name = text_field(json, "system_name");
  system.accelerator_model = text_field(json, "accelerator_model_name");
  if (json.contains("accelerators_per_node")) system.accelerators_per_node = positive_integer(json["accelerators_per_node"]);
  for (const char* key : {"number_of_nodes", "number of nodes"})
    if (json.contains(key) && !system.nodes) system.nodes = positive_integer(json[key]);
  return system;
}

std::optional<SystemDescription> parse_submission_entry(const std::string& entry) {
  const auto accelerators = python_literal_field(entry, "num_accelerators");
  const auto model = python_literal_field(entry, "accelerator");
  if (!accelerators && !model) return std::nullopt;
  SystemDescription system;
  if (model) system.accelerator_model = *model;
  if (accelerators) system.accelerators_per_node = positive_integer(*accelerators);
  if (const auto nodes = python_literal_field(entry, "num_nodes")) system.nodes = positive_integer(*nodes);
  if (const auto hardware = python_literal_field(entry, "hardware")) system.system_name = *hardware;
  return system;
}

}  // namespace mlh::report
