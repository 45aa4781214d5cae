// The report's input: every MLPerf result log (result_*.txt, any of the three line formats) under the
// given folders, each with the RunResult record beside it (result_<i>.json) when there is one, turned
// into one row per run. Inputs that cannot be used are listed with the reason instead of stopping
// the report: a log without run_start or run_stop, a file that is not a log, a second run of the same
// seed, a folder without logs, a log of another benchmark than the rest of its folder.
//
// Where each field comes from, first source that has it:
//   benchmark   log submission_benchmark (v0.5: the lines' benchmark field), RunResult, folder name
//   platform    log submission_platform (not a placeholder), system JSON system_name, RunResult,
//               v0.5 entry.json's accelerator when it names a TPU slice (Google's v0.5 system folders
//               are all `tpu`), the <system> folder; a leading "Nx" is dropped (the count lives in
//               `device_count`)
//   device_count  as the submission counts it (system_description.h has the forms): systems JSON
//               accelerators_per_node x number_of_nodes or its `nodes` list; v0.5 entry.json's `nodes`
//               (a TPU slice's num_accelerators is its total; a multi-node entry naming a whole pod
//               counts the nodes its log shows, one run_clear_caches each); for a system without
//               accelerators its processors (host_processors_per_node x nodes); RunResult device_count;
//               the log's v0.6 submission_entry; the "Nx" of the platform label; last a count in the
//               label or folder names (count_in_name in report_data.cpp: "abci_2048xV100", "v100-1280",
//               "tpu-v3-128" as TPU cores in a v0.5 log, chips, half that, in later ones)
//   device_kind RunResult device ("cpu": CPU ranks, "cuda": GPUs); CPU sockets for processors
//               counted; else the device model (systems JSON accelerator_model_name, RunResult
//               device_model, entry.json or submission_entry accelerator), then the platform label, by
//               name (device_kind_by_name); else an accelerator
//   throughput  RunResult train_samples_per_second; else derived from the log as
//               train_samples x epochs run / (run_stop - run_start), which includes eval time, but
//               not when train_samples is not the benchmark's epoch (mlperf_epoch_samples)
//   energy      RunResult energy_joules, mean_power_watts, samples_per_joule (absent without NVML)
//   quality     RunResult quality_name/quality_targets and evals; else the log's eval_accuracy lines: a
//               number, or an object or array of several (Mask R-CNN's box and mask AP), read member by
//               member against RunSummary::member_targets
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compliance/benchmark_facts.h"
#include "compliance/run_summary.h"

namespace mlh::report {

struct QualityPoint {
  double epoch = 0;
  double value = 0;                            // of a quality of several numbers, its first member's
  std::vector<std::optional<double>> members;  // each member's value, in RunRow::quality_members' order
                                               // (nullopt: the eval lacks it); empty for one number
};

enum class ThroughputSource { kNone, kRunResult, kDerivedFromLog };
const char* to_string(ThroughputSource source);

// What a run's device count counts: GPUs; CPU ranks (a CPU run counts its processes, not cores or
// sockets); accelerators, for a system whose model names neither (TPUs, in the unit of the
// submission's round: v0.5 counted TPU cores, v0.6 and v0.7 chips; or no model at all: MLPerf training
// systems are accelerator systems); or CPU sockets, the processors a published CPU-only system counts.
enum class DeviceKind { kGpu, kCpu, kAccelerator, kCpuSocket };
// "gpu", "cpu", "accelerator", "cpu_socket": the CSV's device_kind.
const char* to_string(DeviceKind kind);
// The kind a device model or platform name says: GPU for NVIDIA/AMD GPU names (Tesla, V100, A100,
// DGX, Radeon, "GPU", ...), CPU for CPU names (Xeon, EPYC, "CPU", ...); nullopt for other names.
std::optional<DeviceKind> device_kind_by_name(const std::string& name);
// "8 GPUs", "1 GPU", "2 CPU ranks", "8 accelerators", "16 CPU sockets", "? GPUs" for an unknown count; with no kind
// (groups of several kinds, as on one chart axis) "8 devices".
std::string count_label(int count, std::optional<DeviceKind> kind);
// The plural noun alone: "GPUs", "CPU ranks", "accelerators", "CPU sockets", "devices".
std::string count_noun(std::optional<DeviceKind> kind);

// Where a run ran, by the sources above: what `report` groups by and `score` prints.
struct RunPlatform {
  std::string platform;        // without a leading "Nx"
  std::string platform_source;
  std::string device_model;    // GPU (or CPU) model, when known
  int device_count = 0;        // 0 when unknown
  std::string device_count_source;
  DeviceKind device_kind = DeviceKind::kAccelerator;

