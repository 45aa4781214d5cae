#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>

#include "base/user_error.h"
#include "launch/analysis_commands.h"
#include "report/report.h"

namespace mlh {

namespace po = boost::program_options;

int report_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "mlharness report DIR... --out DIR [--baseline PLATFORM]\n"
      "  Reads every MLPerf result log (result_<i>.txt, with result_<i>.json beside it when mlharness wrote it)\n"
      "  under the folders and writes report.md, report.html (inline SVG charts) and runs.csv, summary.csv,\n"
      "  comparison.csv: time to train (olympic mean), epochs to converge per seed, throughput, scaling and\n"
      "  platform speedups. Options");
  visible.add_options()
      ("help,h", "print this help")
      ("out", po::value<std::string>()->value_name("DIR"), "folder to write the report into (created)")
      ("baseline", po::value<std::string>()->value_name("PLATFORM"),
       "platform the others are compared with (default: the slowest per benchmark)");
  const po::variables_map vars = parse_with_positionals(args, visible, "inputs");
  if (vars.count("help")) {
    std::cout << visible;
    return 0;
  }
  if (!vars.count("inputs"))
    throw UserError("report: give at least one results folder, e.g. `mlharness report results/ --out report/`");
  if (!vars.count("out")) throw UserError("report: --out DIR is required (the folder to write the report into)");

  report::ReportRequest request;
  request.inputs = vars["inputs"].as<std::vector<std::string>>();
  request.out_dir = vars["out"].as<std::string>();
  if (vars.count("baseline")) request.baseline_platform = vars["baseline"].as<std::string>();
  const report::ReportOutcome outcome = report::make_report(request);

  int skipped = 0;
  for (const report::InputIssue& issue : outcome.collected.issues) {
    std::fprintf(stderr, "mlharness report: %s %s: %s\n", issue.skipped ? "skipped" : "warning:", issue.path.c_str(),
                 issue.reason.c_str());
    skipped += issue.skipped ? 1 : 0;
  }
  std::printf("report: %zu runs in %zu groups (benchmark x platform x GPU count), %d input(s) skipped; wrote %s/report.html, "
              "report.md, runs.csv, summary.csv, comparison.csv\n",
              outcome.collected.runs.size(), outcome.tables.groups.size(), skipped, request.out_dir.c_str());
  return 0;
}

}  // namespace mlh
