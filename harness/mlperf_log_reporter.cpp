#include "harness/mlperf_log_reporter.h"

#include <filesystem>
#include <utility>

#include "compliance/mllog_keys.h"

namespace mlh {

MlperfLogReporter::MlperfLogReporter(MLLogger::Options log_options, std::string log_file,
                                     std::function<int64_t()> clock)
    : clock_(std::move(clock)),
      partial_log_(log_options.log_path),
      log_file_(std::move(log_file)),
      logger_([&] {
        log_options.clock_ms = [this] { return next_time_ms(); };
        return std::move(log_options);
      }()) {}

int64_t MlperfLogReporter::next_time_ms() {
  if (!pinned_ms_) return clock_();
  return std::exchange(pinned_ms_, std::nullopt).value();
}

void MlperfLogReporter::run_described(const RunFacts& facts) {
  logger_.event(keys::kSubmissionBenchmark, facts.benchmark);
  logger_.event(keys::kSubmissionOrg, facts.submission_org);
  logger_.event(keys::kSubmissionDivision, facts.submission_division);
  logger_.event(keys::kSubmissionStatus, facts.submission_status);
  logger_.event(keys::kSubmissionPlatform, facts.platform_label);
  logger_.event(keys::kLaunch, facts.layout.to_json());
  logger_.event(keys::kCacheClear, facts.cache_cleared);
}

void MlperfLogReporter::init_started(const RunFacts& facts) {
  at(facts.init_start_ms);
  logger_.start(keys::kInitStart);
  logger_.event(keys::kSeed, facts.seed);
  logger_.event(keys::kEffectiveConfig, facts.effective_config);
}

void MlperfLogReporter::initialized(const RunFacts& facts) {
  logger_.event(keys::kGlobalBatchSize, facts.info.global_batch_size);
  logger_.event(keys::kGradientAccumulationSteps, 1);
  logger_.event(keys::kTrainSamples, facts.info.train_samples);
  logger_.event(keys::kEvalSamples, facts.info.eval_samples);
  logger_.event(keys::kModelParameterCount, facts.info.parameter_count);
  logger_.event(keys::kPrecision, facts.precision);
  if (!facts.precision_note.empty()) logger_.event(keys::kPrecisionNote, facts.precision_note);
  for (const auto& [name, value] : facts.baselines)
    logger_.event(keys::kQualityBaseline, {{"name", name}, {"value", value}});
}

void MlperfLogReporter::resumed(const RunFacts& facts) {
  const ResumeFacts& from = *facts.resumed;
  logger_.event(keys::kResumedFrom, {{"epoch", from.epoch}, {"checkpoint", from.checkpoint}, {"log_file", from.log_file}});
}

void MlperfLogReporter::run_started(const RunFacts& facts) {
  at(facts.init_stop_ms);
  logger_.end(keys::kInitStop);
  at(facts.run_start_ms);
  logger_.start(keys::kRunStart);
}

void MlperfLogReporter::block_started(const RunFacts&, const EvalBlock& block) {
  logger_.start(keys::kBlockStart,
                {{keys::kMetaFirstEpochNum, block.first_epoch}, {keys::kMetaEpochCount, block.epoch_count}});
}

void MlperfLogReporter::epoch_started(const RunFacts&, int64_t epoch) {
  logger_.start(keys::kEpochStart, {{keys::kMetaEpochNum, epoch}});
}

void MlperfLogReporter::epoch_ended(const RunFacts& facts) {
  const EpochFacts& epoch = facts.epochs.back();
  logger_.end(keys::kEpochStop, {{keys::kMetaEpochNum, epoch.epoch}});
  logger_.event(keys::kTrainThroughput, epoch.samples_per_second, {{keys::kMetaEpochNum, epoch.epoch}});
  logger_.event(keys::kTrainLoss, epoch.mean_loss, {{keys::kMetaEpochNum, epoch.epoch}});
}

void MlperfLogReporter::eval_started(const RunFacts&, int64_t epoch) {
  logger_.start(keys::kEvalStart, {{keys::kMetaEpochNum, epoch}});
}

void MlperfLogReporter::evaluated(const RunFacts& facts, const EvalBlock& block) {
  const EvalFacts& eval = facts.evals.back();
  at(eval.at_ms);
  logger_.event(keys::kEvalAccuracy, eval_accuracy_value(eval.quality, facts.info.targets),
                {{keys::kMetaEpochNum, eval.epoch}});
  logger_.end(keys::kEvalStop, {{keys::kMetaEpochNum, eval.epoch}});
  logger_.end(keys::kBlockStop, {{keys::kMetaFirstEpochNum, block.first_epoch}});
}

void MlperfLogReporter::block_abandoned(const RunFacts&, const EvalBlock& block) {
  logger_.end(keys::kBlockStop, {{keys::kMetaFirstEpochNum, block.first_epoch}});
}

void MlperfLogReporter::run_stopped(const RunFacts& facts) {
  nlohmann::ordered_json stop_metadata = {{keys::kMetaStatus, facts.log_status()}};
  if (!facts.converged) stop_metadata["reason"] = facts.abort_reason;
  if (facts.interrupt_signal != 0) stop_metadata["interrupted"] = true;
  at(facts.run_stop_ms);
  logger_.end(keys::kRunStop, stop_metadata);
  logger_.event(keys::kTrainThroughput, facts.steady_samples_per_second, {{"steady_state", true}});
}

void MlperfLogReporter::finished(const RunFacts&) {
  const std::lock_guard<std::mutex> lock(ending_);
  end_log(/*keep=*/true);
}

void MlperfLogReporter::abandoned() {
  const std::lock_guard<std::mutex> lock(ending_);
  end_log(/*keep=*/false);
}

void MlperfLogReporter::end_log(bool keep) {
  if (ended_) return;
  ended_ = true;
  logger_.close();
  if (partial_log_.empty()) return;
  if (keep) {
    std::filesystem::rename(partial_log_, log_file_);
  } else {
    std::error_code ignored;
    std::filesystem::remove(partial_log_, ignored);
  }
}

}  // namespace mlh
