// `mlharness score DIR... [--rcp] [--benchmark NAME]`: the MLPerf score of every (system, benchmark)
// found under the folders, the per-seed table behind it, and with --rcp the reference convergence
// point test. Logs it cannot use are named in the output, never fatal; a folder that does not exist
// or holds no log is a user error (exit 2).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <boost/program_options.hpp>

#include "compliance/benchmark_names.h"
#include "compliance/rcp.h"
#include "compliance/result_groups.h"
#include "compliance/run_verdicts.h"
#include "compliance/score.h"
#include "base/user_error.h"
#include "launch/analysis_commands.h"
#include "report/report_data.h"

namespace po = boost::program_options;

namespace mlh {
namespace {

const char* kScoreUsage = R"(usage: mlharness score DIR... [--rcp] [--benchmark NAME] [--strict | --no-check]

Finds every result_*.txt under the folders (MLPerf layout <system>/<benchmark>/result_<i>.txt, or any
nesting), groups the logs by system folder and benchmark, and prints per group the MLPerf score
(olympic mean of the run times in minutes; resnet, ssd, maskrcnn: 5 runs, gnmt, transformer: 10,
ncf: 100 of which the first 50 converged count) or why it is invalid, and each run's seed,
convergence by its own log, epochs, minutes and compliance verdict.

A published log of a past round is read as MLPerf published it: its time counts, and the rules of
today's official checker it fails are listed beside it (rules a round did not have for a benchmark:
"not checked"). A run mlharness wrote is judged as MLPerf judges a submission today: a failed rule
counts it as not converged. --strict judges every log that way. Benchmarks MLPerf ran that are not
among the six (minigo, bert, dlrm) are listed as skipped, with the reason.

options:
)";

struct ScoreOptions {
  std::vector<std::string> folders;
  bool rcp = false;
  ComplianceMode compliance = ComplianceMode::kOwnRunsStrict;
  std::string benchmark;
};

