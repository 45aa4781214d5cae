// `mlharness report`: reads the runs under the input folders, builds the tables, and writes
// report.md (with charts/*.svg), report.html, runs.csv, summary.csv and comparison.csv into the
// output folder.
#pragma once

#include <string>
#include <vector>

#include "compliance/run_verdicts.h"
#include "report/prices.h"
#include "report/report_data.h"
#include "report/report_tables.h"

namespace mlh::report {

struct ReportRequest {
  std::vector<std::string> inputs;    // folders (searched recursively) or log files
  std::string out_dir;
  std::string baseline_platform;      // empty: the slowest platform per benchmark
  PriceList prices = {};              // empty: no cost columns, no cost chart
  // Which failed compliance rules count a run as not converged, as `mlharness score` decides it.
  ComplianceMode compliance = ComplianceMode::kOwnRunsStrict;
};

struct ReportOutcome {
  CollectedRuns collected;
  ReportTables tables;
  std::vector<std::string> files_written;
};

// Throws UserError when out_dir holds source code (a .git, a CMakeLists.txt, a .cpp, .h, .py or .sh
// file...), an input does not exist, no run is usable, or the output cannot be written.
// A price that prices no run is a warning among collected.issues (not skipped), named by its
// given_as.
ReportOutcome make_report(const ReportRequest& request);

}  // namespace mlh::report
