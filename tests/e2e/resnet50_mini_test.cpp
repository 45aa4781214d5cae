// Checks of the ResNet-50 mini run that ctest makes first (tests/e2e/CMakeLists.txt): a narrow,
// small-input ResNet-50 on Fashion-MNIST reaches top-1 0.88 under `mpirun -np 2`, logging the
// resnet SGD keys of the 0.7.0 rules.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "compliance/log_reader.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

TEST(ResNet50Mini, ReachesTargetWithTheSgdKeys) {
  const fs::path results = fs::path(MLH_E2E_DIR) / "resnet50_np2_seed1" / "results";
  std::vector<fs::path> logs;
  for (const auto& entry : fs::recursive_directory_iterator(results))
    if (entry.path().extension() == ".txt") logs.push_back(entry.path());
  ASSERT_EQ(logs.size(), 1u);
  const ParsedLog log = read_log_file(logs.front().string());
  EXPECT_TRUE(log.errors.empty());

  std::map<std::string, int> counts;
  double best = 0;
  std::string status;
  for (const auto& r : log.records) {
    ++counts[r.key];
    if (r.key == "eval_accuracy") best = std::max(best, r.value.get<double>());
    if (r.key == "run_stop") status = r.metadata["status"];
    if (r.key == "opt_name") {
      EXPECT_EQ(r.value, "sgd");
    }
    if (r.key == "submission_benchmark") {
      EXPECT_EQ(r.value, "resnet");
    }
  }
  EXPECT_EQ(status, "success");
  EXPECT_GE(best, 0.88);
  EXPECT_LT(best, 1.0);
  // training_0.7.0 closed_resnet.yaml + closed_resnet_sgd.yaml (spec/mlperf-logging.md §5).
  for (const char* key : {"global_batch_size", "opt_name", "sgd_opt_base_learning_rate", "sgd_opt_end_learning_rate",
                          "sgd_opt_learning_rate_decay_poly_power", "sgd_opt_learning_rate_decay_steps",
                          "sgd_opt_weight_decay", "sgd_opt_momentum", "model_bn_span",
                          "opt_learning_rate_warmup_epochs", "run_start", "run_stop", "init_stop"})
    EXPECT_EQ(counts[key], 1) << key;
}

}  // namespace
}  // namespace mlh
