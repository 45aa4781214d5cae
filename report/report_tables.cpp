#include "report/report_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "compliance/olympic_mean.h"
#include "compliance/score.h"
#include "base/user_error.h"

namespace mlh::report {
namespace {

std::optional<double> mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

std::optional<double> sample_sd(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  const double m = *mean(values);
  double squares = 0;
  for (double v : values) squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

void summarize_group(GroupSummary& group, const std::vector<RunRow>& runs) {
  std::sort(group.run_indices.begin(), group.run_indices.end(), [&](size_t a, size_t b) {
    const RunRow& x = runs[a];
    const RunRow& y = runs[b];
    if (x.seed && y.seed) return *x.seed < *y.seed;
    if (x.seed.has_value() != y.seed.has_value()) return x.seed.has_value();
    const std::string x_folder = std::filesystem::path(x.log_path).parent_path().string();
    const std::string y_folder = std::filesystem::path(y.log_path).parent_path().string();
    return std::tie(x_folder, x.result_index) < std::tie(y_folder, y.result_index);
  });
  std::vector<std::optional<double>> times;
  std::vector<double> converged_times, epochs, throughputs, joules, watts, per_joule;
  std::set<int64_t> batches;
  std::set<std::string> devices;
  for (size_t index : group.run_indices) {
    const RunRow& run = runs[index];
    if (group.device_model.empty()) group.device_model = run.device_model;
    if (index == group.run_indices.front()) group.device_kind = run.device_kind;
    devices.insert(run.device);
    if (run.energy_joules || run.samples_per_joule) ++group.energy_runs;
    if (run.energy_joules) joules.push_back(*run.energy_joules);
    if (run.mean_power_watts) watts.push_back(*run.mean_power_watts);
    if (run.samples_per_joule) per_joule.push_back(*run.samples_per_joule);
    if (!run.throughput_withheld.empty()) group.throughput_withheld = true;
    if (run.global_batch_size) batches.insert(*run.global_batch_size);
    if (run.converged) {
      ++group.converged_runs;
      converged_times.push_back(run.time_to_train_minutes);
      times.emplace_back(run.time_to_train_minutes);
      if (run.epochs_to_converge) epochs.push_back(*run.epochs_to_converge);
    } else {
      times.emplace_back(std::nullopt);
    }
    if (run.train_samples_per_second) throughputs.push_back(*run.train_samples_per_second);
    if (run.throughput_source == ThroughputSource::kDerivedFromLog) group.throughput_derived = true;
  }
  group.global_batch_sizes.assign(batches.begin(), batches.end());
  if (devices.size() == 1) group.device = *devices.begin();
  group.energy_joules_mean = mean(joules);
  group.mean_power_watts = mean(watts);
  group.samples_per_joule = mean(per_joule);
  group.epochs_mean = mean(epochs);
  group.epochs_sd = sample_sd(epochs);
  group.mean_converged_minutes = mean(converged_times);
  // The MLPerf score when the runs make one (the benchmark's run count and rules, as `mlharness score`),
  // else the olympic mean of the runs present: a seed study is rarely exactly the MLPerf run count.
  std::vector<RunSummary> summaries;
  std::map<std::string, std::string> rejected;  // the compliance verdicts that count against runs
  for (size_t index : group.run_indices) {
    summaries.push_back(runs[index].summary);
    if (!runs[index].compliance_failure.empty()) rejected[runs[index].log_path] = runs[index].compliance_failure;
  }
  const BenchmarkScore score = score_benchmark(summaries.front().benchmark, summaries, rejected);
  // The same number `score` prints: the score, else its olympic mean of the runs present (NCF: of the
  // converged ones, by its first-50 rule), else the plain olympic mean with at most one failed run.
  group.olympic_mean_minutes = score.score_minutes                    ? score.score_minutes
                               : score.runs_present_olympic_minutes ? score.runs_present_olympic_minutes
                                                                    : olympic_mean(times, 1);
  const int run_count = static_cast<int>(times.size());
  const int failed = run_count - group.converged_runs;
  if (group.olympic_mean_minutes) group.olympic_invalid_reason.clear();
  else if (run_count < 3) group.olympic_invalid_reason = "needs at least 3 runs, has " + std::to_string(run_count);
  else if (failed > 1) group.olympic_invalid_reason = plural(failed, "run", "runs") + " did not converge (at most 1 may)";
  else group.olympic_invalid_reason = "too few converged runs";
  group.train_samples_per_second = mean(throughputs);
  if (group.train_samples_per_second && group.device_count > 0)
    group.train_samples_per_second_per_device = *group.train_samples_per_second / group.device_count;
}

// Only where a platform ran a benchmark at two or more GPU counts with a throughput.
void add_scaling_efficiency(std::vector<GroupSummary>& groups) {
  std::map<std::pair<std::string, std::string>, const GroupSummary*> smallest;
  std::map<std::pair<std::string, std::string>, int> counts;
  for (const GroupSummary& g : groups) {
    if (!g.train_samples_per_second_per_device) continue;
    ++counts[{g.benchmark, g.platform}];
    auto& best = smallest[{g.benchmark, g.platform}];
    if (!best || g.device_count < best->device_count) best = &g;
  }
  for (GroupSummary& g : groups) {
    const auto it = smallest.find({g.benchmark, g.platform});
    if (it == smallest.end() || !g.train_samples_per_second_per_device || counts[{g.benchmark, g.platform}] < 2) continue;
    g.scaling_efficiency = *g.train_samples_per_second_per_device / *it->second->train_samples_per_second_per_device;
    g.scaling_reference_devices = it->second->device_count;
  }
}

// The platform's group with the smallest GPU count that has a time, or null.
const GroupSummary* smallest_timed_group(const std::vector<const GroupSummary*>& groups) {
  const GroupSummary* found = nullptr;
  for (const GroupSummary* g : groups)
    if (g->compared_minutes() && (!found || g->device_count < found->device_count)) found = g;
  return found;
}

const GroupSummary* nearest_gpu_count(const std::vector<const GroupSummary*>& groups, int device_count) {
  const GroupSummary* found = nullptr;
  for (const GroupSummary* g : groups) {
    if (!found) {
      found = g;
      continue;
    }
    const int distance = std::abs(g->device_count - device_count);
    const int best = std::abs(found->device_count - device_count);
    if (distance < best || (distance == best && g->device_count < found->device_count)) found = g;
  }
  return found;
}

std::optional<double> ratio(const std::optional<double>& numerator, const std::optional<double>& denominator) {
  if (!numerator || !denominator || *denominator <= 0) return std::nullopt;
  return *numerator / *denominator;
}

std::string group_label(const GroupSummary& g) {
  return g.benchmark + " · " + g.platform + " · " + count_label(g.device_count, g.device_kind);
}

constexpr double kJoulesPerKilowattHour = 3.6e6;

// Each run's and group's cost by `prices` (prices.h), the prices used, the groups no price covers,
// and a warning for each price that priced nothing.
void add_costs(ReportTables& tables, const std::vector<RunRow>& runs, const PriceList& prices) {
  tables.run_costs.assign(runs.size(), RunCost{});
  tables.usd_per_kwh = prices.usd_per_kwh;
  std::set<const Price*> used;
  bool any_energy_joules = false;
  for (GroupSummary& g : tables.groups) {
    const std::optional<HourlyPrice> hourly = hourly_price(prices, g.platform, g.device_count);
    std::vector<double> energy_costs;
    for (size_t index : g.run_indices) {
      const RunRow& run = runs[index];
      RunCost& cost = tables.run_costs[index];
      any_energy_joules = any_energy_joules || run.energy_joules.has_value();
      if (prices.usd_per_kwh && run.energy_joules) {
        cost.energy_cost_usd = *run.energy_joules / kJoulesPerKilowattHour * *prices.usd_per_kwh;
        energy_costs.push_back(*cost.energy_cost_usd);
      }
      if (!hourly) continue;
      cost.usd_per_hour = hourly->usd_per_hour;
      cost.price_basis = hourly->price->system_devices > 0 ? "system" : "device";
      cost.cost_usd = hourly->usd_per_hour * run.time_to_train_minutes / 60.0;
      if (run.train_samples_per_second) cost.samples_per_usd = *run.train_samples_per_second * 3600.0 / hourly->usd_per_hour;
    }
    g.energy_cost_usd = mean(energy_costs);
    tables.any_energy_cost = tables.any_energy_cost || g.energy_cost_usd.has_value();
    if (!hourly) continue;
    used.insert(hourly->price);
    tables.any_price = true;
    g.usd_per_hour = hourly->usd_per_hour;
    g.price_basis = hourly->price->system_devices > 0 ? "system" : "device";
    if (const auto minutes = g.compared_minutes()) g.cost_usd = hourly->usd_per_hour * *minutes / 60.0;
    if (g.train_samples_per_second) g.samples_per_usd = *g.train_samples_per_second * 3600.0 / hourly->usd_per_hour;
  }
  if (tables.any_price)
    for (const GroupSummary& g : tables.groups)
      if (!g.usd_per_hour) tables.unpriced.push_back(group_label(g));

  std::set<std::string> platforms;
  for (const GroupSummary& g : tables.groups) platforms.insert(g.platform);
  for (size_t i = 0; i < prices.prices.size(); ++i) {
    const Price& price = prices.prices[i];
    if (used.count(&price)) {
      tables.prices_used.push_back(price.describe());
      continue;
    }
    bool replaced = false;  // by a later price of the same platform and count
    for (size_t j = i + 1; j < prices.prices.size(); ++j)
      replaced = replaced || (prices.prices[j].platform == price.platform && prices.prices[j].system_devices == price.system_devices);
    std::string reason;
    if (replaced) reason = "replaced by a later price of " + price.platform;
    else if (!platforms.count(price.platform)) reason = "no run is of platform '" + price.platform + "'; the price is not used";
    else if (price.system_devices > 0)
      reason = "no run of " + price.platform + " is on " + std::to_string(price.system_devices) +
               " devices; a price with a count prices that system only (give a price per device without the count)";
    else reason = "the runs of " + price.platform + " have no device count, or a system price covers them";
    tables.price_warnings.push_back({price.given_as, reason});
  }
  if (prices.usd_per_kwh && !any_energy_joules)
    tables.price_warnings.push_back({"--usd-per-kwh", "no run record has energy_joules (energy is measured on GPUs with NVML); no energy cost"});
}

}  // namespace

std::optional<double> GroupSummary::compared_minutes() const {
  return olympic_mean_minutes ? olympic_mean_minutes : mean_converged_minutes;
}

ReportTables build_report_tables(const std::vector<RunRow>& runs, const std::string& baseline_platform,
                                 const PriceList& prices) {
  ReportTables tables;
  std::map<std::tuple<std::string, std::string, int>, size_t> group_of;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto key = std::make_tuple(runs[i].benchmark, runs[i].platform, runs[i].device_count);
    auto [it, inserted] = group_of.emplace(key, tables.groups.size());
    if (inserted) {
      GroupSummary group;
      group.benchmark = runs[i].benchmark;
      group.platform = runs[i].platform;
      group.device_count = runs[i].device_count;
      tables.groups.push_back(group);
    }
    tables.groups[it->second].run_indices.push_back(i);
  }
  std::sort(tables.groups.begin(), tables.groups.end(), [](const GroupSummary& a, const GroupSummary& b) {
    return std::tie(a.benchmark, a.platform, a.device_count) < std::tie(b.benchmark, b.platform, b.device_count);
  });
  for (GroupSummary& group : tables.groups) {
    summarize_group(group, runs);
    tables.any_energy = tables.any_energy || group.energy_runs > 0;
  }
  add_scaling_efficiency(tables.groups);
  add_costs(tables, runs, prices);

