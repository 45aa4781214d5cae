#include "harness/driver.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>

#include "base/user_error.h"
#include "harness/checkpoint.h"
#include "harness/console_reporter.h"
#include "harness/device_world.h"
#include "harness/energy_meter.h"
#include "harness/host_memory.h"
#include "harness/interrupt.h"
#include "harness/job_layout.h"
#include "harness/mlperf_log_reporter.h"
#include "harness/peer_error_watch.h"
#include "harness/platform.h"
#include "harness/results.h"
#include "harness/resume_point.h"
#include "harness/run_facts.h"
#include "harness/run_record_reporter.h"
#include "harness/throughput_meter.h"

namespace mlh {

namespace {

// The run's clock: ms since the Unix epoch, as the log's time_ms.
int64_t unix_time_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// What the settings decide, checked before anything is written.
struct RunPlan {
  EngineSettings engine;
  EvalSchedule schedule;
  std::optional<FoundCheckpoint> resume;
  uint64_t seed;
};

RunPlan plan_run(Workload& workload, ConfigMap& config, const World& world, const RunOptions& options) {
  EngineSettings engine;
  engine.bind(config);
  workload.bind_settings(config);
  config.check_all_bound();
  engine.validate();
  workload.validate_settings();
  const EvalSchedule schedule = engine.eval_schedule();
  if (options.checkpoint_every_epochs < 0) throw UserError("--checkpoint-every must be 0 (none) or more epochs");
  if (options.checkpoints_kept < 1) throw UserError("--keep-checkpoints must be 1 or more");
  std::optional<FoundCheckpoint> resume;
  if (!options.resume.empty()) resume = resume_point(options, world, config.effective(), schedule.max_epochs());
  const uint64_t seed = resume ? resume->manifest.seed : options.seed ? *options.seed : std::random_device{}();
  return {engine, schedule, resume, seed};
}

// Who runs what, where: the facts known before the workload's init.
RunFacts describe_facts(const Workload& workload, const RunOptions& options, const RunPlan& plan, const World& world,
                        const torch::Device& device, const JobLayout& layout, int threads) {
  const PlatformInfo platform = detect_platform(world.size(), device);
  RunFacts facts;
  facts.workload = options.workload;
  facts.benchmark = workload.benchmark();
  facts.config_label = options.config_label;
  facts.seed = plan.seed;
  facts.platform_label = options.platform.empty() ? platform.label() : sanitize_path_component(options.platform);
  facts.device_model = platform.device_model;
  facts.device_count = platform.device_count;
  facts.on_cuda = device.is_cuda();
  facts.world_size = world.size();
  facts.layout = layout;
  facts.threads_per_rank = threads;
  facts.communicator = world.comm().name();
  facts.mlharness_version = MLH_VERSION;
  facts.submission_org = plan.engine.submission_org;
  facts.submission_division = plan.engine.submission_division;
  facts.submission_status = plan.engine.submission_status;
  return facts;
}

MLLogger::Options log_options(const World& world, const ResultPaths& paths, const RunOptions& options) {
  MLLogger::Options log;
  log.log_path = world.is_root() ? paths.partial_log : "";
  log.also_stdout = options.mllog_stdout;
  log.enabled = world.is_root();
  return log;
}

// One run, in the steps run_to_target takes in order. Each step puts what it learned into the
// facts, then hands them to the reporters: the MLPerf log, the record (rank 0) and the console.
class TimedRun {
 public:
  TimedRun(Workload& workload, const ConfigMap& config, const World& world, const torch::Device& device,
           const RunOptions& options, const RunPlan& plan, RunFacts facts);

  void describe();
  void init();
  void resume(const FoundCheckpoint& found);
  void start();
  void train_to_target();
  void stop();
  void finish() { report(&RunReporter::finished); }
  void abandon();
  const RunFacts& facts() const { return facts_; }

