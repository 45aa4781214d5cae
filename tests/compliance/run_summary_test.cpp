#include <gtest/gtest.h>

#include "compliance/olympic_mean.h"
#include "compliance/run_summary.h"

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
