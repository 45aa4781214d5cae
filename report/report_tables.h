// The report's numbers: runs grouped by benchmark x platform x GPU count, each group's seeds,
// epochs to converge, olympic-mean time to train, throughput and scaling efficiency, and each
// platform against a baseline platform per benchmark.
//
// Conventions:
// - olympic mean: compliance/olympic_mean.h, drop 1; a run that did not converge is the dropped
//   slowest; with fewer than 3 runs or more than one failure it is invalid, with the reason;
// - the time compared across platforms is the olympic mean, else (marked) the mean of the converged
//   runs;
// - throughput: the mean of the runs' train samples/s; per GPU = that / GPU count;
// - energy (runs whose RunResult has it, from NVML): the means over those runs of the energy per run,
//   the mean power and the samples per joule (samples/s per watt: perf per watt);
// - scaling efficiency: per-GPU throughput / per-GPU throughput of the same benchmark and platform at
//   its smallest GPU count with a throughput (1.0 = linear scaling);
// - baseline: the platform given, else per benchmark the slowest one (the longest time to train at
//   its own smallest GPU count). Each other group is compared with the baseline's group of the same GPU
//   count, or the nearest count when the baseline has none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/report_data.h"

namespace mlh::report {

struct GroupSummary {
  std::string benchmark;
  std::string platform;
  int gpus = 0;                       // 0: unknown
  std::string device_model;
  std::string device;                 // "cpu" or "cuda" when every run's record says so; else ""
  std::vector<size_t> run_indices;    // into the runs the tables were built from, in seed order
  int converged_runs = 0;
  std::vector<int64_t> global_batch_sizes;  // distinct
  std::optional<double> epochs_mean;  // over converged runs
  std::optional<double> epochs_sd;    // sample standard deviation, with 2 or more converged runs
  std::optional<double> olympic_mean_minutes;
  std::string olympic_invalid_reason;  // set when olympic_mean_minutes is not
  std::optional<double> mean_converged_minutes;
  std::optional<double> train_samples_per_second;
  std::optional<double> train_samples_per_second_per_gpu;
  bool throughput_derived = false;    // some runs' throughput was derived from the log
  bool throughput_withheld = false;   // some logs' train_samples is not the benchmark's epoch
  int energy_runs = 0;                // runs with an energy measurement
  std::optional<double> energy_joules_mean;  // per run
  std::optional<double> mean_power_watts;
  std::optional<double> samples_per_joule;
  std::optional<double> scaling_efficiency;
  int scaling_reference_gpus = 0;

  // The olympic mean, else the mean of the converged runs (nullopt without converged runs).
  std::optional<double> compared_minutes() const;
};

struct BaselineChoice {
  std::string benchmark;
  std::string platform;
  bool chosen_by_user = false;
};

struct ComparisonRow {
  std::string benchmark;
  std::string baseline_platform;
  int baseline_gpus = 0;
  std::string platform;
  int gpus = 0;
  std::optional<double> minutes;
  std::optional<double> baseline_minutes;
  bool minutes_are_olympic = true;     // both times are olympic means
  std::optional<double> speedup;       // baseline time / this time (> 1: faster than the baseline)
  std::optional<double> throughput_ratio;          // this / baseline
  std::optional<double> throughput_per_gpu_ratio;  // this / baseline
};

struct ReportTables {
  std::vector<GroupSummary> groups;   // by benchmark, platform, GPU count
  std::vector<BaselineChoice> baselines;
  std::vector<ComparisonRow> comparisons;
  std::vector<std::string> notes;     // what could not be compared, and why
  bool any_energy = false;            // some run has an energy measurement: the energy columns exist
};

// `baseline_platform` empty: the slowest platform per benchmark. A leading "Nx" is ignored. Throws
// UserError when it names no platform of `runs`.
ReportTables build_report_tables(const std::vector<RunRow>& runs, const std::string& baseline_platform);

}  // namespace mlh::report
