// The reporters driven by hand-made facts: the MLPerf log's events in order with the facts' times,
// the run record's fields, and the console lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/console_reporter.h"
#include "harness/mlperf_log_reporter.h"
#include "harness/results.h"
#include "harness/run_record_reporter.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A two-epoch run on one CPU rank: evaluated after each epoch, converged at the second.
RunFacts two_epoch_run() {
  RunFacts facts;
  facts.workload = "ncf";
  facts.benchmark = "ncf";
  facts.config_label = "mini";
  facts.seed = 7;
  facts.platform_label = "cpu";
  facts.device_model = "Test CPU";
  facts.device_count = 1;
  facts.world_size = 1;
  facts.layout.launcher = "single process";
  facts.layout.placements = {{0, "host", 0, "cpu", 0}};
  facts.threads_per_rank = 2;
  facts.communicator = "mpi";
  facts.mlharness_version = "1.0";
  facts.submission_org = "org";
  facts.submission_division = "open";
  facts.submission_status = "research";
  facts.cache_cleared = true;
  facts.effective_config = {{"max_epochs", 2}};
  facts.info.global_batch_size = 256;
  facts.info.train_samples = 1000;
  facts.info.eval_samples = 100;
  facts.info.parameter_count = 42;
  facts.info.targets = {{"hr@10", 0.5, false}};
  facts.precision = "fp32";
  facts.baselines = {{"popularity", 0.125}};
  facts.init_start_ms = 1000;
  facts.init_stop_ms = 1500;
  facts.run_start_ms = 2000;
  return facts;
}

// Drives `reporter` through the whole run, filling in the facts as the driver does.
void drive(RunReporter& reporter, RunFacts& facts) {
  reporter.run_described(facts);
  reporter.init_started(facts);
  reporter.initialized(facts);
  reporter.run_started(facts);
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    const EvalBlock block{epoch, 1};
    reporter.block_started(facts, block);
    reporter.epoch_started(facts, epoch);
    facts.epochs.push_back({epoch, 0.5 / epoch, 1000.0 * epoch, 100, 50});
    reporter.epoch_ended(facts);
    reporter.eval_started(facts, epoch);
    EvalFacts eval;
    eval.epoch = epoch;
    eval.at_ms = 2000 + 1500 * epoch;
    eval.run_seconds = 1.5 * epoch;
    eval.reached = epoch == 2;
    eval.quality.values = {{"hr@10", 0.25 * epoch}};
    facts.evals.push_back(eval);
    facts.final_quality = eval.quality;
    facts.converged = eval.reached;
    reporter.evaluated(facts, block);
  }
  facts.epochs_run = 2;
  facts.samples_trained = 2000;
  facts.stopped = true;
  facts.run_stop_ms = 5500;
  facts.steady_samples_per_second = 1500;
  facts.energy.gpu_source = "the run is on the CPU (NVML measures GPUs)";
  facts.energy.cpu_source = "rapl: package-0";
  facts.energy.cpu_joules = 35.0;
  reporter.run_stopped(facts);
  reporter.finished(facts);
}

