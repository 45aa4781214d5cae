#include <gtest/gtest.h>

#include "compliance/olympic_mean.h"
#include "compliance/run_summary.h"
#include "tests/mllog_line.h"

namespace mlh {
namespace {

TEST(RunSummary, ReadsAnMllogRun) {
  const ParsedLog log = parse_log_text(
      R"(:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "submission_benchmark", "value": "gnmt", "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "submission_platform", "value": "1xCPU", "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "seed", "value": 7, "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "global_batch_size", "value": 16, "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "mlharness_effective_config", "value": {"data_source": "synthetic"}, "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 2000, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 3000, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.1, "metadata": {"file": "a", "lineno": 1, "epoch_num": 1}}
:::MLLOG {"namespace": "", "time_ms": 4000, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.3, "metadata": {"file": "a", "lineno": 1, "epoch_num": 2}}
:::MLLOG {"namespace": "", "time_ms": 122000, "event_type": "INTERVAL_END", "key": "run_stop", "value": null, "metadata": {"file": "a", "lineno": 1, "status": "success"}}
)");
  const RunSummary run = summarize_run(log);
  EXPECT_TRUE(run.usable());
  EXPECT_EQ(run.benchmark, "gnmt");
  EXPECT_EQ(run.platform, "1xCPU");
  EXPECT_EQ(run.seed, 7);
  EXPECT_EQ(run.global_batch_size, 16);
  EXPECT_EQ(run.effective_config["data_source"], "synthetic");
  ASSERT_EQ(run.evals.size(), 2u);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.epochs_to_converge, 2.0);
  EXPECT_DOUBLE_EQ(*run.time_to_train_minutes(), 2.0);
}

TEST(RunSummary, ReadsAV05RunCountingEpochsFromOne) {
  const ParsedLog log = parse_log_text(R"(:::MLPv0.5.0 ncf 1541734988.0 (ncf.py:242) run_start
:::MLPv0.5.0 ncf 1541734991.0 (ncf.py:312) input_batch_size: 1048576
:::MLPv0.5.0 ncf 1541734996.0 (ncf.py:450) eval_accuracy: {"epoch": 0, "value": 0.43}
:::MLPv0.5.0 ncf 1541734996.0 (ncf.py:451) eval_target: 0.635
:::MLPv0.5.0 ncf 1541734997.0 (ncf.py:450) eval_accuracy: {"epoch": 1, "value": 0.64}
:::MLPv0.5.0 ncf 1541735018.0 (ncf.py:284) run_stop: {"success": true}
:::MLPv0.5.0 ncf 1541735018.0 (ncf.py:284) run_final
)");
  const RunSummary run = summarize_run(log);
  EXPECT_TRUE(run.usable());
  EXPECT_EQ(run.benchmark, "ncf");
  EXPECT_EQ(run.global_batch_size, 1048576);
  EXPECT_EQ(run.target, 0.635);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.epochs_to_converge, 2.0);
  EXPECT_DOUBLE_EQ(*run.time_to_train_minutes(), 0.5);
}

TEST(RunSummary, AnAbortedOrUnfinishedRunDidNotConverge) {
  const RunSummary aborted = summarize_run(parse_log_text(
      R"(:::MLL 10.0 run_start: {"value": null, "metadata": {"file": "a", "lineno": 1}}
:::MLL 20.0 eval_accuracy: {"value": 0.2, "metadata": {"file": "a", "lineno": 1, "epoch_num": 1}}
:::MLL 70.0 run_stop: {"value": null, "metadata": {"file": "a", "lineno": 1, "status": "aborted"}}
)"));
  EXPECT_TRUE(aborted.usable());
  EXPECT_FALSE(aborted.converged);
  EXPECT_FALSE(aborted.epochs_to_converge.has_value());
  EXPECT_DOUBLE_EQ(*aborted.time_to_train_minutes(), 1.0);

  const RunSummary unfinished = summarize_run(parse_log_text(
      ":::MLL 10.0 run_start: {\"value\": null, \"metadata\": {\"file\": \"a\", \"lineno\": 1}}\n"));
  EXPECT_FALSE(unfinished.usable());
  EXPECT_EQ(unfinished.problems.front(), "no run_stop");
  EXPECT_FALSE(summarize_run(parse_log_text("hello\n")).usable());

  const RunSummary cut = summarize_run(parse_log_text(
      ":::MLL 10.0 run_start: {\"value\": null, \"metadata\": {\"file\": \"a\", \"lineno\": 1}}\n:::MLL 20.0 run_st"));
  ASSERT_FALSE(cut.usable());
  EXPECT_EQ(cut.problems.front(), "the log ends in the middle of a line");
}

// The line the engine writes between init_start and run_start when it resumes from a checkpoint.
constexpr const char* kResumedLine =
    R"(:::MLLOG {"namespace": "", "time_ms": 1500, "event_type": "POINT", "key": "mlharness_resumed_from", "value": {"epoch": 5, "checkpoint": "results/1xCPU/ncf/result_0.checkpoints/epoch_0005", "log_file": "results/1xCPU/ncf/result_0.txt"}, "metadata": {"file": "a", "lineno": 1}}
)";
constexpr const char* kResumedRun =
    R"(:::MLLOG {"namespace": "", "time_ms": 2000, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 3000, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.6, "metadata": {"file": "a", "lineno": 1, "epoch_num": 6}}
