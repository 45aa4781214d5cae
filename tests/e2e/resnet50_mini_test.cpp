// Checks of the ResNet-50 mini run that ctest makes first (tests/e2e/CMakeLists.txt): a narrow,
// small-input ResNet-50 on Fashion-MNIST reaches its top-1 target (the log's eval_target) under
// `mpirun -np 2`, logging the resnet SGD keys of the 0.7.0 rules.
#include <gtest/gtest.h>

#include <map>

#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

TEST(ResNet50Mini, ReachesTargetWithTheSgdKeys) {
  const std::vector<LogRecord> records = records_of("resnet50_np2_seed1");
  const LogRecord* run_stop = find(records, "run_stop");
  ASSERT_NE(run_stop, nullptr);
  EXPECT_EQ(run_stop->metadata["status"], "success");
  // The last evaluation reaches the target, every earlier one stays below it (the run stops at the
  // first that reaches it), and top-1 stays below 1.
  const std::vector<double> top1 = eval_accuracies(records);
  ASSERT_FALSE(top1.empty());
  const LogRecord* target = find(records, "eval_target");
  ASSERT_NE(target, nullptr);
  const double target_top1 = target->value.get<double>();
  EXPECT_GT(target_top1, 0.5);
  EXPECT_GE(top1.back(), target_top1);
  EXPECT_LT(top1.back(), 1.0);
  for (size_t i = 0; i + 1 < top1.size(); ++i) EXPECT_LT(top1[i], target_top1) << "evaluation " << i + 1;

  std::map<std::string, int> counts = key_counts(records);
  const std::map<std::string, const LogRecord*> last = last_by_key(records);
  EXPECT_EQ(last.at("opt_name")->value, "sgd");
  EXPECT_EQ(last.at("submission_benchmark")->value, "resnet");
  // training_0.7.0 closed_resnet.yaml + closed_resnet_sgd.yaml (spec/mlperf-logging.md §5).
  for (const char* key : {"global_batch_size", "opt_name", "sgd_opt_base_learning_rate", "sgd_opt_end_learning_rate",
                          "sgd_opt_learning_rate_decay_poly_power", "sgd_opt_learning_rate_decay_steps",
                          "sgd_opt_weight_decay", "sgd_opt_momentum", "model_bn_span",
                          "opt_learning_rate_warmup_epochs", "run_start", "run_stop", "init_stop", "eval_target"})
    EXPECT_EQ(counts[key], 1) << key;
}

}  // namespace
}  // namespace mlh