fs::path test_folder(const std::string& name) {
  const fs::path folder = fs::path(::testing::TempDir()) / ("run_reporters_test_" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

std::vector<nlohmann::json> read_log(const fs::path& path) {
  std::vector<nlohmann::json> events;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    EXPECT_EQ(line.rfind(":::MLLOG ", 0), 0u) << line;
    events.push_back(nlohmann::json::parse(line.substr(9)));
  }
  return events;
}

TEST(MlperfLogReporter, LogsTheRunsEventsInOrderAtTheFactsTimes) {
  const fs::path folder = test_folder("log");
  MLLogger::Options options;
  options.log_path = (folder / "result_0.txt.partial").string();
  int64_t clock = 10'000;
  MlperfLogReporter reporter(options, (folder / "result_0.txt").string(), [&] { return clock++; });
  RunFacts facts = two_epoch_run();
  drive(reporter, facts);
  EXPECT_FALSE(fs::exists(folder / "result_0.txt.partial"));

  const std::vector<nlohmann::json> events = read_log(folder / "result_0.txt");
  std::vector<std::string> keys;
  for (const auto& event : events) keys.push_back(event["key"]);
  const std::vector<std::string> epoch = {"block_start", "epoch_start", "epoch_stop", "mlharness_train_samples_per_second",
                                          "mlharness_train_loss", "eval_start", "eval_accuracy", "eval_stop", "block_stop"};
  std::vector<std::string> expected = {"submission_benchmark", "submission_org", "submission_division",
                                       "submission_status", "submission_platform", "mlharness_launch", "cache_clear",
                                       "init_start", "seed", "mlharness_effective_config", "global_batch_size",
                                       "gradient_accumulation_steps", "train_samples", "eval_samples",
                                       "mlharness_model_parameter_count", "mlharness_precision",
                                       "mlharness_quality_baseline", "init_stop", "run_start"};
  expected.insert(expected.end(), epoch.begin(), epoch.end());
  expected.insert(expected.end(), epoch.begin(), epoch.end());
  expected.insert(expected.end(), {"run_stop", "mlharness_train_samples_per_second"});
  ASSERT_EQ(keys, expected);

  auto find = [&](const std::string& key, size_t from = 0) {
    for (size_t i = from; i < events.size(); ++i)
      if (events[i]["key"] == key) return i;
    ADD_FAILURE() << key;
    return events.size();
  };
  // The moments the facts hold are logged at the facts' times.
  EXPECT_EQ(events[find("init_start")]["time_ms"], 1000);
  EXPECT_EQ(events[find("init_stop")]["time_ms"], 1500);
  EXPECT_EQ(events[find("run_start")]["time_ms"], 2000);
  const size_t first_eval = find("eval_accuracy");
  EXPECT_EQ(events[first_eval]["time_ms"], 3500);
  EXPECT_EQ(events[first_eval]["value"], 0.25);
  EXPECT_EQ(events[first_eval]["metadata"]["epoch_num"], 1);
  EXPECT_EQ(events[find("eval_accuracy", first_eval + 1)]["time_ms"], 5000);
  const nlohmann::json& stop = events[find("run_stop")];
  EXPECT_EQ(stop["time_ms"], 5500);
  EXPECT_EQ(stop["metadata"]["status"], "success");
  EXPECT_FALSE(stop["metadata"].contains("reason"));
  // Other events take the clock's time.
  EXPECT_GE(events[find("epoch_start")]["time_ms"], 10'000);
  EXPECT_EQ(events[find("seed")]["value"], 7);
  EXPECT_EQ(events[find("mlharness_quality_baseline")]["value"], (nlohmann::json{{"name", "popularity"}, {"value", 0.125}}));
  EXPECT_EQ(events[find("block_start")]["metadata"]["epoch_count"], 1);
  EXPECT_EQ(events.back()["value"], 1500);
  EXPECT_EQ(events.back()["metadata"]["steady_state"], true);
}

TEST(MlperfLogReporter, AnAbortedRunSaysWhyAndAnAbandonedOneLeavesNoLog) {
  const fs::path folder = test_folder("aborted");
  MLLogger::Options options;
  options.log_path = (folder / "result_0.txt.partial").string();
  MlperfLogReporter reporter(options, (folder / "result_0.txt").string(), [] { return int64_t{1}; });
  RunFacts facts = two_epoch_run();
  facts.stopped = true;
  facts.abort_reason = "interrupted by SIGINT in epoch 1";
  facts.interrupt_signal = 2;
  reporter.run_stopped(facts);
  std::ifstream in(folder / "result_0.txt.partial");
  std::string line;
  std::getline(in, line);
  const nlohmann::json stop = nlohmann::json::parse(line.substr(9));
  EXPECT_EQ(stop["metadata"]["status"], "aborted");
  EXPECT_EQ(stop["metadata"]["reason"], "interrupted by SIGINT in epoch 1");
  EXPECT_EQ(stop["metadata"]["interrupted"], true);
  reporter.abandoned();
  EXPECT_TRUE(fs::is_empty(folder));
}

TEST(RunRecordReporter, WritesTheRecordOfTheFacts) {
  const fs::path folder = test_folder("record");
  RunRecordReporter reporter((folder / "result_0.json").string());
  RunFacts facts = two_epoch_run();
  facts.log_file = (folder / "result_0.txt").string();
  drive(reporter, facts);
  const proto::RunResult record = run_result_from_json([&] {
    std::ifstream in(folder / "result_0.json");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }());
  EXPECT_EQ(record.workload(), "ncf");
  EXPECT_EQ(record.seed(), 7u);
  EXPECT_EQ(record.device(), "cpu");
  EXPECT_EQ(record.launcher(), "single process");
  ASSERT_EQ(record.placement_size(), 1);
  EXPECT_EQ(record.placement(0).host(), "host");
  EXPECT_EQ(record.global_batch_size(), 256);
  EXPECT_EQ(record.quality_name(), "hr@10");
  EXPECT_DOUBLE_EQ(record.quality_target(), 0.5);
  EXPECT_DOUBLE_EQ(record.baselines().at("popularity"), 0.125);
  EXPECT_EQ(record.effective_config_json(), R"({"max_epochs":2})");
  EXPECT_DOUBLE_EQ(record.init_seconds(), 0.5);
  EXPECT_DOUBLE_EQ(record.time_to_train_seconds(), 3.5);
  EXPECT_TRUE(record.converged());
  EXPECT_EQ(record.status(), "success");
  EXPECT_EQ(record.epochs_to_converge(), 2);
  EXPECT_EQ(record.epochs_run(), 2);
  ASSERT_EQ(record.epochs_size(), 2);
  EXPECT_DOUBLE_EQ(record.epochs(1).mean_loss(), 0.25);
  EXPECT_DOUBLE_EQ(record.epochs(1).resident_mib(), 100);
  ASSERT_EQ(record.evals_size(), 2);
  EXPECT_DOUBLE_EQ(record.evals(0).run_seconds(), 1.5);
  EXPECT_FALSE(record.evals(0).reached());
  EXPECT_TRUE(record.evals(1).reached());
  EXPECT_DOUBLE_EQ(record.final_quality().at("hr@10"), 0.5);
  EXPECT_DOUBLE_EQ(record.train_samples_per_second(), 1500);
  EXPECT_FALSE(record.has_energy_joules());
  EXPECT_DOUBLE_EQ(record.cpu_energy_joules(), 35.0);
  EXPECT_EQ(record.energy_measured(), "cpu");
  EXPECT_DOUBLE_EQ(record.mean_power_watts(), 10.0);
}

TEST(RunRecordReporter, TheRecordOfARunStillGoingHasNoOutcome) {
  RunFacts facts = two_epoch_run();
  facts.epochs.push_back({1, 0.5, 1000});
  const proto::RunResult record = run_record(facts);
  EXPECT_EQ(record.status(), "");
  EXPECT_EQ(record.epochs_run(), 0);
  EXPECT_EQ(record.epochs_size(), 1);

  RunFacts resumed = two_epoch_run();
  take_earlier_progress(record, resumed);
  EXPECT_EQ(run_result_to_json(run_record(resumed)), run_result_to_json(record));
}

TEST(ConsoleReporter, SaysWhatRunsTheEvaluationsAndAResume) {
  std::FILE* out = std::tmpfile();
  ThroughputMeter meter(0);
  Progress progress(meter, {true, false, 10.0, out, {}, true});
  ConsoleReporter reporter(progress);
  RunFacts facts = two_epoch_run();
  facts.precision_note = "amp runs as bf16 here";
  facts.resumed = ResumeFacts{"ckpt/epoch_0001", 1, "old.txt", {"ckpt/epoch_0002: bad CRC"}};
  reporter.resumed(facts);
  facts.abort_reason = "interrupted by SIGINT in epoch 3";
  drive(reporter, facts);
  reporter.interrupted(facts);

  std::rewind(out);
  std::vector<std::string> lines;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out)) lines.emplace_back(buffer);
  std::fclose(out);
  EXPECT_THAT(lines,
              ElementsAre("checkpoint refused: ckpt/epoch_0002: bad CRC\n",
                          "resuming after epoch 1 from ckpt/epoch_0001 (a resumed run's time to train is not a "
                          "compliant result)\n",
                          HasSubstr("amp runs as bf16 here"),
                          "ncf seed 7 on cpu (1 rank, 2 threads each): target hr@10 >= 0.5000; popularity 0.1250\n",
                          "epoch 1: hr@10 0.2500 (target >= 0.5000)  loss 0.5000  [1.5 s]\n",
                          "epoch 2: hr@10 0.5000 (target >= 0.5000) reached  loss 0.2500  [3.0 s]\n",
                          "interrupted by SIGINT in epoch 3\n"));
}

}  // namespace
}  // namespace mlh