:::MLLOG {"namespace": "", "time_ms": 62000, "event_type": "INTERVAL_END", "key": "run_stop", "value": null, "metadata": {"file": "a", "lineno": 1, "status": "success"}}
)";

// The forms in which the published rounds said a run converged (issue 20).
TEST(RunSummary, AV05SuccessLoggedAsTheStringTrueConverged) {
  // Google's v0.5 TPU SSD logs: {"success": "true"} after mAP 0.2164 of 0.212.
  const RunSummary run = summarize_run(parse_log_text(R"(:::MLPv0.5.0 ssd 1000.0 (ssd_main.py:1) run_start
:::MLPv0.5.0 ssd 1001.0 (ssd_main.py:2) eval_target: 0.212
:::MLPv0.5.0 ssd 1500.0 (ssd_main.py:3) eval_accuracy: {"epoch": 48, "value": 0.21640}
:::MLPv0.5.0 ssd 1560.0 (ssd_main.py:4) run_stop: {"success": "true"}
)"));
  EXPECT_EQ(run.status, "success");
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.epochs_to_converge, 49.0);
  const RunSummary failed = summarize_run(parse_log_text(R"(:::MLPv0.5.0 ssd 1000.0 (ssd_main.py:1) run_start
:::MLPv0.5.0 ssd 1500.0 (ssd_main.py:3) eval_accuracy: {"epoch": 48, "value": 0.21640}
:::MLPv0.5.0 ssd 1560.0 (ssd_main.py:4) run_stop: {"success": "false"}
)"));
  EXPECT_EQ(failed.status, "aborted");
  EXPECT_FALSE(failed.converged);
}

TEST(RunSummary, ARunStopWithoutAVerdictIsJudgedByTheLastAccuracyAgainstTheLoggedTarget) {
  // NVIDIA's v0.5 ResNet-50 logs end in a bare `run_stop`.
  const std::string head = R"(:::MLPv0.5.0 resnet 1000.0 (mlperf_log_utils.py:49) run_start
:::MLPv0.5.0 resnet 1000.5 (mlperf_log_utils.py:49) eval_target: 0.749
:::MLPv0.5.0 resnet 1400.0 (mlperf_log_utils.py:49) eval_accuracy: {"epoch": 58, "value": 0.70166}
)";
  const RunSummary reached = summarize_run(parse_log_text(head + R"(:::MLPv0.5.0 resnet 1900.0 (mlperf_log_utils.py:49) eval_accuracy: {"epoch": 62, "value": 0.7518}
:::MLPv0.5.0 resnet 1900.5 (mlperf_log_utils.py:49) run_stop
)"));
  EXPECT_EQ(reached.status, "");
  EXPECT_TRUE(reached.converged);
  EXPECT_EQ(reached.epochs_to_converge, 63.0);
  const RunSummary short_of_it = summarize_run(parse_log_text(head + R"(:::MLPv0.5.0 resnet 1900.5 (mlperf_log_utils.py:49) run_stop
)"));
  EXPECT_FALSE(short_of_it.converged);
  EXPECT_FALSE(short_of_it.epochs_to_converge.has_value());
  // Without a logged target there is nothing to judge by.
  const RunSummary no_target = summarize_run(parse_log_text(R"(:::MLPv0.5.0 resnet 1000.0 (a.py:1) run_start
:::MLPv0.5.0 resnet 1900.0 (a.py:1) eval_accuracy: {"epoch": 62, "value": 0.7518}
:::MLPv0.5.0 resnet 1900.5 (a.py:1) run_stop
)"));
  EXPECT_FALSE(no_target.converged);
}

TEST(RunSummary, AFloat32AccuracyOneUlpShortOfTheTargetReachesIt) {
  // Two of NVIDIA's v0.5 DGX-2 GNMT runs stop with success at BLEU 21.799999 of 21.8.
  const RunSummary run = summarize_run(parse_log_text(R"(:::MLPv0.5.0 gnmt 1000.0 (train.py:1) run_start
:::MLPv0.5.0 gnmt 1000.1 (train.py:2) eval_target: 21.8
:::MLPv0.5.0 gnmt 1600.0 (train.py:3) eval_accuracy: {"epoch": 3, "value": 21.799999}
:::MLPv0.5.0 gnmt 1600.5 (train.py:4) run_stop: {"success": true}
)"));
  EXPECT_TRUE(run.converged);
  EXPECT_TRUE(reaches_target(21.799999, 21.8));
  EXPECT_FALSE(reaches_target(21.7999, 21.8));
  EXPECT_TRUE(reaches_target(0.749, 0.749));
}

TEST(RunSummary, GooglesMaskBenchmarkIsMaskrcnnAndMlharnessLogsAreMarkedAsOwnRuns) {
  const RunSummary google = summarize_run(parse_log_text(
      R"(:::MLL 1559000000.0 submission_benchmark: {"value": "mask", "metadata": {"lineno": 0, "file": "N/A"}}
:::MLL 1559000001.0 run_start: {"value": null, "metadata": {"lineno": 1, "file": "m.py"}}
:::MLL 1559000601.0 run_stop: {"value": null, "metadata": {"lineno": 2, "file": "m.py", "status": "success"}}
)"));
  EXPECT_EQ(google.logged_benchmark, "mask");
  EXPECT_EQ(google.benchmark, "maskrcnn");
  EXPECT_FALSE(google.written_by_mlharness);
  const RunSummary own = summarize_run(parse_log_text(
      R"(:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "submission_benchmark", "value": "ncf", "metadata": {"file": "a", "lineno": 1}}
:::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", "key": "mlharness_precision", "value": "fp32", "metadata": {"file": "a", "lineno": 1}}
)"));
  EXPECT_TRUE(own.written_by_mlharness);
}

// Mask R-CNN's eval_accuracy is an object: the run reached its target only when box AP reached 0.377
// and mask AP 0.339 (MLPerf's, as the logs name none), whatever run_stop says.
std::string maskrcnn_log(const nlohmann::json& last_accuracy, const std::string& status, const nlohmann::json& target = nullptr) {
  std::string text = mllog_line("submission_benchmark", "maskrcnn", 0);
  if (!target.is_null()) text += mllog_line("eval_target", target, 1);
  text += mllog_line("run_start", nullptr, 1000) +
          mllog_line("eval_accuracy", {{"BBOX", 0.301}, {"SEGM", 0.282}}, 2000, {{"epoch_num", 1}}) +
          mllog_line("eval_accuracy", last_accuracy, 3000, {{"epoch_num", 2}});
  if (!status.empty()) text += mllog_line("run_stop", nullptr, 4000, {{"status", status}});
  else text += mllog_line("run_stop", nullptr, 4000);
  return text;
}

TEST(RunSummary, MaskRcnnConvergesOnlyWhenBoxAndMaskApBothReachTheirTargets) {
  const RunSummary both = summarize_run(parse_log_text(maskrcnn_log({{"BBOX", 0.3781}, {"SEGM", 0.3415}}, "success")));
  ASSERT_EQ(both.member_targets.size(), 2u);
  EXPECT_EQ(both.member_targets[0].name, "BBOX");
  EXPECT_EQ(both.member_targets[1].value, 0.339);
  EXPECT_TRUE(both.converged);
  EXPECT_EQ(both.epochs_to_converge, 2.0);

  const RunSummary box_only = summarize_run(parse_log_text(maskrcnn_log({{"BBOX", 0.3781}, {"SEGM", 0.3385}}, "success")));
  EXPECT_FALSE(box_only.converged) << "run_stop says success, but mask AP 0.3385 < 0.339";
  EXPECT_EQ(members_below_target(box_only.evals.back().value, box_only.member_targets), "SEGM 0.3385 < 0.339");
  const RunSummary mask_only = summarize_run(parse_log_text(maskrcnn_log({{"BBOX", 0.3765}, {"SEGM", 0.3415}}, "success")));
  EXPECT_FALSE(mask_only.converged);
  const RunSummary no_segm = summarize_run(parse_log_text(maskrcnn_log({{"BBOX", 0.3781}}, "success")));
  EXPECT_FALSE(no_segm.converged);
  EXPECT_EQ(members_below_target(no_segm.evals.back().value, no_segm.member_targets), "SEGM missing");
  // Google's v0.6 logs: [box AP, mask AP]; a run_stop without a verdict is judged by the targets.
  EXPECT_TRUE(summarize_run(parse_log_text(maskrcnn_log(nlohmann::json::array({0.3793, 0.3417}), ""))).converged);
  EXPECT_FALSE(summarize_run(parse_log_text(maskrcnn_log(nlohmann::json::array({0.3793, 0.3301}), ""))).converged);
  EXPECT_FALSE(summarize_run(parse_log_text(maskrcnn_log({{"BBOX", 0.3781}, {"SEGM", 0.3415}}, "aborted"))).converged);
  // An eval_target object the log names wins over MLPerf's (a mini config's lower targets).
  const RunSummary mini = summarize_run(
      parse_log_text(maskrcnn_log({{"BBOX", 0.05}, {"SEGM", 0.04}}, "success", {{"BBOX", 0.05}, {"SEGM", 0.04}})));
  EXPECT_TRUE(mini.converged);
  EXPECT_EQ(mini.member_targets[0].value, 0.05);
}

TEST(RunSummary, OneNumberAccuraciesHaveNoMemberTargets) {
  const RunSummary run = summarize_run(parse_log_text(mllog_line("submission_benchmark", "maskrcnn", 0) +
                                                      mllog_line("run_start", nullptr, 1000) +
                                                      mllog_line("eval_accuracy", 0.38, 2000, {{"epoch_num", 1}}) +
                                                      mllog_line("run_stop", nullptr, 4000, {{"status", "success"}})));
  EXPECT_TRUE(run.member_targets.empty());
  EXPECT_TRUE(run.converged);
}

TEST(RunSummary, ReadsWhereAResumedRunResumedFrom) {
  const RunSummary normal = summarize_run(parse_log_text(kResumedRun));
  EXPECT_FALSE(normal.resumed);
  EXPECT_FALSE(normal.resumed_from_epoch.has_value());

  const RunSummary run = summarize_run(parse_log_text(std::string(kResumedLine) + kResumedRun));
  EXPECT_TRUE(run.usable());
  EXPECT_TRUE(run.converged) << "the log itself reached its target; scoring and checking reject it";
  EXPECT_EQ(run.epochs_to_converge, 6.0);
  EXPECT_TRUE(run.resumed);
  EXPECT_EQ(run.resumed_from_epoch, 5);
  EXPECT_EQ(run.resumed_from_checkpoint, "results/1xCPU/ncf/result_0.checkpoints/epoch_0005");
  EXPECT_EQ(run.resumed_from_log, "results/1xCPU/ncf/result_0.txt");
  EXPECT_EQ(resumed_run_reason(read_resumed_from(nlohmann::json::parse(
                R"({"epoch": 5, "checkpoint": "results/1xCPU/ncf/result_0.checkpoints/epoch_0005"})"))),
            "resumed from a checkpoint after epoch 5 (results/1xCPU/ncf/result_0.checkpoints/epoch_0005): a resumed "
            "run's time to train is not a compliant result");
}

TEST(RunSummary, AResumedLineWithoutItsFieldsStillMarksTheRunResumed) {
  const RunSummary run = summarize_run(parse_log_text(
      R"(:::MLLOG {"namespace": "", "time_ms": 1500, "event_type": "POINT", "key": "mlharness_resumed_from", "value": null, "metadata": {"file": "a", "lineno": 1}}
)" + std::string(kResumedRun)));
  EXPECT_TRUE(run.resumed);
  EXPECT_FALSE(run.resumed_from_epoch.has_value());
  EXPECT_EQ(run.resumed_from_checkpoint, "");
  EXPECT_EQ(resumed_run_reason(read_resumed_from(nullptr)),
            "resumed from a checkpoint: a resumed run's time to train is not a compliant result");
  EXPECT_EQ(read_resumed_from(nlohmann::json::parse(R"({"epoch": "7"})")).epoch, 7);
}

TEST(OlympicMean, DropsFastestAndSlowestAndCountsOneFailureAsTheSlowest) {
  EXPECT_DOUBLE_EQ(*olympic_mean({5.0, 1.0, 3.0, 4.0, 2.0}), 3.0);
  EXPECT_DOUBLE_EQ(*olympic_mean({5.0, 1.0, std::nullopt, 4.0, 2.0}), (2.0 + 4.0 + 5.0) / 3);
  EXPECT_FALSE(olympic_mean({5.0, std::nullopt, std::nullopt, 4.0, 2.0}).has_value());
  EXPECT_FALSE(olympic_mean({5.0, 1.0}).has_value());
}

}  // namespace
}  // namespace mlh
