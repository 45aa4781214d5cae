// The MLPerf score of one benchmark on one system from its runs (spec/mlperf-logging.md §7), and the
// per-seed facts behind it.
//
// Per run: time to train = run_stop - run_start in minutes. Score = olympic mean of the required
// number of runs: drop the fastest and the slowest, average the rest; a run that did not converge
// (run_stop status not success, target not reached, or a log that cannot be used: no run_start, no
// run_stop, parse errors, a run resumed from a checkpoint, whose time covers only the resumed part,
// or a compliance failure the caller passes in) counts as the dropped slowest, also in the RCP test
// (scored_epochs), and more than one such run makes the score invalid. The run count must be the
// rule's: too few or too many (the official tools take exactly N files) make the score invalid;
// the olympic mean of the runs present is then still given, marked as not an MLPerf score.
// NCF (v0.5 rule): 100 runs; the first 50 that converge, by run_start, are scored: drop the best
// and the worst, mean of 48.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compliance/run_summary.h"

namespace mlh {

struct ScoringRule {
  int required_runs = 0;       // result files a submission has
  int scored_runs = 0;         // runs that enter the olympic mean (NCF: the first 50 converged)
  int max_not_converged = 0;   // runs that may fail before the score is invalid
  bool first_converged_by_start = false;  // NCF: score the first scored_runs converged runs
};
// The rule for an MLPerf benchmark name; nullopt for a benchmark MLPerf training never scored.
std::optional<ScoringRule> scoring_rule(const std::string& benchmark);

// One run as the per-seed table shows it.
struct SeedRow {
  std::string path;
  std::optional<int64_t> seed;
  bool converged = false;
  std::optional<double> epochs_to_converge;
  std::optional<double> time_to_train_minutes;
  std::optional<int64_t> global_batch_size;
  std::string failure;         // why it counts as not converged ("" when it converged)
  bool scored = false;         // entered the score's olympic mean (NCF: one of the first 50 converged)
};

struct BenchmarkScore {
  std::string benchmark;
  std::optional<ScoringRule> rule;
  std::vector<SeedRow> runs;   // by run_start; runs without one last, by path
  std::optional<double> score_minutes;   // the MLPerf score, nullopt when invalid
  std::string invalid_reason;            // why score_minutes is nullopt
  // The rule's olympic mean over the runs present when the run count is not the rule's (not an
  // MLPerf score); nullopt otherwise or when too many runs failed.
  std::optional<double> runs_present_olympic_minutes;
  std::vector<std::string> warnings;     // duplicate seeds, mixed batch sizes, dropped runs
  int not_converged = 0;
  // Epochs per scored run (nullopt: did not converge), the input of the RCP test.
  std::vector<std::optional<double>> scored_epochs() const;
};

// `runs` all of one benchmark (their own benchmark field is not consulted). `rejected` maps a run's
// path to a reason it must count as failed beyond its own log, e.g. a compliance-check failure.
BenchmarkScore score_benchmark(const std::string& benchmark, const std::vector<RunSummary>& runs,
                               const std::map<std::string, std::string>& rejected = {});

// Why a run counts as not converged ("resumed from a checkpoint after epoch 5 ...", "run_stop status
// 'aborted'", ...), "" when it converged.
std::string failure_reason(const RunSummary& run);

}  // namespace mlh
