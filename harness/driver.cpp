#include "harness/driver.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>

#include "compliance/mllog_keys.h"
#include "base/user_error.h"
#include "harness/checkpoint.h"
#include "harness/device_world.h"
#include "harness/energy_meter.h"
#include "harness/host_memory.h"
#include "harness/interrupt.h"
#include "harness/job_layout.h"
#include "harness/platform.h"
#include "harness/resume_point.h"
#include "harness/results.h"
#include "harness/throughput_meter.h"

namespace mlh {

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

proto::RunResult run_to_target(Workload& workload, ConfigMap& config, const World& launched_world,
                               const RunOptions& options) {
  EngineSettings engine;
  engine.bind(config);
  workload.bind_settings(config);
  config.check_all_bound();
  engine.validate();
  workload.validate_settings();
  const EvalSchedule schedule = engine.eval_schedule();
  if (options.checkpoint_every_epochs < 0) throw UserError("--checkpoint-every must be 0 (none) or more epochs");
  if (options.checkpoints_kept < 1) throw UserError("--keep-checkpoints must be 1 or more");

  std::optional<FoundCheckpoint> resumed;
  if (!options.resume.empty()) resumed = resume_point(options, launched_world, config.effective(), schedule.max_epochs());
  const uint64_t seed = resumed ? resumed->manifest.seed : options.seed ? *options.seed : std::random_device{}();
  const int threads =
      configure_threads(launched_world, static_cast<int>(engine.blas_threads), static_cast<int>(engine.intra_op_threads));
  const torch::Device device = rank_device(launched_world, engine.device);
  configure_gpu_math(engine.gpu_math);
  const World world = world_on_device(launched_world, device);  // NCCL between GPUs
  const JobLayout layout = gather_job_layout(world, device);
  EnergyMeter energy(device);
  CpuEnergyMeter cpu_energy(/*reads_node=*/world.local_rank() == 0);
  const PlatformInfo platform = detect_platform(world.size(), device);
  const std::string platform_label =
      options.platform.empty() ? platform.label() : sanitize_path_component(options.platform);

  workload.prepare_data(world, options.data_dir);
  world.comm().barrier();

  ResultPaths paths;
  if (world.is_root()) paths = allocate_result_paths(options.out_dir, platform_label, workload.benchmark());
  MLLogger::Options log_options;
  log_options.log_path = world.is_root() ? paths.partial_log : "";
  log_options.also_stdout = options.mllog_stdout;
  log_options.enabled = world.is_root();
  MLLogger logger(log_options);
  // mpirun hands its ranks a pseudo-terminal even when its own output is a pipe: under it, plain lines.
  const bool interactive = world.is_root() && world.size() == 1 && isatty(STDOUT_FILENO);
  ThroughputMeter meter(engine.throughput_warmup_steps);
  const InterruptWatch interrupts(world);
  Progress progress(meter, {world.is_root() && !options.quiet, interactive, 10.0, stdout, [&] { interrupts.check(); },
                            /*notes=*/world.is_root()});

  proto::RunResult result;
  result.set_workload(options.workload);
  result.set_benchmark(workload.benchmark());
  result.set_seed(seed);
  result.set_platform(platform_label);
  result.set_device_model(platform.device_model);
  result.set_device_count(platform.device_count);
  result.set_device(device.is_cuda() ? "cuda" : "cpu");
  result.set_world_size(world.size());
  result.set_launcher(layout.launcher);
  result.set_node_count(layout.nodes);
  result.set_ranks_per_node(layout.ranks_per_node);
  result.set_gpus_per_node(layout.gpus_per_node);
  for (const RankPlacement& placement : layout.placements) {
    proto::RankPlacement* record = result.add_placement();
    record->set_rank(placement.rank);
    record->set_host(placement.host);
    record->set_local_rank(placement.local_rank);
    record->set_device(placement.device);
    record->set_visible_gpus(placement.visible_gpus);
  }
  result.set_config(options.config_label);
  result.set_log_file(paths.log_file);
  result.set_threads_per_rank(threads);
  result.set_communicator(world.comm().name());
  result.set_mlharness_version(MLH_VERSION);
  result.set_start_time_utc(utc_now());

  try {
    logger.event(keys::kSubmissionBenchmark, workload.benchmark());
    logger.event(keys::kSubmissionOrg, engine.submission_org);
    logger.event(keys::kSubmissionDivision, engine.submission_division);
    logger.event(keys::kSubmissionStatus, engine.submission_status);
    logger.event(keys::kSubmissionPlatform, platform_label);
    logger.event(keys::kLaunch, layout.to_json());
    logger.event(keys::kCacheClear, drop_from_page_cache(workload.data_files()));
    const int64_t init_start_ms = logger.start(keys::kInitStart);
    logger.event(keys::kSeed, seed);
    logger.event(keys::kEffectiveConfig, config.effective());
    result.set_effective_config_json(config.effective().dump());

    const std::string output_stem =
        world.is_root() ? paths.log_file.substr(0, paths.log_file.size() - std::string(".txt").size()) : "";
    const RunContext context{world, logger, seed, options.data_dir, device, output_stem};
    const WorkloadInfo info = workload.init(context);
    logger.event(keys::kGlobalBatchSize, info.global_batch_size);
    logger.event(keys::kGradientAccumulationSteps, 1);
    logger.event(keys::kTrainSamples, info.train_samples);
    logger.event(keys::kEvalSamples, info.eval_samples);
    logger.event(keys::kModelParameterCount, info.parameter_count);
    apply_precision_to_gpu_math(info.precision);
    const std::string precision = describe_precision(info.precision, device);
    const std::string precision_warning = precision_note(info.precision, precision_hardware(device));
    logger.event(keys::kPrecision, precision);
    if (!precision_warning.empty()) {
      logger.event(keys::kPrecisionNote, precision_warning);
      progress.note(precision_warning);  // the config asks for something this device does differently
    }
    result.set_global_batch_size(info.global_batch_size);
    result.set_precision(precision);
    result.set_precision_note(precision_warning);
    check_targets(info.targets);
    result.set_quality_name(info.targets.front().name);
    result.set_quality_target(info.targets.front().value);
    for (const QualityTarget& target : info.targets) {
      auto* record = result.add_quality_targets();
      record->set_name(target.name);
      record->set_value(target.value);
      record->set_strict(target.strict);
    }
    for (const auto& [name, value] : info.schedule) (*result.mutable_schedule())[name] = value;

    std::string baseline_text;
    for (const auto& [name, value] : workload.baselines()) {
      logger.event(keys::kQualityBaseline, {{"name", name}, {"value", value}});
      (*result.mutable_baselines())[name] = value;
      char part[96];
      std::snprintf(part, sizeof part, "; %s %.4f", name.c_str(), value);
      baseline_text += part;
    }
    progress.message(workload.benchmark() + " seed " + std::to_string(seed) + " on " + platform_label +
                     " (" + std::to_string(world.size()) + " rank" + (world.size() > 1 ? "s" : "") +
                     (layout.nodes > 1 ? " on " + std::to_string(layout.nodes) + " nodes" : "") +
                     (device.is_cuda() ? " on " + platform.device_model + ", one GPU each"
                                       : ", " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") + " each") +
                     "): target " + describe_targets(info.targets) + baseline_text);

    if (device.is_cuda() && !energy.available()) progress.message("energy not measured: " + energy.source());

    int64_t first_epoch = 1;
    if (resumed) {
      const CheckpointManifest& m = resumed->manifest;
      for (const std::string& refused : resumed->refused) progress.message("checkpoint refused: " + refused);
      const TrainingState state = read_rank_state(resumed->path, world.rank());
      workload.load_state(state);
      restore_random_streams(state, device);
      first_epoch = m.epoch + 1;
      logger.event(keys::kResumedFrom, {{"epoch", m.epoch}, {"checkpoint", resumed->path}, {"log_file", m.log_file}});
      if (world.is_root()) {
        const proto::RunResult before = run_result_from_json(m.record_json);
        result.mutable_evals()->CopyFrom(before.evals());
        result.mutable_epochs()->CopyFrom(before.epochs());
        result.set_skipped_steps(before.skipped_steps());
      }
      result.mutable_resumed_from()->set_checkpoint(resumed->path);
      result.mutable_resumed_from()->set_epoch(m.epoch);
      result.mutable_resumed_from()->set_log_file(m.log_file);
      progress.message("resuming after epoch " + std::to_string(m.epoch) + " from " + resumed->path +
                       " (a resumed run's time to train is not a compliant result)");
    }
    const std::string checkpoint_folder =
        options.checkpoint_every_epochs > 0 && world.is_root() ? checkpoint_folder_for_log(paths.log_file) : "";
    // After `epoch` (and its evaluation, when it ends a block); `finished` when the run ends there.
    auto save_checkpoint = [&](int64_t epoch, bool finished) {
      TrainingState state;
      workload.save_state(state);
      save_random_streams(state, device);
      CheckpointManifest manifest;
      manifest.epoch = epoch;
      manifest.finished = finished;
      manifest.workload = options.workload;
      manifest.seed = seed;
      manifest.effective_config = config.effective();
      manifest.log_file = paths.log_file;
      if (world.is_root()) manifest.record_json = run_result_to_json(result);
      const std::string written =
          write_checkpoint(world, checkpoint_folder, manifest, state, options.checkpoints_kept);
      if (world.is_root()) result.set_last_checkpoint(written);
    };
    // The largest resident memory and heap in use over the ranks (a collective).
    auto note_memory = [&](proto::EpochRecord* figures) {
      figures->set_resident_mib(world.allreduce_max(resident_mib()));
      figures->set_heap_in_use_mib(world.allreduce_max(heap_in_use_mib()));
    };
    auto checkpoint_due = [&](int64_t epoch) {
      return options.checkpoint_every_epochs > 0 && epoch % options.checkpoint_every_epochs == 0;
    };

    world.comm().barrier();
    const int64_t init_stop_ms = logger.end(keys::kInitStop);
    const int64_t run_start_ms = logger.start(keys::kRunStart);
    energy.start();
    cpu_energy.start();
    int64_t samples_trained = 0;
    result.set_init_seconds((init_stop_ms - init_start_ms) / 1000.0);

    // Blocks of epochs, each ending in an evaluation, until every target holds or max_epochs.
    bool converged = false;
    std::string abort_reason;
    int64_t epochs_run = 0;
    int interrupt_signal = 0;
    Quality quality;
    try {
      for (int64_t first = first_epoch; first <= schedule.max_epochs() && !converged && abort_reason.empty();) {
        const EvalBlock block = schedule.block_from(first);
        logger.start(keys::kBlockStart,
                     {{keys::kMetaFirstEpochNum, block.first_epoch}, {keys::kMetaEpochCount, block.epoch_count}});
        TrainStats stats;
        for (int64_t epoch = block.first_epoch; epoch <= block.last_epoch(); ++epoch) {
          epochs_run = epoch;
          logger.start(keys::kEpochStart, {{keys::kMetaEpochNum, epoch}});
          meter.begin_epoch();
          progress.begin_epoch(epoch, schedule.max_epochs(), workload.steps_per_epoch());
          stats = workload.train_epoch(epoch, progress);
          result.set_skipped_steps(result.skipped_steps() + stats.skipped_steps);
          samples_trained += stats.samples;
          meter.end_epoch();
          progress.end_epoch();
          logger.end(keys::kEpochStop, {{keys::kMetaEpochNum, epoch}});
          logger.event(keys::kTrainThroughput, meter.epoch_samples_per_second(), {{keys::kMetaEpochNum, epoch}});
          logger.event(keys::kTrainLoss, stats.mean_loss, {{keys::kMetaEpochNum, epoch}});
          auto* figures = result.add_epochs();
          figures->set_epoch(epoch);
          figures->set_mean_loss(stats.mean_loss);
          figures->set_samples_per_second(meter.epoch_samples_per_second());
          // An epoch that ends its block is measured after its evaluation, which it also takes.
          if (epoch != block.last_epoch() || !std::isfinite(stats.mean_loss)) note_memory(figures);
          if (!std::isfinite(stats.mean_loss)) {
            abort_reason = "non-finite training loss in epoch " + std::to_string(epoch);
            break;
          }
          if (epoch != block.last_epoch() && checkpoint_due(epoch)) save_checkpoint(epoch, false);
        }
        if (!abort_reason.empty()) {
          logger.end(keys::kBlockStop, {{keys::kMetaFirstEpochNum, block.first_epoch}});
          break;
        }
        const int64_t epoch = block.last_epoch();
        logger.start(keys::kEvalStart, {{keys::kMetaEpochNum, epoch}});
        quality = workload.evaluate(epoch);
        converged = reaches_all(quality, info.targets);
        const int64_t eval_ms = logger.event(keys::kEvalAccuracy, eval_accuracy_value(quality, info.targets),
                                             {{keys::kMetaEpochNum, epoch}});
        logger.end(keys::kEvalStop, {{keys::kMetaEpochNum, epoch}});
        logger.end(keys::kBlockStop, {{keys::kMetaFirstEpochNum, block.first_epoch}});
        auto* point = result.add_evals();
        point->set_epoch(epoch);
        point->set_run_seconds((eval_ms - run_start_ms) / 1000.0);
        point->set_reached(converged);
        note_memory(result.mutable_epochs(result.epochs_size() - 1));
        for (const auto& [name, v] : quality.values) (*point->mutable_quality())[name] = v;
        char tail[96];
        std::snprintf(tail, sizeof tail, "%s  loss %.4f  [%.1f s]", converged ? " reached" : "", stats.mean_loss,
                      (eval_ms - run_start_ms) / 1000.0);
        progress.message("epoch " + std::to_string(epoch) + ": " + describe_quality(quality, info.targets) + tail);
        if (converged) result.set_epochs_to_converge(epoch);
        const bool ends = converged || epoch >= schedule.max_epochs();
        if (options.checkpoint_every_epochs > 0 && (ends || checkpoint_due(epoch))) save_checkpoint(epoch, ends);
        if (!ends) interrupts.check();
        first = block.last_epoch() + 1;
      }
    } catch (const RunInterrupted& stop) {
      interrupt_signal = stop.signal_number();
      abort_reason = std::string(stop.what()) + " in epoch " + std::to_string(epochs_run) +
                     (result.last_checkpoint().empty() ? "" : "; resume with --resume " + checkpoint_folder);
      progress.message(abort_reason);
    }
    if (!converged && abort_reason.empty())
      abort_reason = "target not reached in " + std::to_string(schedule.max_epochs()) + " epochs";

    const char* status = converged ? keys::kStatusSuccess : keys::kStatusAborted;
    synchronize_device(device);
    nlohmann::ordered_json stop_metadata = {{keys::kMetaStatus, status}};
    if (!converged) stop_metadata["reason"] = abort_reason;
    if (interrupt_signal != 0) stop_metadata["interrupted"] = true;
    const int64_t run_stop_ms = logger.end(keys::kRunStop, stop_metadata);
    energy.stop();
    cpu_energy.stop();
    logger.event(keys::kTrainThroughput, meter.steady_samples_per_second(), {{"steady_state", true}});

    result.set_converged(converged);
    result.set_status(interrupt_signal != 0 ? "interrupted" : status);
    result.set_interrupt_signal(interrupt_signal);
    result.set_abort_reason(abort_reason);
    result.set_epochs_run(epochs_run);
    result.set_time_to_train_seconds((run_stop_ms - run_start_ms) / 1000.0);
    result.set_train_samples_per_second(meter.steady_samples_per_second());
    record_energy(result, energy, cpu_energy, world, samples_trained);
    for (const auto& [name, v] : quality.values) (*result.mutable_final_quality())[name] = v;

    logger.close();
    if (world.is_root()) {
      std::filesystem::rename(paths.partial_log, paths.log_file);
      write_text_file(paths.record_file, run_result_to_json(result));
    }
  } catch (...) {
    logger.close();
    if (world.is_root()) {
      std::error_code ignored;
      std::filesystem::remove(paths.partial_log, ignored);
      if (options.checkpoint_every_epochs > 0)
        std::filesystem::remove(checkpoint_folder_for_log(paths.log_file), ignored);  // only when empty
    }
    throw;
  }
  return result;
}

}  // namespace mlh
