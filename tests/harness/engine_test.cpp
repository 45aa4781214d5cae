// The engine against a scripted workload: stop rules, the log's run structure, the record, and
// nothing left behind when a run fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "compliance/log_reader.h"
#include "compliance/user_error.h"
#include "harness/driver.h"
#include "harness/results.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

// Qualities and losses come from a script; each step reports a fixed number of samples.
class ScriptedWorkload final : public Workload {
 public:
  std::vector<double> qualities;
  std::vector<double> losses;
  bool fail_in_init = false;
  int64_t batch = 4;
  std::vector<int64_t> evaluated_epochs;

  std::string benchmark() const override { return "scripted"; }
  void bind_settings(ConfigMap& config) override { config.bind("batch", batch, "samples per step"); }
  WorkloadInfo init(const RunContext& context) override {
    if (fail_in_init) throw UserError("scripted failure in init");
    context.logger.event("opt_name", "none");
    WorkloadInfo info;
    info.global_batch_size = batch;
    info.train_samples = batch * 3;
    info.eval_samples = 10;
    info.quality_name = "score";
    info.target = 0.8;
    return info;
  }
  int64_t steps_per_epoch() const override { return 3; }
  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    for (int i = 0; i < 3; ++i) progress.step(batch, 1.0);
    TrainStats stats;
    stats.samples = batch * 3;
    stats.mean_loss = losses.empty() ? 1.0 : losses.at(static_cast<size_t>(epoch - 1));
    return stats;
  }
  Quality evaluate(int64_t epoch) override {
    evaluated_epochs.push_back(epoch);
    Quality q;
    q.primary = "score";
    q.values["score"] = qualities.at(static_cast<size_t>(epoch - 1));
    return q;
  }
  std::unique_ptr<BenchStep> make_bench_step(const BenchSpec&, const World&) override { return nullptr; }
};

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::path(::testing::TempDir()) /
           ("engine_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(out_);
    options_.workload = "scripted";
    options_.out_dir = out_.string();
    options_.data_dir = (out_ / "data").string();
    options_.platform = "testbox";
    options_.seed = 42;
    options_.quiet = true;
  }
  proto::RunResult run(ScriptedWorkload& workload, const std::string& yaml) {
    ConfigMap config = ConfigMap::from_yaml_text(yaml, "test.yaml");
    return run_to_target(workload, config, world_, options_);
  }
  std::vector<LogRecord> records_of(const std::string& path) {
    ParsedLog log = read_log_file(path);
    EXPECT_TRUE(log.errors.empty());
    return log.records;
  }
  fs::path out_;
  RunOptions options_;
  World world_ = World::single_process();
};

std::vector<std::string> keys_of(const std::vector<LogRecord>& records) {
  std::vector<std::string> keys;
  for (const auto& r : records) keys.push_back(r.key);
  return keys;
}

