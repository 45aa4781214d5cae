#include "report/report_document.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "report/svg_chart.h"

namespace mlh::report {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string shortest(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string rate(const std::optional<double>& samples_per_second) {
  if (!samples_per_second) return "";
  return fixed(*samples_per_second, *samples_per_second >= 100 ? 0 : 1);
}

// Three significant digits or more, without an exponent: 123456, 1234, 12.3, 1.23, 0.0123.
std::string readable(const std::optional<double>& value) {
  if (!value) return "";
  if (*value >= 1000) return fixed(*value, 0);
  char text[64];
  std::snprintf(text, sizeof text, "%.3g", *value);
  return text;
}

std::string times(const std::optional<double>& ratio) { return ratio ? fixed(*ratio, 2) + "x" : ""; }

std::string group_name(const GroupSummary& g) {
  return g.benchmark + " · " + g.platform + " · " + count_label(g.device_count, g.device_kind);
}

// The kind of device every group counts, or nullopt when they differ.
std::optional<DeviceKind> common_kind(const std::vector<const GroupSummary*>& groups) {
  std::set<DeviceKind> kinds;
  for (const GroupSummary* g : groups) kinds.insert(g->device_kind);
  return kinds.size() == 1 ? std::optional<DeviceKind>(*kinds.begin()) : std::nullopt;
}

// Money in a table cell: cents, or two significant digits below a cent; "—" when unpriced.
std::string money(const std::optional<double>& usd) {
  if (!usd) return "—";
  return dollars(*usd).substr(1);
}

// The energy per run is shown in kJ when some group's is 1000 J or more, else in J.
bool energy_in_kilojoules(const ReportTables& tables) {
  for (const GroupSummary& g : tables.groups)
    if (g.energy_joules_mean && *g.energy_joules_mean >= 1000) return true;
  return false;
}

std::string file_stem(const std::string& kind, const GroupSummary* g, const std::string& benchmark) {
  std::string stem = kind + "_" + benchmark;
  if (g) stem += "_" + g->platform + "_" + std::to_string(g->device_count) + to_string(g->device_kind);
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return stem;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

std::string epochs_cell(const GroupSummary& g) {
  if (!g.epochs_mean) return "";
  return fixed(*g.epochs_mean, 2) + (g.epochs_sd ? " ± " + fixed(*g.epochs_sd, 2) : "");
}

std::string olympic_cell(const GroupSummary& g) {
  return g.olympic_mean_minutes ? fixed(*g.olympic_mean_minutes, 3) : "invalid (" + g.olympic_invalid_reason + ")";
}

std::string per_seed_epochs(const GroupSummary& g, const std::vector<RunRow>& runs) {
  std::vector<std::string> parts;
  for (size_t i : g.run_indices) {
    const RunRow& run = runs[i];
    const std::string value = run.converged && run.epochs_to_converge ? shortest(*run.epochs_to_converge) : "not converged";
    parts.push_back(run.seed_label() + ": " + value);
  }
  return join(parts, ", ");
}

// "Prices used: 8xTesla-V100 $24.48/h (system), Tesla-T4 $0.35/device-h; energy $0.12/kWh." and the
// groups no price covers.
void add_price_paragraphs(DocSection& section, const ReportTables& tables, bool with_unpriced) {
  std::vector<std::string> used = tables.prices_used;
  std::string energy;
  if (tables.any_energy_cost && tables.usd_per_kwh) energy = "energy " + price_text(*tables.usd_per_kwh) + "/kWh";
  if (!used.empty() || !energy.empty())
    section.blocks.push_back(Paragraph{"Prices used: " + join(used, ", ") + (used.empty() || energy.empty() ? "" : "; ") + energy + "."});
  if (with_unpriced && !tables.unpriced.empty())
    section.blocks.push_back(Paragraph{"Unpriced (no price for the platform and device count; — in the cost cells): " +
                                       join(tables.unpriced, ", ") + "."});
}

DocSection introduction(const CollectedRuns& collected, const ReportTables& tables, const std::vector<std::string>& inputs) {
  std::set<std::string> benchmarks, platforms;
  for (const GroupSummary& g : tables.groups) {
    benchmarks.insert(g.benchmark);
    platforms.insert(g.platform);
  }
  int skipped = 0;
  for (const InputIssue& issue : collected.issues) skipped += issue.skipped ? 1 : 0;
  DocSection section{"Inputs and method", 2, {}};
  section.blocks.push_back(Paragraph{std::to_string(collected.runs.size()) + " runs of " + std::to_string(benchmarks.size()) +
                                     " benchmark(s) on " + std::to_string(platforms.size()) + " platform(s), from " +
                                     std::to_string(collected.logs_found) + " result logs under: " + join(inputs, ", ") +
                                     ". " + std::to_string(skipped) + " input(s) skipped (see Skipped inputs)."});
  bool derived = false, withheld = false;
  for (const GroupSummary& g : tables.groups) {
    derived = derived || g.throughput_derived;
    withheld = withheld || g.throughput_withheld;
  }
  Bullets method;
  method.items = {
      "Time to train = run_stop − run_start, in minutes (initialisation is not timed; evaluation is).",
      "Olympic mean (MLPerf score): the runs' times sorted, the fastest and the slowest dropped, the rest averaged. "
      "A run that did not converge counts as the dropped slowest; with fewer than 3 runs, or more than one that did "
      "not converge, it is invalid and the reason is shown.",
      "Epochs to converge: the epoch of the eval that reached the target, per seed; mean ± sample standard deviation "
      "over the converged runs.",
      "Throughput (train samples/s): our runs' RunResult value (steady state, total samples over total training time). "
      "Published logs carry none: it is derived as train_samples × epochs run ÷ (run_stop − run_start), so it includes "
      "evaluation time and reads lower than a pure training rate (marked †); blank when the log has no train_samples.",
      "Devices: from the submission's systems JSON (accelerators per node × nodes), our RunResult's device count, "
      "the v0.6 log's submission_entry, or the leading \"Nx\" of the platform label. They are GPUs, CPU ranks (our "
      "CPU runs count processes, not cores) or accelerators (a published system whose accelerator model names no "
      "GPU), by our RunResult's device, else the accelerator model's or the platform's name.",
      "Scaling efficiency: throughput per device ÷ throughput per device of the same platform and benchmark at its "
      "smallest device count (100% = linear).",
  };
  if (tables.any_energy)
    method.items.push_back("Energy (runs whose RunResult has it: GPU energy read from NVML over the timed run): energy per "
                           "run, mean power and samples per joule (train samples/s per watt, perf per watt), each the "
                           "mean over the group's runs that have it; blank where no run of the group has it.");
  if (tables.any_price)
    method.items.push_back("Cost (prices given with --price or --prices): a price with a count (8xTesla-V100) is the "
                           "hourly price of that whole system, one without a count (Tesla-V100) the price per device-hour "
                           "× the run's device count. Cost to train = hourly price × time to train; the group's is the "
                           "hourly price × its olympic-mean time, so cost and time agree. Samples per dollar = train "
                           "samples/s × 3600 ÷ hourly price. — marks a platform and device count without a price.");
  if (tables.any_energy_cost)
    method.items.push_back("Energy cost = energy per run (J) ÷ 3.6 × 10⁶ × the price of a kWh (--usd-per-kwh), the mean "
                           "over the group's runs that measured energy.");
  if (derived) method.items.push_back("† in this report: throughput derived from the log, including evaluation time.");
  if (withheld)
    method.items.push_back("‡ in this report: some logs' train_samples is not one epoch of their benchmark (more than " +
                           fixed(kEpochSamplesTolerance * 100, 0) +
                           "% off its training-set size), so no throughput is derived from them (see the warnings "
                           "under Skipped inputs).");
  section.blocks.push_back(method);
  section.blocks.push_back(Paragraph{"The tables are also in runs.csv (one row per run), summary.csv (one row per "
                                     "benchmark × platform × device count) and comparison.csv, for pandas."});
  return section;
}

// The members of a group's quality of several numbers with their targets (BBOX 0.377, SEGM 0.339), each
// as its first run names it; empty when every run's quality is one number.
std::vector<MemberTarget> group_members(const GroupSummary& g, const std::vector<RunRow>& runs) {
  std::vector<MemberTarget> members;
  for (size_t i : g.run_indices)
    for (const MemberTarget& member : runs[i].quality_members)
      if (std::none_of(members.begin(), members.end(), [&](const MemberTarget& m) { return m.name == member.name; }))
        members.push_back(member);
  return members;
}

// "BBOX 0.3793, SEGM 0.3301" (— for a member the eval lacks).
std::string members_cell(const RunRow& run, const QualityPoint& point) {
  std::vector<std::string> parts;
  for (size_t m = 0; m < run.quality_members.size(); ++m) {
    const bool has = m < point.members.size() && point.members[m];
    parts.push_back(run.quality_members[m].name + " " + (has ? fixed(*point.members[m], 4) : "—"));
  }
  return join(parts, ", ");
}

// "BBOX ≥ 0.377 ✓, SEGM ≥ 0.339 ✗": each member's target and whether the eval reached it.
std::string targets_cell(const RunRow& run, const QualityPoint& point) {
  std::vector<std::string> parts;
  for (size_t m = 0; m < run.quality_members.size(); ++m) {
    const MemberTarget& member = run.quality_members[m];
    const bool reached = m < point.members.size() && point.members[m] && reaches_target(*point.members[m], member.value);
    parts.push_back(member.name + " ≥ " + shortest(member.value) + (reached ? " ✓" : " ✗"));
  }
  return join(parts, ", ");
}

// Runs whose quality is several numbers (Mask R-CNN's box and mask AP): each run's last eval against
// every member's target, and every eval, member by member. Nothing for runs of one number.
void add_member_quality_tables(DocSection& section, const CollectedRuns& collected, const ReportTables& tables) {
  std::vector<std::string> names;  // every member, by first appearance: the per-epoch table's columns
  for (const GroupSummary& g : tables.groups)
    for (const MemberTarget& member : group_members(g, collected.runs))
      if (std::find(names.begin(), names.end(), member.name) == names.end()) names.push_back(member.name);
  if (names.empty()) return;
  DocTable last;
  last.header = {"Benchmark", "Platform", "Devices", "Run", "Last eval (epoch)", "Quality", "Targets", "Converged"};
  last.numeric = {false, false, true, false, true, false, false, false};
  DocTable per_epoch;
  per_epoch.header = {"Benchmark", "Platform", "Devices", "Run", "Epoch"};
  per_epoch.numeric = {false, false, true, false, true};
  for (const std::string& name : names) {
    per_epoch.header.push_back(name);
    per_epoch.numeric.push_back(true);
  }
  for (const GroupSummary& g : tables.groups) {
    for (size_t i : g.run_indices) {
      const RunRow& run = collected.runs[i];
      if (run.quality_members.empty()) continue;
      const std::vector<std::string> where = {g.benchmark, g.platform, count_label(g.device_count, g.device_kind), run.seed_label()};
      std::vector<std::string> row = where;
      if (run.evals.empty()) row.insert(row.end(), {"", "no eval", "", run.converged ? "yes" : "no"});
      else row.insert(row.end(), {shortest(run.evals.back().epoch), members_cell(run, run.evals.back()),
                                  targets_cell(run, run.evals.back()), run.converged ? "yes" : "no"});
      last.rows.push_back(row);
      for (const QualityPoint& point : run.evals) {
        std::vector<std::string> cells = where;
        cells.push_back(shortest(point.epoch));
        for (const std::string& name : names) {
          const auto member = std::find_if(run.quality_members.begin(), run.quality_members.end(),
                                           [&](const MemberTarget& m) { return m.name == name; });
          const size_t m = static_cast<size_t>(member - run.quality_members.begin());
          cells.push_back(m < point.members.size() && point.members[m] ? fixed(*point.members[m], 4) : "");
        }
        per_epoch.rows.push_back(cells);
      }
    }
  }
  section.blocks.push_back(Paragraph{"Quality of several numbers (" + join(names, ", ") +
                                     "): a run reached its target only when every member reached its own. Last eval of "
                                     "each run:"});
  section.blocks.push_back(last);
  section.blocks.push_back(Paragraph{"Every eval, member by member:"});
  section.blocks.push_back(per_epoch);
}

DocSection summary_section(const CollectedRuns& collected, const ReportTables& tables) {
  DocSection section{"Summary by benchmark, platform and device count", 2, {}};
  add_price_paragraphs(section, tables, true);
  DocTable table;
  table.header = {"Benchmark", "Platform", "Devices", "Device", "Global batch", "Runs", "Converged",
                  "Epochs to converge (mean ± sd)", "Olympic mean time to train (min)", "Throughput (samples/s)",
                  "Per device (samples/s)", "Scaling efficiency"};
  table.numeric = {false, false, true, false, true, true, true, true, true, true, true, true};
  const bool kilojoules = energy_in_kilojoules(tables);
  if (tables.any_energy) {
    table.header.insert(table.header.end(), {kilojoules ? "Energy per run (kJ)" : "Energy per run (J)", "Mean power (W)",
                                             "Samples per joule"});
    table.numeric.insert(table.numeric.end(), {true, true, true});
  }
  if (tables.any_price) {
    table.header.insert(table.header.end(), {"Price ($/h)", "Cost to train ($)", "Samples per dollar"});
    table.numeric.insert(table.numeric.end(), {true, true, true});
  }
  if (tables.any_energy_cost) {
    table.header.push_back("Energy cost per run ($)");
    table.numeric.push_back(true);
  }
  for (const GroupSummary& g : tables.groups) {
    std::vector<std::string> batches;
    for (int64_t b : g.global_batch_sizes) batches.push_back(std::to_string(b));
    const std::string marks = std::string(g.throughput_derived ? "\u00a0†" : "") + (g.throughput_withheld ? "\u00a0‡" : "");
    const auto throughput_cell = [&](const std::optional<double>& value) {
      if (!value) return g.throughput_withheld ? std::string("‡") : std::string();
      return rate(value) + marks;
    };
    std::string scaling;
    if (g.scaling_efficiency)
      scaling = fixed(*g.scaling_efficiency * 100, 0) + "% (vs " + count_label(g.scaling_reference_devices, g.device_kind) + ")";
    std::vector<std::string> row = {g.benchmark, g.platform, count_label(g.device_count, g.device_kind), g.device_model,
                                    join(batches, ", "), std::to_string(g.run_indices.size()), std::to_string(g.converged_runs),
                                    epochs_cell(g), olympic_cell(g), throughput_cell(g.train_samples_per_second),
                                    throughput_cell(g.train_samples_per_second_per_device), scaling};
    if (tables.any_energy) {
      std::optional<double> energy = g.energy_joules_mean;
      if (energy && kilojoules) *energy /= 1000;
      row.insert(row.end(), {readable(energy), readable(g.mean_power_watts), readable(g.samples_per_joule)});
    }
    if (tables.any_price) {
      const std::string mark = g.cost_usd && !g.olympic_mean_minutes ? " *" : "";
      row.insert(row.end(), {money(g.usd_per_hour), money(g.cost_usd) + mark,
                             g.samples_per_usd ? readable(g.samples_per_usd) : "—"});
    }
    if (tables.any_energy_cost) row.push_back(g.energy_cost_usd ? money(g.energy_cost_usd) : "");
    table.rows.push_back(row);
  }
  section.blocks.push_back(table);

  DocTable seeds;
  seeds.header = {"Benchmark", "Platform", "Devices", "Epochs to converge per seed"};
  seeds.numeric = {false, false, true, false};
  for (const GroupSummary& g : tables.groups)
    seeds.rows.push_back({g.benchmark, g.platform, count_label(g.device_count, g.device_kind), per_seed_epochs(g, collected.runs)});
  section.blocks.push_back(Paragraph{"Epochs to converge, seed by seed:"});
  section.blocks.push_back(seeds);
  add_member_quality_tables(section, collected, tables);
  return section;
}

DocSection comparison_section(const ReportTables& tables) {
  DocSection section{"Platforms against the baseline", 2, {}};
  Bullets choices;
  for (const BaselineChoice& choice : tables.baselines)
    choices.items.push_back(choice.benchmark + ": baseline " +
                            (choice.device_count > 0 ? std::to_string(choice.device_count) + "x" : "") + choice.platform +
                            (choice.chosen_by_user ? " (given with --baseline)"
                                                   : " (the slowest: the longest time to train at its smallest device count)"));
  for (const std::string& note : tables.notes) choices.items.push_back(note);
  if (!choices.items.empty()) section.blocks.push_back(choices);
  if (tables.comparisons.empty()) {
    section.blocks.push_back(Paragraph{"No benchmark ran on two platforms or two device counts: nothing to compare."});
    return section;
  }
  section.blocks.push_back(Paragraph{
      "Speedup = baseline time to train ÷ this platform's (above 1: faster than the baseline); throughput ratios = this "
      "platform ÷ baseline. Each row is compared with the baseline at the device count --baseline names, else at the same "
      "count or the nearest it has; the baseline platform's other counts with its smallest (or named) count. "
      "Times are olympic means; * marks a mean of the converged runs where an olympic mean is invalid." +
      std::string(tables.any_price ? " Cost ratio = this platform's cost to train ÷ the baseline's (below 1: cheaper)." : "")});
  if (tables.any_price) add_price_paragraphs(section, tables, false);
  DocTable table;
  table.header = {"Benchmark", "Platform", "Devices", "Baseline", "Baseline devices", "Time to train (min)",
                  "Baseline time (min)", "Speedup", "Throughput ratio", "Per-device throughput ratio"};
  table.numeric = {false, false, true, false, true, true, true, true, true, true};
  if (tables.any_price) {
    table.header.insert(table.header.end(), {"Cost to train ($)", "Baseline cost ($)", "Cost ratio"});
    table.numeric.insert(table.numeric.end(), {true, true, true});
  }
  for (const ComparisonRow& row : tables.comparisons) {
    const std::string mark = row.minutes_are_olympic ? "" : " *";
    std::vector<std::string> cells = {
        row.benchmark, row.platform, count_label(row.device_count, row.device_kind), row.baseline_platform,
        count_label(row.baseline_device_count, row.baseline_device_kind),
        row.minutes ? fixed(*row.minutes, 3) + mark : "", row.baseline_minutes ? fixed(*row.baseline_minutes, 3) + mark : "",
        times(row.speedup), times(row.throughput_ratio), times(row.throughput_per_device_ratio)};
    if (tables.any_price)
      cells.insert(cells.end(), {row.cost_usd ? money(row.cost_usd) + mark : "—",
                                 row.baseline_cost_usd ? money(row.baseline_cost_usd) + mark : "—",
                                 row.cost_ratio ? times(row.cost_ratio) : "—"});
    table.rows.push_back(cells);
  }
  section.blocks.push_back(table);
  return section;
}

// Per benchmark: a bar per platform (series) and device count (category).
BarChart per_benchmark_bars(const std::vector<const GroupSummary*>& groups) {
  const std::optional<DeviceKind> kind = common_kind(groups);
  std::vector<int> counts;  // ascending, unknown (0) last
  std::vector<std::string> platforms;
  for (const GroupSummary* g : groups) {
    if (std::find(counts.begin(), counts.end(), g->device_count) == counts.end()) counts.push_back(g->device_count);
    if (std::find(platforms.begin(), platforms.end(), g->platform) == platforms.end()) platforms.push_back(g->platform);
  }
  std::sort(counts.begin(), counts.end(), [](int a, int b) { return (a <= 0) != (b <= 0) ? b <= 0 : a < b; });
  BarChart chart;
  for (int count : counts) chart.categories.push_back(count_label(count, kind));
  for (const std::string& platform : platforms) chart.series.push_back({platform, std::vector<std::optional<double>>(counts.size())});
  chart.x_label = count_noun(kind);
  return chart;
}

size_t index_of(const std::vector<std::string>& values, const std::string& value) {
  return static_cast<size_t>(std::find(values.begin(), values.end(), value) - values.begin());
}

void add_benchmark_charts(DocSection& section, const std::string& benchmark, const std::vector<const GroupSummary*>& groups) {
  BarChart time = per_benchmark_bars(groups);
  BarChart throughput = per_benchmark_bars(groups);
  BarChart per_joule = per_benchmark_bars(groups);
  BarChart cost = per_benchmark_bars(groups);
  const std::optional<DeviceKind> kind = common_kind(groups);
  std::vector<std::string> platforms;
  for (const BarSeries& s : time.series) platforms.push_back(s.name);
  std::vector<std::string> fallbacks, untimed, unmeasured, withheld, no_energy, unpriced, cost_fallbacks;
  bool derived = false, any_throughput = false, any_energy = false, any_cost = false;
  for (const GroupSummary* g : groups) {
    const std::string label = count_label(g->device_count, kind);
    const std::string name = g->platform + " " + label;
    const size_t s = index_of(platforms, g->platform);
    const size_t c = index_of(time.categories, label);
    time.series[s].values[c] = g->compared_minutes();
    if (!g->olympic_mean_minutes && g->compared_minutes()) fallbacks.push_back(name);
    if (!g->compared_minutes()) untimed.push_back(name);
    throughput.series[s].values[c] = g->train_samples_per_second;
    if (!g->train_samples_per_second) (g->throughput_withheld ? withheld : unmeasured).push_back(name);
    derived = derived || g->throughput_derived;
    any_throughput = any_throughput || g->train_samples_per_second.has_value();
    per_joule.series[s].values[c] = g->samples_per_joule;
    if (!g->samples_per_joule) no_energy.push_back(name);
    any_energy = any_energy || g->samples_per_joule.has_value();
    cost.series[s].values[c] = g->cost_usd;
    if (!g->usd_per_hour) unpriced.push_back(name);
    else if (g->cost_usd && !g->olympic_mean_minutes) cost_fallbacks.push_back(name);
    any_cost = any_cost || g->cost_usd.has_value();
  }
  time.title = benchmark + ": time to train (olympic mean)";
  time.y_label = "minutes";
  if (!fallbacks.empty()) time.note = "Mean of the converged runs (olympic mean invalid): " + join(fallbacks, ", ") + ". ";
  if (!untimed.empty()) time.note += "No converged run: " + join(untimed, ", ") + ".";
  section.blocks.push_back(DocChart{file_stem("time_to_train", nullptr, benchmark), time.title, render_bar_chart(time)});
  if (any_throughput) {
    throughput.title = benchmark + ": training throughput";
    throughput.y_label = "train samples/s";
    if (derived) throughput.note = "Published logs: train_samples × epochs ÷ (run_stop − run_start), eval time included. ";
    if (!unmeasured.empty()) throughput.note += "No throughput: " + join(unmeasured, ", ") + ". ";
    if (!withheld.empty()) throughput.note += "train_samples is not one epoch: " + join(withheld, ", ") + ".";
    section.blocks.push_back(DocChart{file_stem("throughput", nullptr, benchmark), throughput.title, render_bar_chart(throughput)});
  }
  if (any_cost) {
    cost.title = benchmark + ": cost to train (olympic mean)";
    cost.y_label = "US dollars";
    if (!cost_fallbacks.empty()) cost.note = "Mean of the converged runs (olympic mean invalid): " + join(cost_fallbacks, ", ") + ". ";
    if (!unpriced.empty()) cost.note += "No price: " + join(unpriced, ", ") + ".";
    section.blocks.push_back(DocChart{file_stem("cost_to_train", nullptr, benchmark), cost.title, render_bar_chart(cost)});
  }
  if (!any_energy) return;
  per_joule.title = benchmark + ": samples per joule (perf per watt)";
  per_joule.y_label = "train samples/J";
  if (!no_energy.empty()) per_joule.note = "No energy measurement: " + join(no_energy, ", ") + ".";
  section.blocks.push_back(DocChart{file_stem("samples_per_joule", nullptr, benchmark), per_joule.title, render_bar_chart(per_joule)});
}

DocChart epochs_chart(const GroupSummary& g, const std::vector<RunRow>& runs) {
  BarChart chart;
  chart.title = group_name(g) + ": epochs to converge per seed";
  chart.y_label = "epochs";
  chart.missing_label = "✗";
  BarSeries series{"epochs to converge", {}};
  bool failures = false, seeds = false;
  for (size_t i : g.run_indices) {
    const RunRow& run = runs[i];
    chart.categories.push_back(run.seed ? std::to_string(*run.seed) : "run " + std::to_string(run.result_index));
    series.values.push_back(run.converged ? run.epochs_to_converge : std::nullopt);
    failures = failures || !run.converged;
    seeds = seeds || run.seed.has_value();
  }
  chart.x_label = seeds ? "seed" : "run (result_<i>.txt; the logs name no seed)";
  chart.series.push_back(series);
  if (failures) chart.note = "✗: the run did not converge";
  return DocChart{file_stem("epochs", &g, g.benchmark), chart.title, render_bar_chart(chart)};
}

std::optional<DocChart> quality_chart(const GroupSummary& g, const std::vector<RunRow>& runs) {
  LineChart chart;
  chart.title = group_name(g) + ": eval quality per epoch";
  chart.x_label = "epoch";
  if (const std::vector<MemberTarget> members = group_members(g, runs); !members.empty()) {
    // A quality of several numbers: a line per run and member, a target line per member.
    for (size_t i : g.run_indices) {
      const RunRow& run = runs[i];
      for (size_t m = 0; m < run.quality_members.size(); ++m) {
        LineSeries series{run.seed_label() + " " + run.quality_members[m].name, {}};
        for (const QualityPoint& p : run.evals)
          if (m < p.members.size() && p.members[m]) series.points.push_back({p.epoch, *p.members[m]});
        if (!series.points.empty()) chart.series.push_back(series);
      }
    }
    if (chart.series.empty()) return std::nullopt;
    std::vector<std::string> names;
    for (const MemberTarget& member : members) {
      names.push_back(member.name);
      chart.targets.push_back({member.value, member.name + " target " + shortest(member.value)});
    }
    chart.y_label = join(names, ", ");
    chart.note = "The run reached its target only when every member reached its own.";
    return DocChart{file_stem("quality", &g, g.benchmark), chart.title, render_line_chart(chart)};
  }
  std::optional<double> target;
  std::set<std::string> names;
  for (size_t i : g.run_indices) {
    const RunRow& run = runs[i];
    if (run.evals.empty()) continue;
    LineSeries series{run.seed_label(), {}};
    for (const QualityPoint& p : run.evals) series.points.push_back({p.epoch, p.value});
    chart.series.push_back(series);
    names.insert(run.quality_name);
    if (!target && run.quality_target) target = run.quality_target;
  }
  if (chart.series.empty()) return std::nullopt;
  bool target_from_rules = false;
  if (!target) {
    target = mlperf_quality_target(g.benchmark);
    target_from_rules = target.has_value();
    // v0.6 logs give BLEU in points (24.5), later rounds as a fraction (0.245).
    bool points = true;
    for (const LineSeries& series : chart.series)
      for (const LinePoint& p : series.points) points = points && p.y > 1;
    if (target && points && *target < 1) *target *= 100;
  }
  chart.y_label = join(std::vector<std::string>(names.begin(), names.end()), ", ");
  if (target) chart.targets.push_back({*target, "target " + shortest(*target)});
  else chart.note = "The logs name no target, and MLPerf has none on record for this benchmark.";
  if (target && target_from_rules) chart.note = "Target: MLPerf's quality target for " + g.benchmark + " (the logs name none).";
  return DocChart{file_stem("quality", &g, g.benchmark), chart.title, render_line_chart(chart)};
}

DocSection charts_section(const CollectedRuns& collected, const ReportTables& tables) {
  DocSection section{"Charts", 2, {}};
  std::map<std::string, std::vector<const GroupSummary*>> by_benchmark;
  for (const GroupSummary& g : tables.groups) by_benchmark[g.benchmark].push_back(&g);
  for (const auto& [benchmark, groups] : by_benchmark) add_benchmark_charts(section, benchmark, groups);

  size_t drawn = 0;
  for (const GroupSummary& g : tables.groups) {
    if (g.converged_runs == 0 || drawn == kMaxChartsPerKind) continue;
    section.blocks.push_back(epochs_chart(g, collected.runs));
    ++drawn;
  }
  size_t quality_drawn = 0, quality_wanted = 0;
  for (const GroupSummary& g : tables.groups) {
    if (quality_drawn == kMaxChartsPerKind) {
      ++quality_wanted;
      continue;
    }
    if (auto chart = quality_chart(g, collected.runs)) {
      section.blocks.push_back(*chart);
      ++quality_drawn;
      ++quality_wanted;
    }
  }
  size_t epochs_wanted = 0;
  for (const GroupSummary& g : tables.groups) epochs_wanted += g.converged_runs > 0 ? 1 : 0;
  if (epochs_wanted > drawn || quality_wanted > quality_drawn)
    section.blocks.push_back(Paragraph{"Charts per group are capped at " + std::to_string(kMaxChartsPerKind) +
                                       " of each kind; the rest are in the CSV files."});
  return section;
}

DocSection issues_section(const CollectedRuns& collected) {
  DocSection section{"Skipped inputs", 2, {}};
  Bullets skipped, warnings;
  for (const InputIssue& issue : collected.issues)
    (issue.skipped ? skipped : warnings).items.push_back(issue.path + ": " + issue.reason);
  if (skipped.items.empty()) section.blocks.push_back(Paragraph{"None: every log found was used."});
  else section.blocks.push_back(skipped);
  if (!warnings.items.empty()) {
    section.blocks.push_back(Paragraph{"Used, with a warning:"});
    section.blocks.push_back(warnings);
  }
  return section;
}

}  // namespace


ReportDocument build_report_document(const CollectedRuns& collected, const ReportTables& tables,
                                     const std::vector<std::string>& inputs) {
  ReportDocument document;
  document.title = "mlharness report: time to train, throughput and seeds across platforms";
  document.sections.push_back(introduction(collected, tables, inputs));
  document.sections.push_back(summary_section(collected, tables));
  document.sections.push_back(comparison_section(tables));
  document.sections.push_back(charts_section(collected, tables));
  document.sections.push_back(issues_section(collected));
  return document;
}

}  // namespace mlh::report
