#include "harness/run_record_reporter.h"

#include "harness/results.h"

namespace mlh {

namespace {

// Who ran what, where, and what the workload's init said.
void record_setup(const RunFacts& facts, proto::RunResult& result) {
  result.set_workload(facts.workload);
  result.set_benchmark(facts.benchmark);
  result.set_seed(facts.seed);
  result.set_platform(facts.platform_label);
  result.set_device_model(facts.device_model);
  result.set_device_count(facts.device_count);
  result.set_device(facts.on_cuda ? "cuda" : "cpu");
  result.set_world_size(facts.world_size);
  result.set_launcher(facts.layout.launcher);
  result.set_node_count(facts.layout.nodes);
  result.set_ranks_per_node(facts.layout.ranks_per_node);
  result.set_gpus_per_node(facts.layout.gpus_per_node);
  for (const RankPlacement& placement : facts.layout.placements) {
    proto::RankPlacement* record = result.add_placement();
    record->set_rank(placement.rank);
    record->set_host(placement.host);
    record->set_local_rank(placement.local_rank);
    record->set_device(placement.device);
    record->set_visible_gpus(placement.visible_gpus);
  }
  result.set_config(facts.config_label);
  result.set_log_file(facts.log_file);
  result.set_threads_per_rank(facts.threads_per_rank);
  result.set_communicator(facts.communicator);
  result.set_mlharness_version(facts.mlharness_version);
  result.set_start_time_utc(facts.start_time_utc);
  result.set_effective_config_json(facts.effective_config.dump());
}

void record_workload_info(const RunFacts& facts, proto::RunResult& result) {
  const WorkloadInfo& info = facts.info;
  result.set_global_batch_size(info.global_batch_size);
  result.set_precision(facts.precision);
  result.set_precision_note(facts.precision_note);
  if (!info.targets.empty()) {
    result.set_quality_name(info.targets.front().name);
    result.set_quality_target(info.targets.front().value);
  }
  for (const QualityTarget& target : info.targets) {
    auto* record = result.add_quality_targets();
    record->set_name(target.name);
    record->set_value(target.value);
    record->set_strict(target.strict);
  }
  for (const auto& [name, value] : info.schedule) (*result.mutable_schedule())[name] = value;
  for (const auto& [name, value] : facts.baselines) (*result.mutable_baselines())[name] = value;
}

void record_progress(const RunFacts& facts, proto::RunResult& result) {
  if (facts.resumed) {
    result.mutable_resumed_from()->set_checkpoint(facts.resumed->checkpoint);
    result.mutable_resumed_from()->set_epoch(facts.resumed->epoch);
    result.mutable_resumed_from()->set_log_file(facts.resumed->log_file);
  }
  result.set_init_seconds(facts.init_seconds());
  for (const EpochFacts& epoch : facts.epochs) {
    auto* figures = result.add_epochs();
    figures->set_epoch(epoch.epoch);
    figures->set_mean_loss(epoch.mean_loss);
    figures->set_samples_per_second(epoch.samples_per_second);
    figures->set_resident_mib(epoch.resident_mib);
    figures->set_heap_in_use_mib(epoch.heap_in_use_mib);
  }
  for (const EvalFacts& eval : facts.evals) {
    auto* point = result.add_evals();
    point->set_epoch(eval.epoch);
    point->set_run_seconds(eval.run_seconds);
    point->set_reached(eval.reached);
    for (const auto& [name, value] : eval.quality.values) (*point->mutable_quality())[name] = value;
  }
  result.set_skipped_steps(facts.skipped_steps);
  result.set_last_checkpoint(facts.last_checkpoint);
  result.set_epochs_to_converge(facts.epochs_to_converge());
}

void record_outcome(const RunFacts& facts, proto::RunResult& result) {
  result.set_converged(facts.converged);
  result.set_status(facts.record_status());
  result.set_interrupt_signal(facts.interrupt_signal);
  result.set_abort_reason(facts.abort_reason);
  result.set_epochs_run(facts.epochs_run);
  result.set_time_to_train_seconds(facts.time_to_train_seconds());
  result.set_train_samples_per_second(facts.steady_samples_per_second);
  record_energy(result, facts.energy, facts.samples_trained);
  for (const auto& [name, value] : facts.final_quality.values) (*result.mutable_final_quality())[name] = value;
}

}  // namespace

proto::RunResult run_record(const RunFacts& facts) {
  proto::RunResult result;
  record_setup(facts, result);
  record_workload_info(facts, result);
  record_progress(facts, result);
  if (facts.stopped) record_outcome(facts, result);
  return result;
}

void take_earlier_progress(const proto::RunResult& before, RunFacts& facts) {
  for (const proto::EpochRecord& record : before.epochs())
    facts.epochs.push_back({record.epoch(), record.mean_loss(), record.samples_per_second(), record.resident_mib(),
                            record.heap_in_use_mib()});
  for (const proto::EvalPoint& point : before.evals()) {
    EvalFacts eval;
    eval.epoch = point.epoch();
    eval.run_seconds = point.run_seconds();
    eval.reached = point.reached();
    eval.quality.values.insert(point.quality().begin(), point.quality().end());
    facts.evals.push_back(eval);
  }
  facts.skipped_steps = before.skipped_steps();
}

void RunRecordReporter::finished(const RunFacts& facts) { write_text_file(record_file_, run_result_to_json(run_record(facts))); }

}  // namespace mlh