TEST_F(EngineTest, StopsAtTheFirstEvaluationThatReachesTheTarget) {
  ScriptedWorkload workload;
  workload.qualities = {0.2, 0.5, 0.85, 0.9};
  const proto::RunResult result = run(workload, "max_epochs: 4\nthroughput_warmup_steps: 1\n");
  EXPECT_TRUE(result.converged());
  EXPECT_EQ(result.status(), "success");
  EXPECT_EQ(result.epochs_to_converge(), 3);
  EXPECT_EQ(result.epochs_run(), 3);
  EXPECT_EQ(result.evals_size(), 3);
  EXPECT_EQ(result.seed(), 42u);
  EXPECT_EQ(result.global_batch_size(), 4);
  EXPECT_GE(result.time_to_train_seconds(), 0);
  EXPECT_GT(result.train_samples_per_second(), 0);

  const fs::path folder = out_ / "testbox" / "scripted";
  EXPECT_EQ(result.log_file(), (folder / "result_0.txt").string());
  EXPECT_TRUE(fs::exists(folder / "result_0.txt"));
  EXPECT_TRUE(fs::exists(folder / "result_0.json"));
  EXPECT_FALSE(fs::exists(folder / "result_0.txt.partial"));
  const proto::RunResult reread = run_result_from_json([&] {
    std::ifstream in(folder / "result_0.json");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }());
  EXPECT_EQ(reread.epochs_to_converge(), 3);

  const auto records = records_of(result.log_file());
  std::vector<double> accuracies;
  for (const auto& r : records) {
    if (r.key == "eval_accuracy") {
      accuracies.push_back(r.value.get<double>());
      EXPECT_EQ(r.metadata["epoch_num"].get<int64_t>(), static_cast<int64_t>(accuracies.size()));
    }
    if (r.key == "run_stop") {
      EXPECT_EQ(r.metadata["status"], "success");
    }
  }
  EXPECT_EQ(accuracies, (std::vector<double>{0.2, 0.5, 0.85}));

  // Throughput per epoch, then the steady-state figure of the whole run.
  std::vector<int64_t> throughput_epochs;
  int steady = 0;
  for (const auto& r : records) {
    if (r.key != "mlharness_train_samples_per_second") continue;
    EXPECT_GT(r.value.get<double>(), 0);
    if (r.metadata.contains("epoch_num")) throughput_epochs.push_back(r.metadata["epoch_num"].get<int64_t>());
    steady += r.metadata.contains("steady_state");
  }
  EXPECT_EQ(throughput_epochs, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(steady, 1);

  // The training loss of every epoch, as the workload reported it.
  std::vector<int64_t> loss_epochs;
  for (const auto& r : records) {
    if (r.key != "mlharness_train_loss") continue;
    loss_epochs.push_back(r.metadata["epoch_num"].get<int64_t>());
    EXPECT_TRUE(r.value.is_number());
  }
  EXPECT_EQ(loss_epochs, (std::vector<int64_t>{1, 2, 3}));
}

TEST_F(EngineTest, LogHasEveryKeyTheCommonRulesRequireInOrder) {
  ScriptedWorkload workload;
  workload.qualities = {0.9};
  const proto::RunResult result = run(workload, "max_epochs: 2\n");
  const auto keys = keys_of(records_of(result.log_file()));
  // training_0.7.0/common.yaml (spec/mlperf-logging.md §4).
  for (const char* key : {"submission_org", "submission_platform", "submission_division",
                          "submission_status", "submission_benchmark", "cache_clear", "init_start",
                          "init_stop", "run_start", "run_stop", "block_start", "block_stop",
                          "epoch_start", "epoch_stop", "eval_start", "eval_stop", "eval_accuracy",
                          "train_samples", "eval_samples", "seed", "global_batch_size"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
  const auto position = [&](const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) - keys.begin();
  };
  EXPECT_LT(position("cache_clear"), position("init_start"));
  EXPECT_LT(position("init_start"), position("init_stop"));
  EXPECT_LT(position("init_stop"), position("run_start"));
  EXPECT_LT(position("run_start"), position("block_start"));
  EXPECT_LT(position("eval_accuracy"), position("run_stop"));
  for (const char* once : {"init_stop", "run_start", "run_stop", "submission_benchmark", "train_samples"})
    EXPECT_EQ(std::count(keys.begin(), keys.end(), once), 1) << once;
}

TEST_F(EngineTest, AbortsAtMaxEpochs) {
  ScriptedWorkload workload;
  workload.qualities = {0.1, 0.2, 0.3};
  const proto::RunResult result = run(workload, "max_epochs: 3\n");
  EXPECT_FALSE(result.converged());
  EXPECT_EQ(result.status(), "aborted");
  EXPECT_EQ(result.epochs_to_converge(), 0);
  EXPECT_EQ(result.epochs_run(), 3);
  EXPECT_THAT(result.abort_reason(), ::testing::HasSubstr("not reached in 3 epochs"));
  bool saw_aborted = false;
  for (const auto& r : records_of(result.log_file()))
    if (r.key == "run_stop") saw_aborted = r.metadata["status"] == "aborted";
  EXPECT_TRUE(saw_aborted);
}

TEST_F(EngineTest, AbortsOnNonFiniteLoss) {
  ScriptedWorkload workload;
  workload.qualities = {0.1, 0.2, 0.3};
  workload.losses = {0.5, std::numeric_limits<double>::quiet_NaN(), 0.4};
  const proto::RunResult result = run(workload, "max_epochs: 3\n");
  EXPECT_FALSE(result.converged());
  EXPECT_EQ(result.epochs_run(), 2);
  EXPECT_THAT(result.abort_reason(), ::testing::HasSubstr("non-finite training loss in epoch 2"));
  EXPECT_EQ(workload.evaluated_epochs, (std::vector<int64_t>{1}));
}

TEST_F(EngineTest, EvaluatesAtTheEndOfEachBlock) {
  ScriptedWorkload workload;
  workload.qualities = {0.1, 0.2, 0.3, 0.4, 0.5};
  const proto::RunResult result = run(workload, "max_epochs: 5\neval_every_epochs: 2\n");
  EXPECT_EQ(workload.evaluated_epochs, (std::vector<int64_t>{2, 4, 5}));
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (const auto& r : records_of(result.log_file()))
    if (r.key == "block_start")
      blocks.emplace_back(r.metadata["first_epoch_num"].get<int64_t>(), r.metadata["epoch_count"].get<int64_t>());
  EXPECT_EQ(blocks, (std::vector<std::pair<int64_t, int64_t>>{{1, 2}, {3, 2}, {5, 1}}));
}

TEST_F(EngineTest, NextRunTakesTheNextIndexAndNeverAppends) {
  ScriptedWorkload first;
  first.qualities = {0.9};
  const auto a = run(first, "max_epochs: 1\n");
  ScriptedWorkload second;
  second.qualities = {0.9};
  const auto b = run(second, "max_epochs: 1\n");
  EXPECT_THAT(a.log_file(), ::testing::EndsWith("result_0.txt"));
  EXPECT_THAT(b.log_file(), ::testing::EndsWith("result_1.txt"));
  for (const auto& log : {a.log_file(), b.log_file()}) {
    const auto keys = keys_of(records_of(log));
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "run_start"), 1);
  }
}

TEST_F(EngineTest, FailureLeavesNoResultFiles) {
  ScriptedWorkload workload;
  workload.fail_in_init = true;
  EXPECT_THROW(run(workload, "max_epochs: 1\n"), UserError);
  const fs::path folder = out_ / "testbox" / "scripted";
  ASSERT_TRUE(fs::exists(folder));
  EXPECT_TRUE(fs::is_empty(folder));
}

TEST_F(EngineTest, BadSettingsFailBeforeAnythingIsWritten) {
  ScriptedWorkload workload;
  workload.qualities = {0.9};
  EXPECT_THROW(run(workload, "max_epochs: 0\n"), UserError);
  EXPECT_THROW(run(workload, "submission_division: closd\n"), UserError);
  EXPECT_THROW(run(workload, "no_such_key: 1\n"), UserError);
  EXPECT_FALSE(fs::exists(out_ / "testbox"));
}

}  // namespace
}  // namespace mlh
