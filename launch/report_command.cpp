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
      "mlharness report DIR... --out DIR [--baseline PLATFORM] [--price PLATFORM=USD_PER_HOUR]... [--prices FILE]\n"
      "                 [--usd-per-kwh USD]\n"
      "  Reads every MLPerf result log (result_<i>.txt, with result_<i>.json beside it when mlharness wrote it)\n"
      "  under the folders and writes report.md, report.html (inline SVG charts) and runs.csv, summary.csv,\n"
      "  comparison.csv: time to train (olympic mean), epochs to converge per seed, throughput, scaling and\n"
      "  platform speedups, per benchmark, platform and device count (GPUs, CPU ranks or accelerators).\n"
      "\n"
      "  Prices (optional; with them the tables gain cost to train, samples per dollar and cost against the\n"
      "  baseline, and a cost-to-train chart): a PLATFORM is spelled as the report's Platform column.\n"
      "    8xTesla-V100=24.48  with a count: the price of that whole system per hour; it prices the runs of\n"
      "                        Tesla-V100 on exactly 8 devices.\n"
      "    Tesla-V100=3.06     without a count: the price per device-hour, times the run's device count.\n"
      "  A system price wins over a device price for its count; a later price of the same platform and count\n"
      "  replaces an earlier one (--price after --prices). Cost to train = hourly price x (run_stop - run_start);\n"
      "  a group's cost = hourly price x its olympic-mean time. A price no run uses is a warning; a malformed\n"
      "  one (no '=', not a positive number) is an error. Options");
  visible.add_options()
      ("help,h", "print this help")
      ("out", po::value<std::string>()->value_name("DIR"), "folder to write the report into (created)")
      ("baseline", po::value<std::string>()->value_name("PLATFORM"),
       "platform the others are compared with (default: the slowest per benchmark)")
      ("price", po::value<std::vector<std::string>>()->value_name("PLATFORM=USD_PER_HOUR"),
       "an hourly price in US dollars, per system (8xTesla-V100=24.48) or per device (Tesla-V100=3.06); repeatable")
      ("prices", po::value<std::string>()->value_name("FILE"),
       "prices from a file: YAML {platform: usd_per_hour, ...} (.yaml, .yml) or CSV with the header "
       "platform,usd_per_hour (.csv); platforms as in --price")
      ("usd-per-kwh", po::value<std::string>()->value_name("USD"),
       "price of a kWh: energy cost per run where the run record has energy_joules (GPU runs with NVML)")
      ("strict", "a log that fails the compliance rules of its format's ruleset counts as not converged, as "
                 "`mlharness score --strict`; by default only mlharness's own runs are judged so")
      ("no-check", "judge every run by its own log alone, without the compliance check (as `score --no-check`)");
  const po::variables_map vars = parse_with_positionals(args, visible, "inputs");
  if (vars.count("help")) {
    std::cout << visible;
    return 0;
  }
  if (!vars.count("inputs"))
    throw UserError("report: give at least one results folder, e.g. `mlharness report results/ --out results/report`");
  if (!vars.count("out")) throw UserError("report: --out DIR is required (the folder to write the report into)");

  report::ReportRequest request;
  request.inputs = vars["inputs"].as<std::vector<std::string>>();
  request.out_dir = vars["out"].as<std::string>();
  if (vars.count("baseline")) request.baseline_platform = vars["baseline"].as<std::string>();
  if (vars.count("strict") && vars.count("no-check")) throw UserError("report: --strict and --no-check exclude each other");
  if (vars.count("strict")) request.compliance = ComplianceMode::kStrict;
  if (vars.count("no-check")) request.compliance = ComplianceMode::kOff;
  try {
    if (vars.count("prices")) request.prices.prices = report::read_price_file(vars["prices"].as<std::string>());
    if (vars.count("price"))
      for (const std::string& text : vars["price"].as<std::vector<std::string>>())
        request.prices.prices.push_back(report::parse_price(text));
    if (vars.count("usd-per-kwh")) request.prices.usd_per_kwh = report::parse_usd_per_kwh(vars["usd-per-kwh"].as<std::string>());
  } catch (const UserError& e) {
    throw UserError(std::string("report: ") + e.what());
  }
  const report::ReportOutcome outcome = report::make_report(request);

  int skipped = 0;
  for (const report::InputIssue& issue : outcome.collected.issues) {
    std::fprintf(stderr, "mlharness report: %s %s: %s\n", issue.skipped ? "skipped" : "warning:", issue.path.c_str(),
                 issue.reason.c_str());
    skipped += issue.skipped ? 1 : 0;
  }
  std::printf("report: %zu runs in %zu groups (benchmark x platform x device count), %d input(s) skipped; wrote %s/report.html, "
              "report.md, runs.csv, summary.csv, comparison.csv\n",
              outcome.collected.runs.size(), outcome.tables.groups.size(), skipped, request.out_dir.c_str());
  return 0;
}

}  // namespace mlh
