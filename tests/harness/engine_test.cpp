// The engine against a scripted workload: stop rules (several targets, strict targets), the
// evaluation schedule and the log's block structure, the record, a Mask R-CNN-shaped log through the
// compliance checker, and nothing left behind when a run fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "compliance/checker.h"
#include "compliance/log_reader.h"
#include "base/user_error.h"
#include "harness/device.h"
#include "harness/driver.h"
#include "harness/results.h"
#include "tests/user_error_of.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

// Qualities and losses come from a script, indexed by epoch; each step reports a fixed number of
// samples. `qualities` is "score"; `more_qualities` holds other named values.
class ScriptedWorkload final : public Workload {
 public:
  std::string benchmark_name = "scripted";
  std::vector<QualityTarget> targets = {{"score", 0.8}};
  std::vector<double> qualities;
  std::map<std::string, std::vector<double>> more_qualities;
  std::vector<std::pair<std::string, nlohmann::json>> hyperparameters = {{"opt_name", "none"}};
  std::vector<double> losses;
  bool fail_in_init = false;
  int64_t batch = 4;
  int64_t skipped_steps_per_epoch = 0;
  std::vector<int64_t> evaluated_epochs;
  torch::Device device = torch::kCUDA;  // what init was handed

  std::string benchmark() const override { return benchmark_name; }
  void bind_settings(ConfigMap& config) override { config.bind("batch", batch, "samples per step"); }
  WorkloadInfo init(const RunContext& context) override {
    if (fail_in_init) throw UserError("scripted failure in init");
    device = context.device;
    for (const auto& [key, value] : hyperparameters) context.logger.event(key, value);
    WorkloadInfo info;
    info.global_batch_size = batch;
    info.train_samples = batch * 3;
    info.eval_samples = 10;
    info.targets = targets;
    return info;
  }
  int64_t steps_per_epoch() const override { return 3; }
  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    EXPECT_EQ(trained_epochs, epoch - 1) << "epochs trained before epoch " << epoch;
    for (int i = 0; i < 3; ++i) {
      if (epoch == raise_in_epoch && i == 1) std::raise(SIGTERM);
      progress.step(batch, 1.0);
    }
    ++trained_epochs;
    TrainStats stats;
    stats.samples = batch * 3;
    stats.mean_loss = losses.empty() ? 1.0 : losses.at(static_cast<size_t>(epoch - 1));
    stats.skipped_steps = skipped_steps_per_epoch;
    return stats;
  }
  Quality evaluate(int64_t epoch) override {
    evaluated_epochs.push_back(epoch);
    Quality q;
    if (!qualities.empty()) q.values["score"] = qualities.at(static_cast<size_t>(epoch - 1));
    for (const auto& [name, series] : more_qualities) q.values[name] = series.at(static_cast<size_t>(epoch - 1));
    return q;
  }
  std::unique_ptr<BenchStep> make_bench_step(const BenchSpec&, const World&) override { return nullptr; }
  // Checkpoints: the epochs trained so far stand for the model.
  int64_t trained_epochs = 0;
  int raise_in_epoch = 0;  // raises SIGTERM in this epoch's second step
  void save_state(TrainingState& state) const override { state.put_int("model/trained_epochs", trained_epochs); }
  void load_state(const TrainingState& state) override { trained_epochs = state.get_int("model/trained_epochs"); }
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


// A block as the log shows it: block_start's fields, the epochs inside, the evaluated epoch, and
// whether a block_stop with the same first_epoch_num closed it.
struct LoggedBlock {
  int64_t first_epoch = 0;
  int64_t epoch_count = 0;
  std::vector<int64_t> epochs;
  int64_t eval_epoch = 0;
  bool stopped = false;
};

