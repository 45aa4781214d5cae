#include "compliance/score.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "compliance/olympic_mean.h"

namespace mlh {
namespace {

// Runs per benchmark: MLPerf training rules v0.5-v0.7 and mlperf_logging's benchmark_meta.py
// (_ALL_RESULT_FILE_COUNTS); NCF from the v0.5 rules (spec/mlperf-logging.md §7).
const std::map<std::string, ScoringRule>& scoring_rules() {
  static const std::map<std::string, ScoringRule> rules = {
      {"resnet", {5, 5, 1, false}},
      {"ssd", {5, 5, 1, false}},
      {"maskrcnn", {5, 5, 1, false}},
      {"gnmt", {10, 10, 1, false}},
      {"transformer", {10, 10, 1, false}},
      {"ncf", {100, 50, 50, true}},
  };
  return rules;
}

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

bool start_order(const RunSummary& a, const RunSummary& b) {
  if (a.run_start_ms.has_value() != b.run_start_ms.has_value()) return a.run_start_ms.has_value();
  if (a.run_start_ms && *a.run_start_ms != *b.run_start_ms) return *a.run_start_ms < *b.run_start_ms;
  return a.path < b.path;
}

std::string run_count_problem(const ScoringRule& rule, size_t runs, const std::string& benchmark) {
  const std::string needed = "an MLPerf " + benchmark + " score takes exactly " + std::to_string(rule.required_runs) + " runs";
  if (runs < static_cast<size_t>(rule.required_runs))
    return "too few runs: " + std::to_string(runs) + "; " + needed;
  if (runs > static_cast<size_t>(rule.required_runs))
    return "too many runs: " + std::to_string(runs) + "; " + needed + " (the official tools score every result file in the folder and the package checker rejects the count)";
  return "";
}

void warn_about_seeds(const std::vector<SeedRow>& rows, std::vector<std::string>& warnings) {
  std::map<int64_t, std::vector<std::string>> paths_by_seed;
  for (const SeedRow& row : rows)
    if (row.seed) paths_by_seed[*row.seed].push_back(row.path);
  for (const auto& [seed, paths] : paths_by_seed) {
    if (paths.size() < 2) continue;
    std::string list;
    for (const std::string& path : paths) list += (list.empty() ? "" : ", ") + path;
    warnings.push_back("seed " + std::to_string(seed) + " is used by " + std::to_string(paths.size()) +
                       " runs (" + list + "); every run needs a fresh seed");
  }
}

void warn_about_batch_sizes(const std::vector<SeedRow>& rows, std::vector<std::string>& warnings) {
  std::set<int64_t> sizes;
  for (const SeedRow& row : rows)
    if (row.global_batch_size) sizes.insert(*row.global_batch_size);
  if (sizes.size() < 2) return;
  std::string list;
  for (int64_t size : sizes) list += (list.empty() ? "" : ", ") + std::to_string(size);
  warnings.push_back("the runs use different global batch sizes (" + list + ")");
}

}  // namespace

std::optional<ScoringRule> scoring_rule(const std::string& benchmark) {
  const auto found = scoring_rules().find(benchmark);
  if (found == scoring_rules().end()) return std::nullopt;
  return found->second;
}

std::string failure_reason(const RunSummary& run) {
  if (!run.problems.empty()) return run.problems.front();
  if (run.resumed)
    return resumed_run_reason({run.resumed_from_epoch, run.resumed_from_checkpoint, run.resumed_from_log});
  if (run.converged) return "";
  if (!run.status.empty() && run.status != "success") return "run_stop status '" + run.status + "'";
  if (run.evals.empty()) return "no eval_accuracy before run_stop";
  const nlohmann::json& last = run.evals.back().value;
  if (const std::string below = members_below_target(last, run.member_targets);
      (last.is_object() || last.is_array()) && !run.member_targets.empty() && !below.empty()) {
    const std::string missed = "last eval_accuracy misses its target (every member must reach its own): " + below;
    return run.status.empty() ? "run_stop gives no verdict and the " + missed : missed;
  }
  if (run.target && last.is_number()) {
    const std::string below = "last eval_accuracy " + format_number(last.get<double>()) +
                              " is below the target " + format_number(*run.target);
    return run.status.empty() ? "run_stop gives no verdict and the " + below : below;
  }
  if (run.status.empty()) return "run_stop gives no verdict and the log names no eval_target to judge by";
  return "did not reach its target";
}

std::vector<std::optional<double>> BenchmarkScore::scored_epochs() const {
  std::vector<std::optional<double>> epochs;
  for (const SeedRow& row : runs)
    if (row.scored) epochs.push_back(row.converged ? row.epochs_to_converge : std::nullopt);
  return epochs;
}

BenchmarkScore score_benchmark(const std::string& benchmark, const std::vector<RunSummary>& runs,
                               const std::map<std::string, std::string>& rejected) {
  BenchmarkScore score;
  score.benchmark = benchmark;
  score.rule = scoring_rule(benchmark);

  std::vector<RunSummary> ordered = runs;
  std::stable_sort(ordered.begin(), ordered.end(), start_order);
  for (const RunSummary& run : ordered) {
    SeedRow row;
    row.path = run.path;
    row.seed = run.seed;
    row.global_batch_size = run.global_batch_size;
    row.time_to_train_minutes = run.time_to_train_minutes();
    row.failure = failure_reason(run);
    const auto rejection = rejected.find(run.path);
    if (row.failure.empty() && rejection != rejected.end()) row.failure = rejection->second;
    row.converged = row.failure.empty();
    if (row.converged) row.epochs_to_converge = run.epochs_to_converge;
    if (!row.converged) ++score.not_converged;
    score.runs.push_back(std::move(row));
  }
  warn_about_seeds(score.runs, score.warnings);
  warn_about_batch_sizes(score.runs, score.warnings);

  if (benchmark.empty()) {
    score.invalid_reason = "the logs name no benchmark (no submission_benchmark)";
    return score;
  }
  if (!score.rule) {
    score.invalid_reason = "no MLPerf scoring rule for benchmark '" + benchmark +
                           "' (known: resnet, ssd, maskrcnn, gnmt, transformer, ncf)";
    return score;
  }
  const ScoringRule& rule = *score.rule;

  // The runs that enter the olympic mean, as times (nullopt: did not converge).
  std::vector<std::optional<double>> times;
  for (SeedRow& row : score.runs) {
    if (rule.first_converged_by_start && (!row.converged || static_cast<int>(times.size()) == rule.scored_runs)) continue;
    row.scored = true;
    times.push_back(row.converged ? row.time_to_train_minutes : std::nullopt);
  }
  const std::optional<double> olympic = olympic_mean(times);

  std::vector<std::string> problems;
  if (score.not_converged > rule.max_not_converged)
    problems.push_back(std::to_string(score.not_converged) + " of " + std::to_string(score.runs.size()) +
                       " runs did not converge; at most " + std::to_string(rule.max_not_converged) + " may");
  else if (rule.first_converged_by_start && static_cast<int>(times.size()) < rule.scored_runs)
    problems.push_back("converged runs: " + std::to_string(times.size()) + "; the score takes the first " +
                       std::to_string(rule.scored_runs) + " that converge");
  const std::string count_problem = run_count_problem(rule, score.runs.size(), benchmark);
  if (!count_problem.empty()) problems.push_back(count_problem);

  for (const std::string& problem : problems)
    score.invalid_reason += (score.invalid_reason.empty() ? "" : "; ") + problem;
  if (problems.empty()) score.score_minutes = olympic;
  else if (!count_problem.empty()) score.runs_present_olympic_minutes = olympic;
  if (score.score_minutes && score.not_converged > 0 && !rule.first_converged_by_start)
    score.warnings.push_back(std::to_string(score.not_converged) +
                             " run did not converge: it counts as the dropped slowest run");
  return score;
}

}  // namespace mlh
