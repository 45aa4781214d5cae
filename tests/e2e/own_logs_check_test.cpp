// `mlharness check` passes the logs mlharness writes: every converged mini run that ctest makes first
// (tests/e2e/CMakeLists.txt), one or more per workload, judged by the rules of its format's ruleset
// (0.7.0) for the division it logs. The one-epoch runs are left out: they stop before their target,
// which the target rule rightly fails.
#include <gtest/gtest.h>

#include <string>

#include "compliance/checker.h"
#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

void expect_passes_check(const std::string& run) {
  const CheckResult result = check_log(read_log_file(log_of(run).string()));
  EXPECT_EQ(result.ruleset, "0.7.0");
  std::string failures;
  for (const RuleFailure& failure : result.failures) failures += "\n  " + failure.to_string();
  EXPECT_TRUE(result.passed) << run << " fails:" << failures;
}

TEST(OwnLogs, NcfPassesTheComplianceCheck) {
  expect_passes_check("np1_seed1");
  expect_passes_check("np2_seed1");
}

TEST(OwnLogs, ResNet50PassesTheComplianceCheck) { expect_passes_check("resnet50_np2_seed1"); }

TEST(OwnLogs, TransformerPassesTheComplianceCheck) { expect_passes_check("transformer_np1_seed1"); }

TEST(OwnLogs, GnmtPassesTheComplianceCheck) { expect_passes_check("gnmt_np4_seed1"); }

TEST(OwnLogs, SsdPassesTheComplianceCheck) { expect_passes_check("ssd_np1_seed1"); }

}  // namespace
}  // namespace mlh