  // MLPerf's system name: "8xNVIDIA DGX-1" (the count, then the platform), or the platform alone
  // when the count is unknown.
  std::string label() const;
  // The system name and what its count counts: "8xNVIDIA DGX-1: 8 GPUs", "2xAMD-EPYC: 2 CPU ranks";
  // the platform alone when the count is unknown.
  std::string label_with_kind() const;
};

struct RunRow {
  RunSummary summary;          // what the log says (scoring reads it)
  std::string log_path;
  std::string record_path;     // result_<i>.json beside the log; empty when there is none
  std::string log_format;      // mllog, mll, mlpv0.5
  int result_index = 0;        // the <i> of result_<i>.txt (or result_<i>_<more>.txt); 0 without one
  // The MLPerf benchmark, with " (<data_source> data)" for runs on stand-in data (the mini configs'
  // synthetic or Fashion-MNIST data), which are never grouped or compared with runs on MLPerf's data.
  std::string benchmark;
  std::string platform;        // without a leading "Nx"
  std::string platform_source;
  std::string device_model;    // GPU (or CPU) model, when known
  int device_count = 0;        // 0 when unknown; what it counts: device_kind
  std::string device_count_source;
  DeviceKind device_kind = DeviceKind::kAccelerator;
  std::string device;          // RunResult device, "cpu" or "cuda"; "" without a record
  std::optional<int64_t> seed;
  std::optional<int64_t> global_batch_size;
  bool converged = false;      // by its own log, and not counted as failed by its compliance verdict
  // Why the compliance verdict counts the run as not converged (run_verdicts.h: mlharness's own runs,
  // or every run under --strict); "" otherwise.
  std::string compliance_failure;
  std::string status;          // run_stop status
  std::optional<double> epochs_to_converge;
  std::optional<double> epochs_run;
  double time_to_train_minutes = 0;  // run_stop - run_start
  std::optional<double> train_samples_per_second;
  ThroughputSource throughput_source = ThroughputSource::kNone;
  // Why no throughput was derived from the log although it logs train_samples ("" otherwise).
  std::string throughput_withheld;
  std::optional<double> energy_joules;      // RunResult: GPU boards (NVML) + CPU packages (RAPL), what was measured
  std::optional<double> mean_power_watts;
  std::optional<double> samples_per_joule;
  std::string energy_source;   // RunResult energy_source ("nvml", or why absent), + cpu_energy_source when measured
  std::string quality_name;
  std::optional<double> quality_target;
  // A quality of several numbers (Mask R-CNN's {"BBOX": .., "SEGM": ..}): each member and its target,
  // from the RunResult's quality_targets, else the log's (RunSummary::member_targets: MLPerf's when
  // the log names none); empty for a quality of one number. quality_name is then the first member's.
  // Such a run converged only when every member reached its own target.
  std::vector<MemberTarget> quality_members;
  std::vector<QualityPoint> evals;  // quality against epoch, in order

  // "seed 7", or "run 3" (the result index) for a log without a seed.
  std::string seed_label() const;
};

struct InputIssue {
  std::string path;
  std::string reason;
  bool skipped = true;         // false: the input is used, the reason is a warning
};

struct CollectedRuns {
  std::vector<RunRow> runs;    // sorted by benchmark, platform, device_count, then log path
  std::vector<InputIssue> issues;
  int logs_found = 0;
};

// Reads every result_*.txt under `inputs` (folders searched recursively, or log files named
// directly): the files `mlharness score` reads (find_result_files). Throws UserError for an input
// path that does not exist.
CollectedRuns collect_runs(const std::vector<std::string>& inputs);

// How far a log's train_samples may lie outside mlperf_epoch_samples (compliance/benchmark_facts.h)
// before no throughput is derived from it.
inline constexpr double kEpochSamplesTolerance = 0.10;

// The platform of the run `summary` read from its log (summary.path): the systems JSON (or v0.5
// entry.json) of the submission layout the log sits in, the RunResult record beside it, the log's
// submission_entry, the "Nx" of its platform label, the label and folder names. The one rule `report`
// and `score` both follow.
RunPlatform identify_run_platform(const RunSummary& summary);

// Strips a leading "<N>x" from a platform label; *count gets N when there was one.
std::string platform_without_count(const std::string& label, int* count);

}  // namespace mlh::report