 private:
  bool train_block(const EvalBlock& block);  // false when a non-finite loss ends the run
  void evaluate(const EvalBlock& block);
  void note_memory(EpochFacts& epoch);
  bool checkpoint_due(int64_t epoch) const {
    return options_.checkpoint_every_epochs > 0 && epoch % options_.checkpoint_every_epochs == 0;
  }
  void save_checkpoint(int64_t epoch, bool finished);
  template <typename... Params, typename... Args>
  void report(void (RunReporter::*hook)(const RunFacts&, Params...), const Args&... args) {
    for (RunReporter* reporter : reporters_) (reporter->*hook)(facts_, args...);
  }

  Workload& workload_;
  const ConfigMap& config_;
  const World& world_;
  const torch::Device device_;
  const RunOptions& options_;
  const RunPlan& plan_;
  RunFacts facts_;
  const ResultPaths paths_;
  const std::string checkpoint_folder_;  // rank 0, with checkpoints
  EnergyMeter energy_;
  CpuEnergyMeter cpu_energy_;
  ThroughputMeter meter_;
  const InterruptWatch interrupts_;
  Progress progress_;
  MlperfLogReporter log_;
  RunRecordReporter record_;
  ConsoleReporter console_;
  std::vector<RunReporter*> reporters_;
  // Rank 0: another rank's error, told before it ends the job, abandons the log as an error here
  // does (rank 0 may be waiting in a collective that will never complete until mpirun kills it).
  PeerErrorWatch peer_errors_;
  int64_t first_epoch_ = 1;
};

TimedRun::TimedRun(Workload& workload, const ConfigMap& config, const World& world, const torch::Device& device,
                   const RunOptions& options, const RunPlan& plan, RunFacts facts)
    : workload_(workload),
      config_(config),
      world_(world),
      device_(device),
      options_(options),
      plan_(plan),
      facts_(std::move(facts)),
      paths_(world.is_root() ? allocate_result_paths(options.out_dir, facts_.platform_label, facts_.benchmark)
                             : ResultPaths{}),
      checkpoint_folder_(options.checkpoint_every_epochs > 0 && world.is_root()
                             ? checkpoint_folder_for_log(paths_.log_file) : ""),
      energy_(device),
      cpu_energy_(/*reads_node=*/world.local_rank() == 0),
      meter_(plan.engine.throughput_warmup_steps),
      interrupts_(world),
      // mpirun hands its ranks a pseudo-terminal even when its own output is a pipe: under it, plain lines.
      progress_(meter_, {world.is_root() && !options.quiet, world.is_root() && world.size() == 1 && isatty(STDOUT_FILENO),
                         10.0, stdout, [this] { interrupts_.check(); }, /*notes=*/world.is_root()}),
      log_(log_options(world, paths_, options), paths_.log_file, unix_time_ms),
      record_(paths_.record_file),
      console_(progress_),
      peer_errors_(world, [this](int, const std::string&) { log_.abandoned(); }) {
  facts_.log_file = paths_.log_file;
  facts_.start_time_utc = utc_now();
  if (device.is_cuda() && !energy_.available()) facts_.energy_not_measured = energy_.source();
  reporters_.push_back(&log_);
  if (world.is_root()) reporters_.push_back(&record_);
  reporters_.push_back(&console_);
}

void TimedRun::describe() {
  facts_.cache_cleared = drop_from_page_cache(workload_.data_files());
  report(&RunReporter::run_described);
}

void TimedRun::init() {
  facts_.init_start_ms = unix_time_ms();
  facts_.effective_config = config_.effective();
  report(&RunReporter::init_started);
  const std::string output_stem =
      world_.is_root() ? paths_.log_file.substr(0, paths_.log_file.size() - std::string(".txt").size()) : "";
  const RunContext context{world_, log_.logger(), facts_.seed, options_.data_dir, device_, output_stem};
  facts_.info = workload_.init(context);
  apply_precision_to_gpu_math(facts_.info.precision);
  facts_.precision = describe_precision(facts_.info.precision, device_);
  facts_.precision_note = precision_note(facts_.info.precision, precision_hardware(device_));
  check_targets(facts_.info.targets);
  facts_.baselines = workload_.baselines();
  report(&RunReporter::initialized);
}

void TimedRun::resume(const FoundCheckpoint& found) {
  const CheckpointManifest& manifest = found.manifest;
  const TrainingState state = read_rank_state(found.path, world_.rank());
  workload_.load_state(state);
  restore_random_streams(state, device_);
  first_epoch_ = manifest.epoch + 1;
  facts_.resumed = ResumeFacts{found.path, manifest.epoch, manifest.log_file, found.refused};
  if (world_.is_root()) take_earlier_progress(run_result_from_json(manifest.record_json), facts_);
  report(&RunReporter::resumed);
}

void TimedRun::start() {
  world_.comm().barrier();
  facts_.init_stop_ms = unix_time_ms();
  facts_.run_start_ms = unix_time_ms();
  report(&RunReporter::run_started);
  energy_.start();
  cpu_energy_.start();
}

// Blocks of epochs, each ending in an evaluation, until every target holds or max_epochs.
void TimedRun::train_to_target() {
  const int64_t max_epochs = plan_.schedule.max_epochs();
  try {
    for (int64_t first = first_epoch_; first <= max_epochs && !facts_.converged && facts_.abort_reason.empty();) {
      const EvalBlock block = plan_.schedule.block_from(first);
      report(&RunReporter::block_started, block);
      if (!train_block(block)) {
        report(&RunReporter::block_abandoned, block);
        break;
      }
      evaluate(block);
      first = block.last_epoch() + 1;
    }
  } catch (const RunInterrupted& stop) {
    facts_.interrupt_signal = stop.signal_number();
    facts_.abort_reason = std::string(stop.what()) + " in epoch " + std::to_string(facts_.epochs_run) +
                          (facts_.last_checkpoint.empty() ? "" : "; resume with --resume " + checkpoint_folder_);
    report(&RunReporter::interrupted);
  }
  if (!facts_.converged && facts_.abort_reason.empty())
    facts_.abort_reason = "target not reached in " + std::to_string(max_epochs) + " epochs";
}

bool TimedRun::train_block(const EvalBlock& block) {
  for (int64_t epoch = block.first_epoch; epoch <= block.last_epoch(); ++epoch) {
    facts_.epochs_run = epoch;
    report(&RunReporter::epoch_started, epoch);
    meter_.begin_epoch();
    progress_.begin_epoch(epoch, plan_.schedule.max_epochs(), workload_.steps_per_epoch());
    const TrainStats stats = workload_.train_epoch(epoch, progress_);
    meter_.end_epoch();
    progress_.end_epoch();
    facts_.skipped_steps += stats.skipped_steps;
    facts_.samples_trained += stats.samples;
    facts_.epochs.push_back({epoch, stats.mean_loss, meter_.epoch_samples_per_second()});
    report(&RunReporter::epoch_ended);
    const bool finite = std::isfinite(stats.mean_loss);
    // An epoch that ends its block is measured after its evaluation, which it also takes.
    if (epoch != block.last_epoch() || !finite) note_memory(facts_.epochs.back());
    if (!finite) {
      facts_.abort_reason = "non-finite training loss in epoch " + std::to_string(epoch);
      return false;
    }
    if (epoch != block.last_epoch() && checkpoint_due(epoch)) save_checkpoint(epoch, false);
  }
  return true;
}

void TimedRun::evaluate(const EvalBlock& block) {
  const int64_t epoch = block.last_epoch();
  report(&RunReporter::eval_started, epoch);
  EvalFacts eval;
  eval.epoch = epoch;
  eval.quality = workload_.evaluate(epoch);
  eval.at_ms = unix_time_ms();
  eval.run_seconds = (eval.at_ms - facts_.run_start_ms) / 1000.0;
  eval.reached = reaches_all(eval.quality, facts_.info.targets);
  facts_.converged = eval.reached;
  facts_.final_quality = eval.quality;
  facts_.evals.push_back(std::move(eval));
  report(&RunReporter::evaluated, block);
  note_memory(facts_.epochs.back());
  const bool ends = facts_.converged || epoch >= plan_.schedule.max_epochs();
  if (options_.checkpoint_every_epochs > 0 && (ends || checkpoint_due(epoch))) save_checkpoint(epoch, ends);
  if (!ends) interrupts_.check();
}

// The largest resident memory and heap in use over the ranks (a collective).
void TimedRun::note_memory(EpochFacts& epoch) {
  epoch.resident_mib = world_.allreduce_max(resident_mib());
  epoch.heap_in_use_mib = world_.allreduce_max(heap_in_use_mib());
}

// After `epoch` (and its evaluation, when it ends a block); `finished` when the run ends there.
void TimedRun::save_checkpoint(int64_t epoch, bool finished) {
  TrainingState state;
  workload_.save_state(state);
  save_random_streams(state, device_);
  CheckpointManifest manifest;
  manifest.epoch = epoch;
  manifest.finished = finished;
  manifest.workload = options_.workload;
  manifest.seed = facts_.seed;
  manifest.effective_config = config_.effective();
  manifest.log_file = paths_.log_file;
  if (world_.is_root()) manifest.record_json = run_result_to_json(run_record(facts_));
  const std::string written = write_checkpoint(world_, checkpoint_folder_, manifest, state, options_.checkpoints_kept);
  if (world_.is_root()) facts_.last_checkpoint = written;
}

void TimedRun::stop() {
  synchronize_device(device_);
  facts_.run_stop_ms = unix_time_ms();
  energy_.stop();
  cpu_energy_.stop();
  facts_.stopped = true;
  facts_.steady_samples_per_second = meter_.steady_samples_per_second();
  facts_.energy = read_energy(energy_, cpu_energy_, world_);  // a collective
  report(&RunReporter::run_stopped);
}

void TimedRun::abandon() {
  for (RunReporter* reporter : reporters_) reporter->abandoned();
  if (world_.is_root() && options_.checkpoint_every_epochs > 0) {
    std::error_code ignored;
    std::filesystem::remove(checkpoint_folder_for_log(paths_.log_file), ignored);  // only when empty
  }
}

}  // namespace

proto::RunResult run_to_target(Workload& workload, ConfigMap& config, const World& launched_world,
                               const RunOptions& options) {
  const RunPlan plan = plan_run(workload, config, launched_world, options);
  const int threads = configure_threads(launched_world, static_cast<int>(plan.engine.blas_threads),
                                        static_cast<int>(plan.engine.intra_op_threads));
  const torch::Device device = rank_device(launched_world, plan.engine.device);
  configure_gpu_math(plan.engine.gpu_math);
  const World world = world_on_device(launched_world, device);  // NCCL between GPUs
  const JobLayout layout = gather_job_layout(world, device);
  RunFacts facts = describe_facts(workload, options, plan, world, device, layout, threads);
  workload.prepare_data(world, options.data_dir);
  world.comm().barrier();

  TimedRun run(workload, config, world, device, options, plan, std::move(facts));
  try {
    run.describe();         // submission, launch, cache_clear
    run.init();             // init_start, the workload's init, its sizes, precision and targets
    if (plan.resume) run.resume(*plan.resume);
    run.start();            // init_stop, run_start
    run.train_to_target();  // blocks of epochs, each ending in an evaluation
    run.stop();             // run_stop, steady throughput, energy
    run.finish();           // the log in place, the record beside it
  } catch (...) {
    run.abandon();
    throw;
  }
  return run_record(run.facts());
}

}  // namespace mlh
