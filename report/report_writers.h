// The report's output formats: Markdown (charts as SVG files beside it), self-contained HTML (inline
// CSS and inline SVG; nothing fetched) and CSV tables for pandas (RFC 4180 quoting, one header row,
// empty cells for unknown values).
#pragma once

#include <string>
#include <vector>

#include "report/report_data.h"
#include "report/report_document.h"
#include "report/report_tables.h"

namespace mlh::report {

std::string render_markdown(const ReportDocument& document);
std::string render_html(const ReportDocument& document);

// runs.csv: one row per run; the energy columns only when some run has an energy measurement.
std::string runs_csv(const std::vector<RunRow>& runs);
// summary.csv: one row per benchmark x platform x GPU count; energy columns as in runs.csv.
std::string summary_csv(const ReportTables& tables, const std::vector<RunRow>& runs);
// comparison.csv: one row per platform group against its benchmark's baseline.
std::string comparison_csv(const ReportTables& tables);

// One CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

}  // namespace mlh::report
