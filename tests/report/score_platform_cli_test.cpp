// `mlharness score` names each system as `report` does: its device count from the submission's systems
// JSON (accelerators_per_node x number_of_nodes), not the "1x" some published logs carry, and what the
// count counts (GPUs, CPU ranks, accelerators).
#include <filesystem>
#include <string>

#include "tests/e2e/cli_fixture.h"
#include "tests/report/report_test_logs.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

using report_test::LogSpec;
using report_test::make_log;
using report_test::write_text;
using ::testing::HasSubstr;
using ::testing::Not;

class ScorePlatform : public Cli {};

TEST_F(ScorePlatform, CountsTheGpusOfTheSystemsJson) {
  // As MLPerf publishes: <org>/systems/<system>.json beside <org>/results/<system>/<benchmark>/.
  for (int i = 0; i < 5; ++i) {
    LogSpec spec;
    spec.benchmark = "maskrcnn";
    spec.platform = "1xNVIDIA DGX A100";
    spec.seed = i + 1;
    spec.minutes = 40 + i;
    spec.target = 0.377;
    spec.evals = {{1, 0.2}, {2, 0.38}};
    write_text(dir_ / "NVIDIA/results/dgxa100/maskrcnn" / ("result_" + std::to_string(i) + ".txt"), make_log(spec));
  }
  write_text(dir_ / "NVIDIA/systems/dgxa100.json",
             R"({"system_name": "dgxa100", "number_of_nodes": "1", "accelerators_per_node": "8"})");
  const Outcome outcome = run("score NVIDIA --no-check");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("NVIDIA/results/dgxa100 / maskrcnn  (platform 8xNVIDIA DGX A100: 8 GPUs)\n"));
  EXPECT_THAT(outcome.out, Not(HasSubstr("1xNVIDIA")));
  EXPECT_THAT(outcome.out, HasSubstr("score: 42.000 minutes"));
}

TEST_F(ScorePlatform, PublishedDgx1IsEightGpus) {
  const fs::path published = fs::path(test_paths::source_dir()) / "tests" / "data" / "mlperf-results";  // README.md there
  const Outcome outcome = run("score '" + (published / "v0.7/NVIDIA").string() + "' --benchmark ssd");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("dgx1_ngc20.06_pytorch / ssd  (platform 8xNVIDIA DGX-1: 8 GPUs)\n"));  // the logs: 1xNVIDIA DGX-1
  EXPECT_THAT(outcome.out, HasSubstr("score: 20.690 minutes"));  // the official result summarizer
}

}  // namespace
}  // namespace mlh
