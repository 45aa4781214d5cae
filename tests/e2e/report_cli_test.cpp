// `mlharness report`: exit codes, the report files, the skipped inputs named on stderr, and prices
// (--price, --prices, --usd-per-kwh): cost columns with them, a warning for an unused price, exit 2
// for a malformed one.
#include "tests/e2e/cli_fixture.h"
#include "tests/report/report_test_logs.h"

namespace mlh {
namespace {

using report_test::LogSpec;
using report_test::make_log;
using report_test::write_text;
using ::testing::HasSubstr;

class ReportCli : public Cli {
 protected:
  // Three good gnmt runs under runs/1xTest-GPU/gnmt, and whatever `extra` adds.
  void write_runs() {
    for (int seed = 1; seed <= 3; ++seed) {
      LogSpec spec;
      spec.seed = seed;
      spec.minutes = 10 + seed;
      write_text(dir_ / "runs/1xTest-GPU/gnmt" / ("result_" + std::to_string(seed - 1) + ".txt"), make_log(spec));
    }
  }
};

TEST_F(ReportCli, HelpNamesTheOptions) {
  const Outcome outcome = run("report --help");
  EXPECT_EQ(outcome.exit_code, 0);
  for (const char* word : {"--out", "--baseline", "report.html", "summary.csv", "--price", "--prices", "--usd-per-kwh",
                           "price of that whole system per hour", "price per device-hour"})
    EXPECT_THAT(outcome.out, HasSubstr(word));
}

TEST_F(ReportCli, WritesTheReportAndNamesSkippedInputs) {
  write_runs();
  LogSpec unfinished;
  unfinished.seed = 4;
  unfinished.run_stop = false;
  write_text(dir_ / "runs/1xTest-GPU/gnmt/result_3.txt", make_log(unfinished));
  write_text(dir_ / "runs/1xTest-GPU/gnmt/result_4.txt", "garbage\n");
  std::filesystem::create_directories(dir_ / "empty");
  const Outcome outcome = run("report runs empty --out out");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("skipped runs/1xTest-GPU/gnmt/result_3.txt: no run_stop"));
  EXPECT_THAT(outcome.err, HasSubstr("skipped runs/1xTest-GPU/gnmt/result_4.txt: not an MLPerf log"));
  EXPECT_THAT(outcome.err, HasSubstr("skipped empty: no result_<i>.txt logs"));
  EXPECT_THAT(outcome.out, HasSubstr("3 runs"));
  for (const char* name : {"report.md", "report.html", "runs.csv", "summary.csv", "comparison.csv"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "out" / name)) << name;
  const std::string markdown = read_file(dir_ / "out/report.md");
  EXPECT_THAT(markdown, HasSubstr("runs/1xTest-GPU/gnmt/result_3.txt: no run_stop"));
  EXPECT_THAT(read_file(dir_ / "out/summary.csv"), HasSubstr("gnmt,Test-GPU,1,gpu,"));
}

TEST_F(ReportCli, MissingFolderIsAUserError) { expect_user_error("report nowhere --out out", "'nowhere' does not exist"); }

TEST_F(ReportCli, NoUsableRunIsAUserError) {
  write_text(dir_ / "bad/result_0.txt", "garbage\n");
  expect_user_error("report bad --out out", "no usable run");
}

TEST_F(ReportCli, OutIsRequired) {
  write_runs();
  expect_user_error("report runs", "--out DIR is required");
}

TEST_F(ReportCli, UnknownBaselineIsAUserError) {
  write_runs();
  expect_user_error("report runs --out out --baseline Quantum", "--baseline 'Quantum' is not a platform");
}

TEST_F(ReportCli, PricesGiveCostColumns) {
  write_runs();  // 11, 12, 13 minutes: olympic mean 12; no records, so no throughput
  const Outcome outcome = run("report runs --out out --price 1xTest-GPU=3 --price Quantum=9");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("warning: --price Quantum=9: no run is of platform 'Quantum'"));
  const std::string summary = read_file(dir_ / "out/summary.csv");
  EXPECT_THAT(summary, HasSubstr(",usd_per_hour,price_basis,cost_usd,cost_is_olympic,samples_per_usd\n"));
  EXPECT_THAT(summary, HasSubstr(",3,system,0.6,true,\n"));  // $3/h x 12 min
  EXPECT_THAT(read_file(dir_ / "out/runs.csv"), HasSubstr(",3,system,0.65,\n"));  // 13 min
  EXPECT_THAT(read_file(dir_ / "out/report.md"), HasSubstr("Prices used: 1xTest-GPU $3.00/h (system)."));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "out/charts/cost_to_train_gnmt.svg"));
}

TEST_F(ReportCli, PriceFilesYamlAndCsv) {
  write_runs();
  write("prices.yaml", "Test-GPU: 1.5\n");
  Outcome outcome = run("report runs --out yaml --prices prices.yaml --usd-per-kwh 0.1");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("warning: --usd-per-kwh: no run record has energy_joules"));
  EXPECT_THAT(read_file(dir_ / "yaml/summary.csv"), HasSubstr(",1.5,device,0.3,true,\n"));  // 1 x $1.50/h x 12 min
  write("prices.csv", "platform,usd_per_hour\nTest-GPU,6\n");
  outcome = run("report runs --out csv --prices prices.csv --price Test-GPU=0.5");  // --price replaces the file's
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("prices.csv line 2: replaced by a later price of Test-GPU"));
  EXPECT_THAT(read_file(dir_ / "csv/summary.csv"), HasSubstr(",0.5,device,0.1,true,\n"));
}

TEST_F(ReportCli, WithoutPricesNoCostColumns) {
  write_runs();
  EXPECT_EQ(run("report runs --out out").exit_code, 0);
  for (const char* name : {"runs.csv", "summary.csv", "comparison.csv"})
    EXPECT_THAT(read_file(dir_ / "out" / name), ::testing::Not(HasSubstr("usd"))) << name;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out/charts/cost_to_train_gnmt.svg"));
}

TEST_F(ReportCli, MalformedPricesAreUserErrors) {
  write_runs();
  expect_user_error("report runs --out out --price Test-GPU", "report: --price Test-GPU: no '='");
  expect_user_error("report runs --out out --price Test-GPU=-1", "--price Test-GPU=-1: the price '-1' is not a positive number");
  expect_user_error("report runs --out out --price Test-GPU=cheap", "--price Test-GPU=cheap: the price 'cheap' is not a positive number");
  expect_user_error("report runs --out out --usd-per-kwh free", "--usd-per-kwh free: not a positive number");
  write("prices.txt", "Test-GPU=1\n");
  expect_user_error("report runs --out out --prices prices.txt", "--prices prices.txt: name a .yaml, .yml");
  write("bad.csv", "platform,usd_per_hour\nTest-GPU,-2\n");
  expect_user_error("report runs --out out --prices bad.csv", "bad.csv line 2: the price '-2' is not a positive number");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out")) << "a bad price must stop the report before it writes anything";
}

}  // namespace
}  // namespace mlh
