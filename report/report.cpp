#include "report/report.h"

#include <filesystem>
#include <fstream>

#include "base/user_error.h"
#include "compliance/benchmark_names.h"
#include "compliance/run_verdicts.h"
#include "report/report_document.h"
#include "report/report_writers.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& text, std::vector<std::string>& written) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw UserError("report: cannot write '" + path.string() + "'; check that the --out folder is writable");
  written.push_back(path.string());
}

// What `score` does to the same runs, so both give the same time: a run whose compliance verdict
// counts against it is not converged; a benchmark outside the six is listed as skipped.
void apply_scoring_rules(CollectedRuns& collected, ComplianceMode mode) {
  std::vector<RunRow> kept;
  std::vector<RunSummary> summaries;
  for (RunRow& row : collected.runs) {
    if (const std::string skip = skipped_benchmark_reason(row.benchmark); !skip.empty()) {
      collected.issues.push_back({row.log_path, row.benchmark + ": " + skip});
      continue;
    }
    // Only the runs a failed rule can count against: the others' verdicts would go unused.
    if (failure_counts_against(row.summary, mode)) summaries.push_back(row.summary);
    kept.push_back(std::move(row));
  }
  const std::map<std::string, std::string> rejected = rejected_runs(check_runs(summaries, mode));
  for (RunRow& row : kept) {
    const auto found = rejected.find(row.log_path);
    if (found == rejected.end()) continue;
    row.compliance_failure = found->second;
    row.converged = false;
    collected.issues.push_back({row.log_path, "counted as not converged: " + found->second, false});
  }
  collected.runs = std::move(kept);
}

}  // namespace

ReportOutcome make_report(const ReportRequest& request) {
  if (request.inputs.empty()) throw UserError("report: give at least one folder of results (see --help)");
  ReportOutcome outcome;
  outcome.collected = collect_runs(request.inputs);
  apply_scoring_rules(outcome.collected, request.compliance);
  if (outcome.collected.runs.empty()) {
    std::string first;
    for (const InputIssue& issue : outcome.collected.issues)
      if (issue.skipped && first.empty()) first = " (first: " + issue.path + ": " + issue.reason + ")";
    throw UserError("report: no usable run among " + std::to_string(outcome.collected.logs_found) +
                    " result_<i>.txt log(s) found" + first);
  }
  outcome.tables = build_report_tables(outcome.collected.runs, request.baseline_platform, request.prices);
  for (const PriceWarning& warning : outcome.tables.price_warnings)
    outcome.collected.issues.push_back({warning.given_as, warning.reason, false});
  const ReportDocument document = build_report_document(outcome.collected, outcome.tables, request.inputs);

  const fs::path out_dir(request.out_dir);
  std::error_code error;
  fs::create_directories(out_dir / "charts", error);
  if (error) throw UserError("report: cannot create '" + (out_dir / "charts").string() + "': " + error.message());
  write_file(out_dir / "report.md", render_markdown(document), outcome.files_written);
  write_file(out_dir / "report.html", render_html(document), outcome.files_written);
  for (const DocSection& section : document.sections)
    for (const DocBlock& block : section.blocks)
      if (const auto* chart = std::get_if<DocChart>(&block))
        write_file(out_dir / "charts" / (chart->file_stem + ".svg"), chart->svg + "\n", outcome.files_written);
  write_file(out_dir / "runs.csv", runs_csv(outcome.collected.runs, outcome.tables), outcome.files_written);
  write_file(out_dir / "summary.csv", summary_csv(outcome.tables, outcome.collected.runs), outcome.files_written);
  write_file(out_dir / "comparison.csv", comparison_csv(outcome.tables), outcome.files_written);
  return outcome;
}

}  // namespace mlh::report