std::vector<LoggedBlock> blocks_of(const std::vector<LogRecord>& records) {
  std::vector<LoggedBlock> blocks;
  for (const auto& r : records) {
    if (r.key == "block_start") {
      EXPECT_TRUE(blocks.empty() || blocks.back().stopped) << "block_start inside a block, line " << r.line_number;
      LoggedBlock block;
      block.first_epoch = r.metadata["first_epoch_num"].get<int64_t>();
      block.epoch_count = r.metadata["epoch_count"].get<int64_t>();
      blocks.push_back(block);
    } else if (r.key == "epoch_start") {
      EXPECT_FALSE(blocks.empty() || blocks.back().stopped) << "epoch outside a block, line " << r.line_number;
      if (!blocks.empty()) blocks.back().epochs.push_back(r.metadata["epoch_num"].get<int64_t>());
    } else if (r.key == "eval_accuracy") {
      if (!blocks.empty()) blocks.back().eval_epoch = r.metadata["epoch_num"].get<int64_t>();
    } else if (r.key == "block_stop") {
      EXPECT_FALSE(blocks.empty()) << "block_stop without block_start";
      if (blocks.empty()) continue;
      EXPECT_EQ(r.metadata["first_epoch_num"].get<int64_t>(), blocks.back().first_epoch);
      blocks.back().stopped = true;
    }
  }
  return blocks;
}

// Checks that every block is whole (its epochs are first..first+count-1, it ends in an evaluation of
// its last epoch and is stopped), and returns the blocks as (first_epoch_num, epoch_count).
std::vector<std::pair<int64_t, int64_t>> whole_blocks_of(const std::string& log_file) {
  std::vector<std::pair<int64_t, int64_t>> shape;
  for (const LoggedBlock& block : blocks_of(read_log_file(log_file).records)) {
    std::vector<int64_t> expected_epochs;
    for (int64_t e = block.first_epoch; e < block.first_epoch + block.epoch_count; ++e) expected_epochs.push_back(e);
    EXPECT_EQ(block.epochs, expected_epochs) << "block from epoch " << block.first_epoch;
    EXPECT_EQ(block.eval_epoch, block.first_epoch + block.epoch_count - 1) << "block from epoch " << block.first_epoch;
    EXPECT_TRUE(block.stopped) << "block from epoch " << block.first_epoch;
    shape.emplace_back(block.first_epoch, block.epoch_count);
  }
  return shape;
}

using Blocks = std::vector<std::pair<int64_t, int64_t>>;

TEST_F(EngineTest, BlocksAreWholeInTheLog) {
  ScriptedWorkload workload;
  workload.qualities = {0.1, 0.2, 0.3, 0.4, 0.5};
  const proto::RunResult result = run(workload, "max_epochs: 5\neval_every_epochs: 2\n");
  EXPECT_EQ(whole_blocks_of(result.log_file()), (Blocks{{1, 2}, {3, 2}, {5, 1}}));
}

