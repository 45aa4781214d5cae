// What a submission says about its hardware: the systems/<system>.json beside published results
// (v0.7: system_name, accelerator_model_name, accelerators_per_node, number_of_nodes — some
// submitters write "number of nodes"; the numbers are strings), or the v0.6 log's submission_entry,
// a Python dict literal whose 'nodes' part names 'accelerator', 'num_accelerators' and 'num_nodes'.
#pragma once

#include <optional>
#include <string>

namespace mlh::report {

struct SystemDescription {
  std::string system_name;
  std::string accelerator_model;
  std::optional<int> accelerators_per_node;
  std::optional<int> nodes;

  // accelerators_per_node x nodes (one node when the count of nodes is not given).
  std::optional<int> accelerator_count() const;
};

// The submission layout's system file for a log folder <org>/results/<system>/<benchmark>:
// <org>/systems/<system>.json (empty when the layout does not fit).
std::string system_file_for_log_folder(const std::string& log_folder);

// Reads a systems JSON file. nullopt with *problem set when it is not a JSON object.
std::optional<SystemDescription> read_system_file(const std::string& path, std::string* problem);

// The accelerator facts of a v0.6 submission_entry value; nullopt when it names none.
std::optional<SystemDescription> parse_submission_entry(const std::string& entry);

}  // namespace mlh::report
