// `mlharness check` passes the logs mlharness writes: each converged mini run that a workload's
// e2e.cmake marks CHECK_LOG (mlh_add_mini_run), judged by the rules of its format's ruleset (0.7.0)
// for the division it logs. Runs cut short are left out: they stop before their target, which the
// target rule rightly fails.
#include <gtest/gtest.h>

#include <string>

#include "compliance/checker.h"
#include "tests/e2e/run_check_arguments.h"
#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

TEST(OwnLog, PassesTheComplianceCheck) {
  ASSERT_FALSE(run_check_arguments().runs.empty()) << "give --run NAME";
  for (const std::string& run : run_check_arguments().runs) {
    const CheckResult result = check_log(read_log_file(log_of(run).string()));
    EXPECT_EQ(result.ruleset, "0.7.0");
    std::string failures;
    for (const RuleFailure& failure : result.failures) failures += "\n  " + failure.to_string();
    EXPECT_TRUE(result.passed) << run << " fails:" << failures;
  }
}

}  // namespace
}  // namespace mlh
