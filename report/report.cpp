#include "report/report.h"

#include <filesystem>
#include <fstream>
#include <set>

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

// The entry of `folder` that marks it as source code (a Git checkout, a CMake project, a source
// file), or "" when it holds none. The report's own files overwrite their namesakes; writing them
// among sources invites a clean-up that deletes the sources with the output.
std::string source_entry_in(const fs::path& folder) {
  static const std::set<std::string> kSourceExtensions = {".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".proto", ".py", ".sh"};
  std::error_code error;
  if (!fs::is_directory(folder, error)) return "";
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    const fs::path name = entry.path().filename();
    if (name == ".git" || name == "CMakeLists.txt" || kSourceExtensions.count(name.extension().string()) != 0)
      return name.string();
  }
  return "";
}

}  // namespace

ReportOutcome make_report(const ReportRequest& request) {
  if (request.inputs.empty()) throw UserError("report: give at least one folder of results (see --help)");
  if (const std::string source = source_entry_in(request.out_dir); !source.empty())
    throw UserError("report: --out '" + request.out_dir + "' holds source code ('" + source +
                    "'); write the report into a folder of its own, e.g. --out results/report");
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
