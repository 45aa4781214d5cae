// `mlharness check` through the binary: PASS/FAIL lines, the failed rules below them, and the exit
// status (0 all pass, 1 some fail, 2 unreadable input).
#include "tests/e2e/cli_fixture.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A 0.7.0 open-division GNMT log that passes; `accuracy` below 0.24 makes it fail the target.
std::string gnmt_log(double accuracy) {
  std::string text;
  long long t = 1593000000000;
  auto line = [&text, &t](const std::string& key, const std::string& value, const std::string& metadata = "") {
    text += ":::MLLOG {\"namespace\": \"\", \"time_ms\": " + std::to_string(t += 10) + ", \"event_type\": \"POINT_IN_TIME\", \"key\": \"" +
            key + "\", \"value\": " + value + ", \"metadata\": {\"file\": \"t.py\", \"lineno\": 1" +
            (metadata.empty() ? "" : ", " + metadata) + "}}\n";
  };
  line("submission_benchmark", "\"gnmt\"");
  line("submission_org", "\"mlharness\"");
  line("submission_division", "\"open\"");
  line("submission_status", "\"research\"");
  line("submission_platform", "\"1xTest\"");
  line("cache_clear", "true");
  line("init_start", "null");
  line("init_stop", "null");
  line("run_start", "null");
  line("train_samples", "1000");
  line("eval_samples", "100");
  line("block_start", "null", "\"first_epoch_num\": 1, \"epoch_count\": 1");
  line("epoch_start", "null", "\"epoch_num\": 1");
  line("epoch_stop", "null", "\"epoch_num\": 1");
  line("eval_start", "null", "\"epoch_num\": 1");
  line("eval_accuracy", std::to_string(accuracy), "\"epoch_num\": 1");
  line("eval_stop", "null", "\"epoch_num\": 1");
  line("block_stop", "null", "\"first_epoch_num\": 1");
  line("run_stop", "null", "\"status\": \"success\"");
  return text;
}

TEST_F(Cli, CheckPassingLog) {
  write("good.txt", gnmt_log(0.2431));
  const Outcome outcome = run("check good.txt");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
  EXPECT_EQ(outcome.out, "PASS good.txt\n");
}

TEST_F(Cli, CheckFailingLogListsTheFailedRules) {
  write("good.txt", gnmt_log(0.2431));
  write("short.txt", gnmt_log(0.2391));
  const Outcome outcome = run("check good.txt short.txt");
  EXPECT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("PASS good.txt\nFAIL short.txt\n  eval_accuracy: reaches: none of 1 lines reaches "
                                     "{min: 0.240, below: 1}; the last is 0.2391 (line 16) [0.7.0/open_gnmt]\n"));
}

// A benchmark MLPerf ran that our rule set has no rules for passes on the common rules and says
// what was not checked.
TEST_F(Cli, CheckSaysWhatIsNotChecked) {
  std::string bert = gnmt_log(0.2431);
  bert.replace(bert.find("\"gnmt\""), 6, "\"bert\"");
  write("bert.txt", bert);
  const Outcome outcome = run("check bert.txt");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("PASS bert.txt\n  not checked: ruleset 0.7.0 has no rules for benchmark 'bert' ("));
}

TEST_F(Cli, CheckWithAnotherRulesetFails) {
  write("good.txt", gnmt_log(0.2431));
  const Outcome outcome = run("check --ruleset 0.6.0 good.txt");
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_THAT(outcome.out, HasSubstr("FAIL good.txt\n  parse: no :::MLL lines"));
}

TEST_F(Cli, CheckUnreadableInputExits2AndNamesIt) {
  write("good.txt", gnmt_log(0.2431));
  write("notes.txt", "just some text\nnot a log\n");
  const Outcome outcome = run("check good.txt missing.txt notes.txt");
  EXPECT_EQ(outcome.exit_code, 2) << outcome.out << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("PASS good.txt\n"));
  EXPECT_THAT(outcome.out, HasSubstr("ERROR missing.txt: cannot read log file 'missing.txt'"));
  EXPECT_THAT(outcome.out, HasSubstr("ERROR notes.txt: not an MLPerf log"));
}

TEST_F(Cli, CheckTruncatedLogFails) {
  const std::string text = gnmt_log(0.2431);
  write("cut.txt", text.substr(0, text.size() - 20));
  const Outcome outcome = run("check cut.txt");
  EXPECT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("FAIL cut.txt\n  line 19: parse: the last line is truncated"));
  EXPECT_THAT(outcome.out, HasSubstr("run_stop: count: required exactly once, found none"));
}

TEST_F(Cli, CheckHelpAndBadArguments) {
  const Outcome help = run("check --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--ruleset"));
  EXPECT_THAT(help.out, HasSubstr("0.5.0, 0.6.0, 0.7.0"));
  expect_user_error("check", "name at least one log file");
  expect_user_error("check --ruleset 9.9.9 x.txt", "unknown --ruleset '9.9.9' (known: 0.5.0, 0.6.0, 0.7.0)");
  expect_user_error("check --strict x.txt", "unrecognised option '--strict'");
}

}  // namespace
}  // namespace mlh
