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

// Every table names its device count `devices` with `device_kind` beside it (gpu, cpu: CPU ranks,
// accelerator). Optional columns, present only when some row has them: energy (a run measured
// energy), cost (tables.any_price), energy cost (tables.any_energy_cost).
// runs.csv: one row per run (`runs` as the tables were built from, for their run_costs). A quality of
// several numbers lists its members in quality_name, quality_target and final_quality, ';'-separated
// in the same order ("BBOX;SEGM", "0.377;0.339", "0.3793;0.3417"; NA for a member the eval lacks).
std::string runs_csv(const std::vector<RunRow>& runs, const ReportTables& tables);
// summary.csv: one row per benchmark x platform x device count.
std::string summary_csv(const ReportTables& tables, const std::vector<RunRow>& runs);
// comparison.csv: one row per platform group against its benchmark's baseline; cost columns with prices.
std::string comparison_csv(const ReportTables& tables);

// One CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

}  // namespace mlh::report
