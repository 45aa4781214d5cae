// `mlharness report`: exit codes, the report files, and the skipped inputs named on stderr.
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
  for (const char* word : {"--out", "--baseline", "report.html", "summary.csv"}) EXPECT_THAT(outcome.out, HasSubstr(word));
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
  EXPECT_THAT(read_file(dir_ / "out/summary.csv"), HasSubstr("gnmt,Test-GPU,1,"));
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

}  // namespace
}  // namespace mlh