TEST_F(EngineTest, TwoTargetsStopOnlyWhenBothHold) {
  ScriptedWorkload workload;
  workload.targets = {{"BBOX", 0.377}, {"SEGM", 0.339}};
  // Epoch 1: only SEGM holds; epoch 2: only BBOX; epoch 3: both (SEGM exactly at its target).
  workload.more_qualities = {{"BBOX", {0.30, 0.38, 0.39, 0.40}}, {"SEGM", {0.34, 0.33, 0.339, 0.35}}};
  const proto::RunResult result = run(workload, "max_epochs: 4\n");
  EXPECT_TRUE(result.converged());
  EXPECT_EQ(result.epochs_to_converge(), 3);
  EXPECT_EQ(workload.evaluated_epochs, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(result.evals_size(), 3);
  EXPECT_FALSE(result.evals(0).reached());
  EXPECT_FALSE(result.evals(1).reached());
  EXPECT_TRUE(result.evals(2).reached());
  EXPECT_DOUBLE_EQ(result.evals(1).quality().at("BBOX"), 0.38);
  EXPECT_DOUBLE_EQ(result.evals(1).quality().at("SEGM"), 0.33);
  EXPECT_DOUBLE_EQ(result.final_quality().at("BBOX"), 0.39);
  EXPECT_DOUBLE_EQ(result.final_quality().at("SEGM"), 0.339);
  ASSERT_EQ(result.quality_targets_size(), 2);
  EXPECT_EQ(result.quality_targets(0).name(), "BBOX");
  EXPECT_DOUBLE_EQ(result.quality_targets(0).value(), 0.377);
  EXPECT_EQ(result.quality_targets(1).name(), "SEGM");
  EXPECT_FALSE(result.quality_targets(1).strict());
  EXPECT_EQ(result.quality_name(), "BBOX");  // the first target, for single-target readers
  EXPECT_DOUBLE_EQ(result.quality_target(), 0.377);
  // The console summary shows every target.
  EXPECT_THAT(format_run_summary(result),
              ::testing::HasSubstr("reached BBOX 0.3900 (target >= 0.3770), SEGM 0.3390 (target >= 0.3390) in 3 epochs"));

  // eval_accuracy is an object of both values, as the Mask R-CNN reference logs it.
  std::vector<nlohmann::json> accuracies;
  for (const auto& r : records_of(result.log_file()))
    if (r.key == "eval_accuracy") accuracies.push_back(r.value);
  ASSERT_EQ(accuracies.size(), 3u);
  EXPECT_EQ(accuracies[1], (nlohmann::json{{"BBOX", 0.38}, {"SEGM", 0.33}}));
  EXPECT_EQ(accuracies[2], (nlohmann::json{{"BBOX", 0.39}, {"SEGM", 0.339}}));
}

TEST_F(EngineTest, TheDeviceIsTheEnginesAndTheRecordSaysWhatItMeasured) {
  ScriptedWorkload workload;
  workload.qualities = {0.5, 0.9};
  workload.skipped_steps_per_epoch = 2;
  const proto::RunResult result = run(workload, "device: cpu\nmax_epochs: 3\n");
  EXPECT_EQ(workload.device, torch::Device(torch::kCPU));
  EXPECT_EQ(result.device(), "cpu");
  EXPECT_EQ(result.skipped_steps(), 4);  // two epochs, two each
  // No GPU, no energy: the fields are absent (not zero), and the record says why.
  EXPECT_FALSE(result.has_energy_joules());
  EXPECT_FALSE(result.has_mean_power_watts());
  EXPECT_FALSE(result.has_samples_per_joule());
  EXPECT_EQ(result.energy_source(), "the run is on the CPU (NVML measures GPUs)");
  const std::string json = run_result_to_json(result);
  EXPECT_EQ(json.find("energy_joules"), std::string::npos);
  EXPECT_NE(json.find("\"skipped_steps\""), std::string::npos);
  EXPECT_THAT(format_run_summary(result), ::testing::HasSubstr("fp16 loss scaling skipped 4 steps"));
  // The GPU arithmetic settings are in the logged effective config.
  int configs = 0;
  for (const auto& r : records_of(result.log_file()))
    if (r.key == "mlharness_effective_config" && ++configs) {
      EXPECT_EQ(r.value["cudnn_benchmark"], true);
      EXPECT_EQ(r.value["allow_tf32"], true);
      EXPECT_EQ(r.value["device"], "cpu");
    }
  EXPECT_EQ(configs, 1);
}

TEST_F(EngineTest, CudaWithoutAGpuIsAUserErrorBeforeAnythingIsWritten) {
  if (visible_gpu_count() > 0) GTEST_SKIP() << "this machine has a GPU";
  ScriptedWorkload workload;
  workload.qualities = {0.9};
  EXPECT_THROW(run(workload, "device: cuda\n"), UserError);
  EXPECT_FALSE(fs::exists(out_ / "testbox"));
}

TEST_F(EngineTest, StrictTargetIsNotReachedByAnEqualValue) {
  ScriptedWorkload workload;
  workload.targets = {{"bleu/100", 0.25, /*strict=*/true}};
  workload.more_qualities = {{"bleu/100", {0.25, 0.2501, 0.26}}, {"bleu", {25.0, 25.01, 26.0}}};
  const proto::RunResult result = run(workload, "max_epochs: 3\n");
  EXPECT_TRUE(result.converged());
  EXPECT_EQ(result.epochs_to_converge(), 2);
  ASSERT_EQ(result.quality_targets_size(), 1);
  EXPECT_TRUE(result.quality_targets(0).strict());
  EXPECT_THAT(format_run_summary(result), ::testing::HasSubstr("reached bleu/100 0.2501 (target > 0.2500)"));
  // Values that are no target are kept in the record but not logged as eval_accuracy.
  EXPECT_DOUBLE_EQ(result.final_quality().at("bleu"), 25.01);
  std::vector<double> accuracies;
  for (const auto& r : records_of(result.log_file()))
    if (r.key == "eval_accuracy") accuracies.push_back(r.value.get<double>());
  EXPECT_EQ(accuracies, (std::vector<double>{0.25, 0.2501}));

  // The same value against a target that is not strict stops at once.
  ScriptedWorkload inclusive;
  inclusive.targets = {{"bleu/100", 0.25}};
  inclusive.more_qualities = workload.more_qualities;
  EXPECT_EQ(run(inclusive, "max_epochs: 3\n").epochs_to_converge(), 1);
}

TEST_F(EngineTest, EpochListEvaluatesAfterTheListedEpochs) {
  // SSD v0.7's 40, 50, 55, ... 80, divided by 5.
  ScriptedWorkload workload;
  workload.qualities.assign(16, 0.1);
  const proto::RunResult result = run(workload, "max_epochs: 16\neval_epochs: [8, 10, 11, 12, 13, 14, 15, 16]\n");
  EXPECT_FALSE(result.converged());
  EXPECT_EQ(workload.evaluated_epochs, (std::vector<int64_t>{8, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_EQ(whole_blocks_of(result.log_file()),
            (Blocks{{1, 8}, {9, 2}, {11, 1}, {12, 1}, {13, 1}, {14, 1}, {15, 1}, {16, 1}}));

  // Reaching the target at a listed epoch stops there.
  ScriptedWorkload reaching;
  reaching.qualities = {0, 0, 0, 0, 0, 0, 0, 0.5, 0.9, 0.79, 0.81, 0.9, 0.9, 0.9, 0.9, 0.9};
  const proto::RunResult early = run(reaching, "max_epochs: 16\neval_epochs: [8, 10, 11, 12, 13, 14, 15, 16]\n");
  EXPECT_EQ(early.epochs_to_converge(), 11);
  EXPECT_EQ(reaching.evaluated_epochs, (std::vector<int64_t>{8, 10, 11}));
  EXPECT_EQ(whole_blocks_of(early.log_file()), (Blocks{{1, 8}, {9, 2}, {11, 1}}));

  // Epochs past the list end in one block that the last epoch's evaluation closes.
  ScriptedWorkload past;
  past.qualities.assign(5, 0.1);
  const proto::RunResult after = run(past, "max_epochs: 5\neval_epochs: [2, 3]\n");
  EXPECT_EQ(past.evaluated_epochs, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(whole_blocks_of(after.log_file()), (Blocks{{1, 2}, {3, 1}, {4, 2}}));
}

TEST_F(EngineTest, OffsetMovesTheFirstEvaluation) {
  // NVIDIA's ResNet v0.7 eval_offset: 0-based epoch e evaluates when e % 4 == offset.
  ScriptedWorkload one;
  one.qualities.assign(10, 0.1);
  const proto::RunResult offset_one = run(one, "max_epochs: 10\neval_every_epochs: 4\neval_offset: 1\n");
  EXPECT_EQ(one.evaluated_epochs, (std::vector<int64_t>{2, 6, 10}));
  EXPECT_EQ(whole_blocks_of(offset_one.log_file()), (Blocks{{1, 2}, {3, 4}, {7, 4}}));

  ScriptedWorkload zero;
  zero.qualities.assign(10, 0.1);
  const proto::RunResult offset_zero = run(zero, "max_epochs: 10\neval_every_epochs: 4\neval_offset: 0\n");
  EXPECT_EQ(zero.evaluated_epochs, (std::vector<int64_t>{1, 5, 9, 10}));
  EXPECT_EQ(whole_blocks_of(offset_zero.log_file()), (Blocks{{1, 1}, {2, 4}, {6, 4}, {10, 1}}));

  // Without an offset: after epochs 4, 8, as configs/resnet50.yaml has always meant.
  ScriptedWorkload none;
  none.qualities.assign(10, 0.1);
  run(none, "max_epochs: 10\neval_every_epochs: 4\n");
  EXPECT_EQ(none.evaluated_epochs, (std::vector<int64_t>{4, 8, 10}));
}

TEST_F(EngineTest, BadScheduleSettingsFailBeforeAnythingIsWritten) {
  ScriptedWorkload workload;
  workload.qualities.assign(10, 0.9);
  const auto error_of = [&](const std::string& yaml) {
    try {
      run(workload, yaml);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of("eval_every_epochs: 4\neval_offset: 4\n"), ::testing::HasSubstr("eval_offset"));
  EXPECT_THAT(error_of("eval_every_epochs: 4\neval_offset: -2\n"), ::testing::HasSubstr("eval_offset"));
  EXPECT_THAT(error_of("eval_every_epochs: 0\n"), ::testing::HasSubstr("eval_every_epochs"));
  EXPECT_THAT(error_of("eval_epochs: [5, 4]\n"), ::testing::HasSubstr("strictly increasing"));
  EXPECT_THAT(error_of("eval_epochs: [4, 4]\n"), ::testing::HasSubstr("strictly increasing"));
  EXPECT_THAT(error_of("eval_epochs: [0, 4]\n"), ::testing::HasSubstr("eval_epochs"));
  EXPECT_THAT(error_of("eval_epochs: [-1]\n"), ::testing::HasSubstr("eval_epochs"));
  EXPECT_THAT(error_of("eval_epochs: [2, 4]\neval_every_epochs: 2\n"), ::testing::HasSubstr("two evaluation schedules"));
  EXPECT_THAT(error_of("eval_epochs: [2, 4]\neval_offset: 0\n"), ::testing::HasSubstr("two evaluation schedules"));
  EXPECT_THAT(error_of("eval_epochs: 4\n"), ::testing::HasSubstr("a list of integers"));
  EXPECT_FALSE(fs::exists(out_ / "testbox"));
}

// A Mask R-CNN-shaped run: the 0.7.0 closed maskrcnn hyperparameters, two targets, eval_accuracy objects.
ScriptedWorkload maskrcnn_shaped(std::vector<double> bbox, std::vector<double> segm) {
  ScriptedWorkload workload;
  workload.benchmark_name = "maskrcnn";
  workload.targets = {{"BBOX", 0.377}, {"SEGM", 0.339}};
  workload.more_qualities = {{"BBOX", std::move(bbox)}, {"SEGM", std::move(segm)}};
  workload.hyperparameters = {{"opt_base_learning_rate", 0.04},
                              {"opt_learning_rate_warmup_steps", 800},
                              {"opt_learning_rate_warmup_factor", 0.0001},
                              {"num_image_candidates", 2000},
                              {"opt_learning_rate_decay_factor", 0.1},
                              {"opt_learning_rate_decay_steps", {24000, 32000}},
                              {"min_image_size", 800},
                              {"max_image_size", 1333}};
  return workload;
}

// What `mlharness check` does with one log (launch/check_command.cpp), under the 0.7.0 rules.
CheckResult check_like_mlharness(const std::string& log_file) {
  const ParsedLog log = read_log_file(log_file);
  EXPECT_FALSE(log.records.empty());
  return check_log(log, "0.7.0");
}

std::string failures_of(const CheckResult& result) {
  std::string text;
  for (const RuleFailure& failure : result.failures) text += failure.to_string() + "\n";
  return text;
}

TEST_F(EngineTest, MaskRcnnShapedLogPassesTheComplianceChecker) {
  for (const char* division : {"closed", "open"}) {
    ScriptedWorkload workload = maskrcnn_shaped({0.20, 0.35, 0.378}, {0.19, 0.34, 0.3395});
    const proto::RunResult result =
        run(workload, std::string("max_epochs: 5\nsubmission_division: ") + division + "\n");
    ASSERT_TRUE(result.converged()) << division;
    EXPECT_EQ(result.epochs_to_converge(), 3);
    const CheckResult check = check_like_mlharness(result.log_file());
    EXPECT_EQ(check.benchmark, "maskrcnn");
    EXPECT_TRUE(check.passed) << division << ":\n" << failures_of(check);
  }
}

TEST_F(EngineTest, MaskRcnnShapedLogShortOfOneTargetFailsTheComplianceChecker) {
  // BBOX reaches its target at epoch 2, SEGM never does: the run goes on to max_epochs and aborts,
  // and the checker's target rule fails, as it does for the reference.
  ScriptedWorkload workload = maskrcnn_shaped({0.30, 0.38, 0.39}, {0.30, 0.33, 0.338});
  const proto::RunResult result = run(workload, "max_epochs: 3\nsubmission_division: closed\n");
  EXPECT_FALSE(result.converged());
  EXPECT_EQ(result.evals_size(), 3);
  const CheckResult check = check_like_mlharness(result.log_file());
  EXPECT_FALSE(check.passed);
  ASSERT_FALSE(check.failures.empty());
  EXPECT_EQ(check.failures.front().key, "eval_accuracy") << failures_of(check);
}

}  // namespace
}  // namespace mlh

namespace mlh {
namespace {

TEST_F(EngineTest, ResumedRunContinuesAtTheNextEpochAndStillCountsEpochsToConverge) {
  ScriptedWorkload first;
  first.qualities = {0.2, 0.5, 0.85};
  options_.checkpoint_every_epochs = 1;
  options_.checkpoints_kept = 5;
  const proto::RunResult whole = run(first, "max_epochs: 3\n");
  ASSERT_TRUE(whole.converged());
  const fs::path checkpoints = fs::path(whole.log_file()).replace_extension(".checkpoints");
  EXPECT_EQ(whole.last_checkpoint(), (checkpoints / "epoch_0003").string());
  for (const char* epoch : {"epoch_0001", "epoch_0002", "epoch_0003"}) EXPECT_TRUE(fs::exists(checkpoints / epoch)) << epoch;

  ScriptedWorkload second;
  second.qualities = first.qualities;
  options_.resume = (checkpoints / "epoch_0001").string();
  options_.seed.reset();  // taken from the checkpoint
  const proto::RunResult resumed = run(second, "max_epochs: 3\n");
  EXPECT_TRUE(resumed.converged());
  EXPECT_EQ(resumed.epochs_to_converge(), 3);
  EXPECT_EQ(resumed.seed(), 42u);
  EXPECT_EQ(second.evaluated_epochs, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(resumed.resumed_from().epoch(), 1);
  EXPECT_EQ(resumed.resumed_from().log_file(), whole.log_file());
  ASSERT_EQ(resumed.evals_size(), 3);  // epoch 1's from the checkpoint's record
  EXPECT_EQ(resumed.evals(0).epoch(), 1);
  EXPECT_EQ(resumed.evals(0).quality().at("score"), 0.2);
  EXPECT_NE(resumed.log_file(), whole.log_file());
  const auto records = records_of(resumed.log_file());
  bool said_resumed = false;
  for (const auto& r : records) {
    if (r.key == "mlharness_resumed_from") said_resumed = r.value["epoch"] == 1;
    if (r.key == "block_start") {
      EXPECT_GE(r.metadata["first_epoch_num"].get<int>(), 2);
    }
  }
  EXPECT_TRUE(said_resumed);
}

TEST_F(EngineTest, ResumeRefusesAnotherConfigSeedOrAFinishedRun) {
  ScriptedWorkload first;
  first.qualities = {0.2, 0.5, 0.85};
  options_.checkpoint_every_epochs = 1;
  const proto::RunResult whole = run(first, "max_epochs: 3\n");
  const fs::path checkpoints = fs::path(whole.log_file()).replace_extension(".checkpoints");
  // Each attempt with a fresh workload (binding a setting changes its default).
  auto resume_with = [&](const std::string& yaml) {
    ScriptedWorkload again;
    again.qualities = first.qualities;
    run(again, yaml);
  };
  options_.resume = (checkpoints / "epoch_0002").string();
  EXPECT_THAT(user_error_of([&] { resume_with("max_epochs: 3\nbatch: 8\n"); }),
              ::testing::HasSubstr("written with other settings: batch (8 here, 4 there)"));
  options_.seed = 43;
  EXPECT_THAT(user_error_of([&] { resume_with("max_epochs: 3\n"); }), ::testing::HasSubstr("is of seed 42, not 43"));
  options_.seed.reset();
  options_.resume = checkpoints.string();  // the newest: written as the run converged
  EXPECT_THAT(user_error_of([&] { resume_with("max_epochs: 3\n"); }), ::testing::HasSubstr("nothing to resume"));
}

TEST_F(EngineTest, SigtermStopsAfterTheStepAndFinishesTheLogAndRecord) {
  ScriptedWorkload workload;
  workload.qualities = {0.2, 0.5, 0.85};
  workload.raise_in_epoch = 2;
  options_.checkpoint_every_epochs = 1;
  const proto::RunResult result = run(workload, "max_epochs: 3\n");
  EXPECT_EQ(result.status(), "interrupted");
  EXPECT_EQ(result.interrupt_signal(), SIGTERM);
  EXPECT_FALSE(result.converged());
  EXPECT_EQ(result.epochs_run(), 2);
  EXPECT_THAT(result.abort_reason(), ::testing::HasSubstr("interrupted by SIGTERM in epoch 2; resume with --resume "));
  EXPECT_EQ(workload.evaluated_epochs, (std::vector<int64_t>{1}));
  EXPECT_TRUE(fs::exists(result.log_file())) << "the log is finished, not left .partial";
  const auto records = records_of(result.log_file());
  const LogRecord* stop = nullptr;
  for (const auto& r : records)
    if (r.key == "run_stop") stop = &r;
  ASSERT_NE(stop, nullptr);
  EXPECT_EQ(stop->metadata["status"], "aborted");
  EXPECT_EQ(stop->metadata["interrupted"], true);
  EXPECT_THAT(stop->metadata["reason"].get<std::string>(), ::testing::HasSubstr("interrupted by SIGTERM"));
}

TEST_F(EngineTest, RecordKeepsEachEpochsLossThroughputAndResidentMemory) {
  ScriptedWorkload workload;
  workload.qualities = {0.2, 0.5, 0.85};
  workload.losses = {0.9, 0.7, 0.5};
  const proto::RunResult result = run(workload, "max_epochs: 3\n");
  ASSERT_EQ(result.epochs_size(), 3);
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(result.epochs(e).epoch(), e + 1);
    EXPECT_EQ(result.epochs(e).mean_loss(), workload.losses[static_cast<size_t>(e)]);
    EXPECT_GT(result.epochs(e).resident_mib(), 1.0);
  }
}

}  // namespace
}  // namespace mlh