  int wanted_count = 0;  // the baseline's device count when --baseline names one ("1xAMD-EPYC")
  const std::string wanted = baseline_platform.empty() ? "" : platform_without_count(baseline_platform, &wanted_count);
  std::map<std::string, std::map<std::string, std::vector<const GroupSummary*>>> by_benchmark;
  bool wanted_found = false;
  for (const GroupSummary& g : tables.groups) {
    by_benchmark[g.benchmark][g.platform].push_back(&g);
    wanted_found = wanted_found || g.platform == wanted;
  }
  if (!wanted.empty() && !wanted_found) {
    std::string platforms;
    for (const GroupSummary& g : tables.groups)
      if (platforms.find("'" + g.platform + "'") == std::string::npos) platforms += (platforms.empty() ? "'" : ", '") + g.platform + "'";
    throw UserError("report: --baseline '" + baseline_platform + "' is not a platform of these runs; platforms: " + platforms);
  }

  for (const auto& [benchmark, platforms] : by_benchmark) {
    if (platforms.size() < 2 && platforms.begin()->second.size() < 2) {
      tables.notes.push_back(benchmark + ": only " + platforms.begin()->first + " at one device count ran it; nothing to compare");
      continue;
    }
    BaselineChoice choice{benchmark, wanted, !wanted.empty()};
    if (!wanted.empty() && !platforms.count(wanted)) {
      tables.notes.push_back(benchmark + ": the baseline " + wanted + " has no usable run of it; not compared");
      continue;
    }
    if (wanted.empty()) {
      std::optional<double> slowest;
      for (const auto& [platform, groups] : platforms) {
        const GroupSummary* g = smallest_timed_group(groups);
        if (g && (!slowest || *g->compared_minutes() > *slowest)) {
          slowest = g->compared_minutes();
          choice.platform = platform;
        }
      }
      if (choice.platform.empty()) {
        tables.notes.push_back(benchmark + ": no platform has a converged run; not compared");
        continue;
      }
    }
    const auto& baseline_groups = platforms.at(choice.platform);
    // The baseline platform's own reference group: the count --baseline names, else its smallest timed
    // count. Its other counts are compared with it (speedup from more devices of one platform); another
    // platform's groups with the baseline's group of the named count, else of the nearest count.
    const GroupSummary* reference = wanted_count > 0 ? nearest_gpu_count(baseline_groups, wanted_count)
                                                     : smallest_timed_group(baseline_groups);
    if (!reference) reference = nearest_gpu_count(baseline_groups, 0);
    if (wanted_count > 0 && reference->device_count != wanted_count) {
      tables.notes.push_back(benchmark + ": the baseline " + choice.platform + " has no run on " +
                             std::to_string(wanted_count) + " devices; not compared");
      continue;
    }
    choice.device_count = wanted_count;
    tables.baselines.push_back(choice);
    for (const auto& [platform, groups] : platforms) {
      for (const GroupSummary* g : groups) {
        if (g == reference) continue;
        const GroupSummary* base = platform == choice.platform || wanted_count > 0
                                       ? reference
                                       : nearest_gpu_count(baseline_groups, g->device_count);
        ComparisonRow row;
        row.benchmark = benchmark;
        row.baseline_platform = choice.platform;
        row.baseline_device_count = base->device_count;
        row.baseline_device_kind = base->device_kind;
        row.platform = platform;
        row.device_count = g->device_count;
        row.device_kind = g->device_kind;
        row.minutes = g->compared_minutes();
        row.baseline_minutes = base->compared_minutes();
        row.minutes_are_olympic = g->olympic_mean_minutes.has_value() && base->olympic_mean_minutes.has_value();
        row.speedup = ratio(row.baseline_minutes, row.minutes);
        row.throughput_ratio = ratio(g->train_samples_per_second, base->train_samples_per_second);
        row.throughput_per_device_ratio = ratio(g->train_samples_per_second_per_device, base->train_samples_per_second_per_device);
        row.cost_usd = g->cost_usd;
        row.baseline_cost_usd = base->cost_usd;
        row.cost_ratio = ratio(row.cost_usd, row.baseline_cost_usd);
        tables.comparisons.push_back(row);
      }
    }
  }
  return tables;
}

}  // namespace mlh::report
