// Compliance as a verdict beside a run's time (issue 20): what today's rules say about each log, and
// which runs that verdict removes from a score.
//
// A published log of a past round is read as MLPerf published it: its time stands, and the rules of
// today it fails are listed beside it. A run mlharness wrote (mlharness_* keys) is the user's own
// submission, judged as MLPerf judges one today: a failed rule counts the run as not converged, as the
// official summarizer drops such a file. --strict judges every log that way. Rules a ruleset does not
// have for a benchmark (no v0.5 rules for gnmt) leave the log "not checked", never failed.
//
// `score` and `report` both take their rejections from here, so they give the same time for the same
// runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compliance/run_summary.h"

namespace mlh {

enum class ComplianceMode {
  kOwnRunsStrict,  // the default: failed rules count against mlharness's own runs only
  kStrict,         // failed rules count against every run (--strict)
  kOff,            // no check (--no-check)
};

struct RunVerdict {
  enum class Outcome { kPassed, kFailed, kNotChecked };
  Outcome outcome = Outcome::kNotChecked;
  std::string ruleset;                // "0.6.0"
  std::vector<std::string> failures;  // RuleFailure::to_string of each failed rule
  // Why (part of) the log was not checked ("" when all of it was): without failures the outcome is then
  // kNotChecked, not kPassed.
  std::string not_checked;
  bool counts_against_run = false;    // the mode makes the failure count the run as not converged

  // "pass", "FAIL", "not checked": the per-run column.
  std::string label() const;
};

// Whether a failed rule would count `run` as not converged under `mode`: mlharness's own runs by
// default, every run under kStrict, none under kOff. A caller that needs only the rejections (report)
// checks only these runs.
bool failure_counts_against(const RunSummary& run, ComplianceMode mode);

// The verdict on each usable run (unusable ones are left out: their problems already fail them).
// kOff gives an empty map.
std::map<std::string, RunVerdict> check_runs(const std::vector<RunSummary>& runs, ComplianceMode mode);

// The runs a verdict counts as not converged, path -> "fails the 0.6.0 compliance rules: line 3: ...",
// the `rejected` argument of score_benchmark.
std::map<std::string, std::string> rejected_runs(const std::map<std::string, RunVerdict>& verdicts);

}  // namespace mlh