std::optional<ScoreOptions> parse_options(const std::vector<std::string>& args) {
  po::options_description visible("");
  visible.add_options()
      ("rcp", "also test convergence against the reference convergence points (RCPs)")
      ("benchmark", po::value<std::string>(), "score only this benchmark (resnet, ssd, maskrcnn, gnmt, transformer, ncf)")
      ("strict", "a log that fails the compliance rules of its format's ruleset (mlharness check) counts as not "
                 "converged, as the official summarizer drops it today; by default only mlharness's own runs are "
                 "judged so, and published logs of past rounds keep their time beside the verdict")
      ("no-check", "score every run by its own log alone, without the compliance check")
      ("help,h", "this text");
  const po::variables_map vars = parse_with_positionals(args, visible, "folder");
  if (vars.count("help")) {
    std::cout << kScoreUsage << visible;
    return std::nullopt;
  }
  ScoreOptions options;
  if (vars.count("folder")) options.folders = vars["folder"].as<std::vector<std::string>>();
  if (options.folders.empty()) throw UserError("score needs at least one folder: mlharness score DIR... [--rcp]");
  options.rcp = vars.count("rcp") > 0;
  if (vars.count("strict") && vars.count("no-check")) throw UserError("score: --strict and --no-check exclude each other");
  if (vars.count("strict")) options.compliance = ComplianceMode::kStrict;
  if (vars.count("no-check")) options.compliance = ComplianceMode::kOff;
  if (vars.count("benchmark")) options.benchmark = vars["benchmark"].as<std::string>();
  return options;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string epochs_text(const std::optional<double>& epochs) {
  if (!epochs) return "-";
  return *epochs == static_cast<double>(static_cast<int64_t>(*epochs)) ? std::to_string(static_cast<int64_t>(*epochs))
                                                                       : fixed(*epochs, 2);
}

std::string log_name(const std::string& path, const std::string& system) {
  const std::filesystem::path relative = std::filesystem::path(path).lexically_relative(system);
  return relative.empty() ? path : relative.string();
}

std::string pad(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

void print_seed_table(const BenchmarkScore& score, const std::string& system,
                      const std::map<std::string, RunVerdict>& verdicts) {
  const bool checked = !verdicts.empty();
  std::cout << "  " << pad("seed", 12) << pad("converged", 11) << pad("epochs", 8) << pad("minutes", 10)
            << (checked ? pad("rules", 13) : "") << "log\n";
  for (const SeedRow& row : score.runs) {
    const auto verdict = verdicts.find(row.path);
    std::cout << "  " << pad(row.seed ? std::to_string(*row.seed) : "-", 12) << pad(row.converged ? "yes" : "no", 11)
              << pad(epochs_text(row.epochs_to_converge), 8)
              << pad(row.time_to_train_minutes ? fixed(*row.time_to_train_minutes, 3) : "-", 10)
              << (checked ? pad(verdict == verdicts.end() ? "-" : verdict->second.label(), 13) : "")
              << log_name(row.path, system);
    if (!row.converged) std::cout << "  (" << row.failure << ")";
    if (score.rule && score.rule->first_converged_by_start && row.converged && !row.scored)
      std::cout << "  (not scored: after the first " << score.rule->scored_runs << " converged runs)";
    std::cout << "\n";
  }
}

void print_score(const BenchmarkScore& score) {
  if (score.score_minutes) {
    const int scored = static_cast<int>(score.scored_epochs().size());
    std::cout << "  score: " << fixed(*score.score_minutes, 3) << " minutes (olympic mean: " << scored
              << " runs scored, the fastest and the slowest dropped)\n";
  } else {
    std::cout << "  score: invalid: " << score.invalid_reason << "\n";
  }
  if (score.runs_present_olympic_minutes)
    std::cout << "  olympic mean of the runs present: " << fixed(*score.runs_present_olympic_minutes, 3)
              << " minutes (not an MLPerf score)\n";
  for (const std::string& warning : score.warnings) std::cout << "  warning: " << warning << "\n";
}

void print_rcp_verdict(const ResultGroup& group, const BenchmarkScore& score) {
  std::set<int64_t> batch_sizes;
  for (const SeedRow& row : score.runs)
    if (row.scored && row.global_batch_size) batch_sizes.insert(*row.global_batch_size);
  const RcpSet* set = find_rcp_set(embedded_rcp_sets(), group.benchmark, group.effective_config);
  if (!set) {
    std::string sets_for_benchmark;
    for (const RcpSet& candidate : embedded_rcp_sets())
      if (candidate.benchmark == group.benchmark)
        sets_for_benchmark += (sets_for_benchmark.empty() ? "" : ", ") + candidate.name + " applies to " + candidate.applies_to.dump();
    std::cout << "  rcp: no RCP set applies to these runs ("
              << (sets_for_benchmark.empty() ? "none exists for benchmark '" + group.benchmark + "'" : sets_for_benchmark)
              << ")\n";
    return;
  }
  if (batch_sizes.size() != 1) {
    std::cout << "  rcp (" << set->name << "): cannot test: "
              << (batch_sizes.empty() ? "no global_batch_size in the logs" : "the runs use different global batch sizes")
              << "\n";
    return;
  }
  const int64_t batch_size = *batch_sizes.begin();
  const RcpVerdict verdict = check_convergence(*set, batch_size, score.scored_epochs());
  std::cout << "  rcp (" << set->name << ", global batch " << batch_size << "): " << to_string(verdict.outcome) << ": "
            << verdict.message << "\n";
  if (verdict.outcome == RcpOutcome::kPass && verdict.score_scale > 1.0)
    std::cout << "  rcp: faster than the RCP mean: the official checker scales the score by "
              << fixed(verdict.score_scale, 4) << "\n";
}

// One line on the group's compliance: how many logs fail which ruleset's rules, the first failure, and
// whether the failures count against the runs; the reason when logs were not checked.
void print_compliance(const std::map<std::string, RunVerdict>& verdicts) {
  int failed = 0, counted = 0, not_checked = 0;
  const RunVerdict* first_failed = nullptr;
  const RunVerdict* first_not_checked = nullptr;
  std::string ruleset;
  for (const auto& [path, verdict] : verdicts) {
    if (ruleset.empty()) ruleset = verdict.ruleset;
    if (verdict.outcome == RunVerdict::Outcome::kFailed && ++failed == 1) first_failed = &verdict;
    if (verdict.outcome == RunVerdict::Outcome::kNotChecked && ++not_checked == 1) first_not_checked = &verdict;
    if (verdict.counts_against_run) ++counted;
  }
  const std::string of_logs = " of " + std::to_string(verdicts.size()) + " logs";
  if (first_not_checked)
    std::cout << "  compliance: " << not_checked << of_logs << " not checked: " << first_not_checked->not_checked << "\n";
  if (!first_failed) {
    if (failed + not_checked == 0 && !verdicts.empty())
      std::cout << "  compliance: every log passes the " << ruleset << " rules\n";
    return;
  }
  std::cout << "  compliance: " << failed << of_logs << " fail the " << first_failed->ruleset
            << " rules (first: " << first_failed->failures.front() << ")";
  if (counted == failed) std::cout << "; they count as not converged";
  else if (counted > 0) std::cout << "; " << counted << " of them (mlharness's own runs) count as not converged";
  else std::cout << "; published logs keep their time (--strict counts them as not converged)";
  std::cout << "\n";
}

// The systems the runs name as `report` names them, with what the count counts ("8xNVIDIA DGX-1: 8 GPUs",
// "2xAMD-EPYC: 2 CPU ranks": the count from the submission's systems JSON, the RunResult, the v0.6
// submission_entry or the log's platform label), in run order; a bare folder name is left out (the
// system folder is printed already).
std::vector<std::string> platform_labels(const ResultGroup& group) {
  std::vector<std::string> labels;
  for (const RunSummary& run : group.runs) {
    const report::RunPlatform where = report::identify_run_platform(run);
    if (where.platform_source == "folder name" && where.device_count == 0) continue;
    const std::string label = where.label_with_kind();
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
  }
  return labels;
}

void print_group(const ResultGroup& group, const ScoreOptions& options) {
  std::cout << group.system << " / " << (group.benchmark.empty() ? "(no benchmark named)" : group.benchmark);
  if (const std::string skip = group.benchmark.empty() ? "" : skipped_benchmark_reason(group.benchmark); !skip.empty()) {
    std::cout << "\n  skipped: " << group.benchmark << ": " << skip << " (" << group.runs.size()
              << (group.runs.size() == 1 ? " log" : " logs") << ")\n\n";
    return;
  }
  const std::map<std::string, RunVerdict> verdicts = check_runs(group.runs, options.compliance);
  const BenchmarkScore score = score_benchmark(group.benchmark, group.runs, rejected_runs(verdicts));
  if (const std::vector<std::string> labels = platform_labels(group); !labels.empty()) {
    std::cout << "  (platform";
    for (size_t i = 0; i < labels.size(); ++i) std::cout << (i ? ", " : " ") << labels[i];
    std::cout << ")";
  }
  std::cout << "\n";
  print_score(score);
  print_compliance(verdicts);
  print_seed_table(score, group.system, verdicts);
  if (options.rcp) print_rcp_verdict(group, score);
  std::cout << "\n";
}

}  // namespace

int score_command(const std::vector<std::string>& args) {
  const std::optional<ScoreOptions> options = parse_options(args);
  if (!options) return 0;
  ResultScan scan;
  try {
    scan = scan_results(options->folders);
  } catch (const UserError& e) {
    throw UserError(std::string("score: ") + e.what());
  }
  for (const std::string& folder : options->folders) {
    if (scan.logs_per_folder[folder] > 0) continue;
    std::string detail;
    for (const SkippedFile& skipped : scan.skipped)
      if (detail.empty() && skipped.path.rfind(folder, 0) == 0) detail = " (" + skipped.path + ": " + skipped.reason + ")";
    throw UserError("score: no MLPerf result log (result_*.txt) under '" + folder + "'" + detail);
  }
  std::vector<const ResultGroup*> groups;
  for (const ResultGroup& group : scan.groups)
    if (options->benchmark.empty() || group.benchmark == options->benchmark) groups.push_back(&group);
  if (groups.empty()) throw UserError("score: no logs of benchmark '" + options->benchmark + "' under the folders given");

  for (const ResultGroup* group : groups) print_group(*group, *options);
  for (const std::string& note : scan.notes) std::cout << "note: " << note << "\n";
  for (const SkippedFile& skipped : scan.skipped) std::cout << "skipped " << skipped.path << ": " << skipped.reason << "\n";
  return 0;
}

}  // namespace mlh
