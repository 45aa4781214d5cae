// The report's numbers: runs grouped by benchmark x platform x device count, each group's seeds,
// epochs to converge, olympic-mean time to train, throughput, scaling efficiency and, with prices,
// cost, and each platform against a baseline platform per benchmark.
//
// Conventions:
// - olympic mean: compliance/olympic_mean.h, drop 1; a run that did not converge is the dropped
//   slowest; with fewer than 3 runs or more than one failure it is invalid, with the reason;
// - the time compared across platforms is the olympic mean, else (marked) the mean of the converged
//   runs;
// - throughput: the mean of the runs' train samples/s; per device = that / device count;
// - energy (runs whose RunResult has it, from NVML): the means over those runs of the energy per run,
//   the mean power and the samples per joule (samples/s per watt: perf per watt);
// - scaling efficiency: per-device throughput / per-device throughput of the same benchmark and
//   platform at its smallest device count with a throughput (1.0 = linear scaling);
// - cost (prices.h; only where a price covers the platform and device count): per run, the hourly
//   price x its time to train, its samples/s x 3600 / the hourly price, and its energy_joules / 3.6e6
//   x usd_per_kwh; per group, the hourly price x the time compared (the olympic mean, so cost and
//   time agree), the group's throughput x 3600 / the hourly price, and the mean energy cost per run;
// - baseline: the platform given, else per benchmark the slowest one (the longest time to train at
//   its own smallest device count); with a count ("1xAMD-EPYC") that system. Another platform's group
//   is compared with the baseline's group of the named count, else of the same count or the nearest;
//   the baseline platform's other device counts with its reference group (the named count, else its
//   smallest), so two GPU counts of one platform give a speedup too; cost ratio = this cost / the
//   baseline's (below 1: cheaper to train).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/prices.h"
#include "report/report_data.h"

namespace mlh::report {

struct GroupSummary {
  std::string benchmark;
  std::string platform;
  int device_count = 0;               // 0: unknown
  DeviceKind device_kind = DeviceKind::kAccelerator;  // what the count counts (its first run's)
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
  std::optional<double> train_samples_per_second_per_device;
  bool throughput_derived = false;    // some runs' throughput was derived from the log
  bool throughput_withheld = false;   // some logs' train_samples is not the benchmark's epoch
  int energy_runs = 0;                // runs with an energy measurement
  std::optional<double> energy_joules_mean;  // per run
  std::optional<double> mean_power_watts;
  std::optional<double> samples_per_joule;
  std::optional<double> scaling_efficiency;
  int scaling_reference_devices = 0;
  // Cost, when a price covers the group's platform and device count:
  std::optional<double> usd_per_hour;           // of one run: the system price, or device price x count
  std::string price_basis;                      // "system" or "device"
  std::optional<double> cost_usd;               // usd_per_hour x compared_minutes() / 60
  std::optional<double> samples_per_usd;        // train_samples_per_second x 3600 / usd_per_hour
  std::optional<double> energy_cost_usd;        // per run: energy_joules_mean / 3.6e6 x usd_per_kwh

  // The olympic mean, else the mean of the converged runs (nullopt without converged runs).
  std::optional<double> compared_minutes() const;
};

struct BaselineChoice {
  std::string benchmark;
  std::string platform;
  bool chosen_by_user = false;
  int device_count = 0;        // the count --baseline named ("1xAMD-EPYC"); 0: per row, as below
};

struct ComparisonRow {
  std::string benchmark;
  std::string baseline_platform;
  int baseline_device_count = 0;
  DeviceKind baseline_device_kind = DeviceKind::kAccelerator;
  std::string platform;
  int device_count = 0;
  DeviceKind device_kind = DeviceKind::kAccelerator;
  std::optional<double> minutes;
  std::optional<double> baseline_minutes;
  bool minutes_are_olympic = true;     // both times are olympic means
  std::optional<double> speedup;       // baseline time / this time (> 1: faster than the baseline)
  std::optional<double> throughput_ratio;          // this / baseline
  std::optional<double> throughput_per_device_ratio;  // this / baseline
  std::optional<double> cost_usd;                   // the groups' cost_usd
  std::optional<double> baseline_cost_usd;
  std::optional<double> cost_ratio;                 // this / baseline (below 1: cheaper to train)
};

// One run's cost (empty without a price for its platform and device count, or without energy).
struct RunCost {
  std::optional<double> usd_per_hour;
  std::string price_basis;                      // "system" or "device"
  std::optional<double> cost_usd;               // usd_per_hour x time_to_train_minutes / 60
  std::optional<double> samples_per_usd;        // train_samples_per_second x 3600 / usd_per_hour
  std::optional<double> energy_cost_usd;        // energy_joules / 3.6e6 x usd_per_kwh
};

// A price that priced no run, or --usd-per-kwh without energy: a warning, not an error.
struct PriceWarning {
  std::string given_as;                         // Price::given_as, or "--usd-per-kwh"
  std::string reason;
};

struct ReportTables {
  std::vector<GroupSummary> groups;   // by benchmark, platform, GPU count
  std::vector<BaselineChoice> baselines;
  std::vector<ComparisonRow> comparisons;
  std::vector<std::string> notes;     // what could not be compared, and why
  bool any_energy = false;            // some run has an energy measurement: the energy columns exist
  std::vector<RunCost> run_costs;     // one per run, in the runs' order
  bool any_price = false;             // some group has a price: the cost columns and chart exist
  bool any_energy_cost = false;       // --usd-per-kwh and some energy: the energy cost columns exist
  std::vector<std::string> prices_used;   // Price::describe() of the prices that priced a run
  std::optional<double> usd_per_kwh;
  std::vector<std::string> unpriced;  // "gnmt · Tesla-T4 · 4 GPUs": groups no price covers (with any_price)
  std::vector<PriceWarning> price_warnings;
};

// `baseline_platform` empty: the slowest platform per benchmark. A leading "Nx" is ignored. Throws
// UserError when it names no platform of `runs`. Without prices there is no cost.
ReportTables build_report_tables(const std::vector<RunRow>& runs, const std::string& baseline_platform,
                                 const PriceList& prices = {});

}  // namespace mlh::report
