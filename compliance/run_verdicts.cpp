#include "compliance/run_verdicts.h"

#include "base/user_error.h"
#include "compliance/checker.h"

namespace mlh {

std::string RunVerdict::label() const {
  switch (outcome) {
    case Outcome::kPassed: return "pass";
    case Outcome::kFailed: return "FAIL";
    case Outcome::kNotChecked: return "not checked";
  }
  return "";
}

bool failure_counts_against(const RunSummary& run, ComplianceMode mode) {
  return mode == ComplianceMode::kStrict || (mode == ComplianceMode::kOwnRunsStrict && run.written_by_mlharness);
}

std::map<std::string, RunVerdict> check_runs(const std::vector<RunSummary>& runs, ComplianceMode mode) {
  std::map<std::string, RunVerdict> verdicts;
  if (mode == ComplianceMode::kOff) return verdicts;
  for (const RunSummary& run : runs) {
    if (!run.usable()) continue;  // scoring already names its problems
    RunVerdict verdict;
    try {
      const CheckResult check = check_log(read_log_file(run.path));
      verdict.ruleset = check.ruleset;
      for (const RuleFailure& failure : check.failures) verdict.failures.push_back(failure.to_string());
      for (const std::string& reason : check.not_checked)
        verdict.not_checked += (verdict.not_checked.empty() ? "" : "; ") + reason;
      if (!verdict.failures.empty()) verdict.outcome = RunVerdict::Outcome::kFailed;
      else if (verdict.not_checked.empty() && check.passed) verdict.outcome = RunVerdict::Outcome::kPassed;
    } catch (const UserError& e) {
      verdict.not_checked = e.what();
    }
    verdict.counts_against_run = verdict.outcome == RunVerdict::Outcome::kFailed && failure_counts_against(run, mode);
    verdicts[run.path] = std::move(verdict);
  }
  return verdicts;
}

std::map<std::string, std::string> rejected_runs(const std::map<std::string, RunVerdict>& verdicts) {
  std::map<std::string, std::string> rejected;
  for (const auto& [path, verdict] : verdicts)
    if (verdict.counts_against_run)
      rejected[path] = "fails the " + verdict.ruleset + " compliance rules: " + verdict.failures.front();
  return rejected;
}

}  // namespace mlh
