// What a submission says about its hardware, in every form the published rounds used:
// - systems/<system>.json beside results/ (v0.6, v0.7): system_name, accelerator_model_name,
//   accelerators_per_node, number_of_nodes (some submitters write "number of nodes"; the numbers are
//   strings), host_processors_per_node and host_processor_model_name; a few v0.6 files describe the
//   hardware instead as a `nodes` list (below); Alibaba's v0.7 files have trailing commas;
// - results/<system>/entry.json (v0.5) and the v0.6 systems JSON of Fujitsu and Intel: a `nodes` list of
//   {num_nodes, accelerator, num_accelerators, cpu} groups, accelerators per node. A TPU slice
//   (accelerator "tpuv3-32") gives num_accelerators as the slice's total, its TPU cores in v0.5;
// - the v0.6 log's submission_entry: a Python dict literal whose 'nodes' part names 'accelerator',
//   'num_accelerators' and 'num_nodes' (NVIDIA), or a JSON object with a `nodes` list (Intel);
// - NVIDIA's v0.6 systems files, which are no JSON but the log's lines `platform: {"value": ...}` and
//   `entry: {"value": "<the submission_entry>"}`: read as that submission_entry (from_log_lines).
#pragma once

#include <optional>
#include <string>

namespace mlh::report {

struct SystemDescription {
  std::string system_name;
  std::string accelerator_model;      // "" when none is named ("N/A", "NA")
  std::string host_processor_model;
  std::optional<int> accelerators_per_node;
  std::optional<int> nodes;
  std::optional<int> host_processors_per_node;
  // The whole system's accelerators where the description counts them as a whole: a TPU slice.
  std::optional<int> accelerators_total;
  // Which fields gave the count ("accelerators_per_node x number_of_nodes", "nodes list", ...).
  std::string count_fields;
  // Read from NVIDIA's v0.6 `key: {"value": ...}` lines: the submission_entry its logs carry too.
  bool from_log_lines = false;

  // accelerators_total, else accelerators_per_node x nodes (one node when the count of nodes is not
  // given); nullopt without accelerators.
  std::optional<int> accelerator_count() const;
  // host_processors_per_node x nodes, for a system without accelerators (MLPerf counts the processors
  // of CPU-only systems); nullopt otherwise.
  std::optional<int> processor_count() const;
  // The accelerator model names a TPU slice ("tpuv3-32", "tpu-v3-128").
  bool is_tpu_slice() const;
};

// The submission layout's system file for a log folder <org>/results/<system>/<benchmark>:
// <org>/systems/<system>.json (empty when the layout does not fit).
std::string system_file_for_log_folder(const std::string& log_folder);

// v0.5's system file for a log folder <submission>/results/<system>/<benchmark>:
// <submission>/results/<system>/entry.json (empty when the layout does not fit).
std::string entry_file_for_log_folder(const std::string& log_folder);

// Reads a systems JSON or entry.json file (or NVIDIA's v0.6 systems lines). nullopt with *problem set
// when it is neither a JSON object nor those lines.
std::optional<SystemDescription> read_system_file(const std::string& path, std::string* problem);

// The accelerator facts of a v0.6 submission_entry value; nullopt when it names none.
std::optional<SystemDescription> parse_submission_entry(const std::string& entry);

// The size K of a TPU slice a name gives ("tpu-v3-128", "tpuv2-8", "TPU v3-1024"): Google's slice
// names count TensorCores, two per chip on v2, v3 and v4. nullopt for other names.
std::optional<int> tpu_slice_cores(const std::string& name);

}  // namespace mlh::report
