// The interface between the engine and a benchmark. The engine owns the clock, the schedule, the
// stopping rule and the log's run structure; a workload owns its model, data, optimizer and metric,
// and logs its own hyperparameters. A workload registers itself with one line (name, what `mlharness
// list` says of it, class):
//   MLH_REGISTER_WORKLOAD("mine", "My model on my data, top-1 (MLPerf-style)", MyWorkload);
// Call order: bind_settings, validate_settings, prepare_data, init, then train_epoch / evaluate until
// the engine stops (save_state / load_state between epochs).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "base/user_error.h"
#include "compliance/mllogger.h"
#include "harness/mixed_precision.h"
#include "harness/progress.h"
#include "harness/quality.h"
#include "harness/settings.h"
#include "harness/training_state.h"
#include "harness/world.h"

namespace mlh {

// Global (all-rank) figures of one training epoch.
struct TrainStats {
  int64_t samples = 0;
  double mean_loss = 0;
  int64_t skipped_steps = 0;  // steps skipped by fp16 loss scaling (the same on every rank)
};

// Fixed at init, logged by the engine, kept in the run record.
struct WorkloadInfo {
  int64_t global_batch_size = 0;
  int64_t train_samples = 0;      // per epoch
  int64_t eval_samples = 0;
  int64_t parameter_count = 0;
  // What the run must reach, all at one evaluation, as the reference states it: e.g. {{"top1",
  // 0.759}}; {{"BBOX", 0.377}, {"SEGM", 0.339}}; {{"bleu/100", 0.25, /*strict=*/true}}. Each name is
  // a key of the Quality that evaluate() returns. See harness/quality.h.
  std::vector<QualityTarget> targets;
  // What the workload trains at; the engine logs what it means on the device (describe_precision)
  // and says at start when the device falls back or lacks the hardware for it (precision_note).
  Precision precision = Precision::kFp32;
  // The learning-rate schedule as this run resolved it, in steps where the schedule counts steps
  // (e.g. GNMT's warmup_steps, remain_steps, decay_interval), for the run record: with a per-rank
  // batch, the steps per epoch, and so epochs to converge, depend on the rank count.
  std::map<std::string, double> schedule;
};

// What every workload call may use; owned by the engine.
struct RunContext {
  const World& world;
  MLLogger& logger;
  uint64_t seed;
  std::string data_root;          // where generated data goes (`--data-dir`)
  torch::Device device;           // where this rank computes (harness/device.h); its current CUDA device
  // Rank 0: the log's path without ".txt" (<out>/<platform>/<benchmark>/result_<i>), for files a
  // workload writes beside its log (say, `<stem>_detections_epoch40.json`); empty on the other ranks.
  std::string output_stem = "";
};

// One timed step of `mlharness bench`: synthetic inputs, a full training (or inference) step, or
// one batch out of the data loader alone.
class BenchStep {
 public:
  virtual ~BenchStep() = default;
  virtual void run() = 0;
  virtual int64_t samples_per_step() const = 0;
  virtual std::string sample_unit() const { return "samples"; }
  // Waits for queued device work, so the bench's clock reads see finished steps.
  virtual void synchronize() {}
  // Where and how the step computes, for the report: e.g. "cpu", "cuda:0"; "fp32", "amp (bf16 autocast)".
  virtual std::string device_used() const { return "cpu"; }
  virtual std::string precision_used() const { return "fp32"; }
  // precision_note() of the precision on this device: "" unless it falls back or is slow here.
  virtual std::string precision_note() const { return ""; }
  // The activations' memory layout, for image models ("nchw", "channels_last"); "-" otherwise.
  virtual std::string memory_format_used() const { return "-"; }
  // A loader bench's decode threads per rank, for its rate per loader core; 0 for any other step.
  virtual int loader_threads() const { return 0; }
};

enum class BenchMode { kTrain, kInference, kLoader };
std::string bench_mode_name(BenchMode mode);  // "train", "inference", "loader"

struct BenchSpec {
  int64_t batch_size = 0;         // per rank
  BenchMode mode = BenchMode::kTrain;
  std::string precision = "fp32"; // "fp32" or "amp" (see harness/mixed_precision.h)
  bool channels_last = false;     // image models: NHWC memory format for activations and weights
  std::string data_root;          // where a loader bench may generate data (`--data-dir`)
  torch::Device device = torch::kCPU;  // where this rank computes (harness/device.h)
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string benchmark() const = 0;  // MLPerf benchmark name (compliance/benchmark_names.h)

  // Binds every setting this workload reads; called once, before anything else.
  virtual void bind_settings(ConfigMap& config) = 0;
  // Checks the bound values together (after unknown keys were reported); throws UserError.
  virtual void validate_settings() const {}
  // Makes the data available (e.g. writes a synthetic dataset under data_root) before the log
  // starts. Untimed and unlogged. Rank 0 alone writes; the engine holds the others at a barrier.
  virtual void prepare_data(const World& world, const std::string& data_root) {}
  // `mlharness prepare --workload NAME --key value ...`: writes the data folder this workload reads
  // from raw files. Binds the step's options like settings (the flag --dev-pairs is the key
  // dev_pairs); false for a workload that has no prepare step.
  virtual bool bind_prepare_options(ConfigMap& options) { return false; }
  // Runs the prepare step with the bound options; returns what to print.
  virtual std::string prepare() { return ""; }
  // The files init will read, so the engine can drop them from the page cache before the run
  // (MLPerf's cache_clear). Known after prepare_data.
  virtual std::vector<std::string> data_files() const { return {}; }
  // Builds model, optimizer and data indexes; logs hyperparameters. Untimed (init_start..init_stop).
  virtual WorkloadInfo init(const RunContext& context) = 0;
  // Trains one epoch (numbered from 1), calling progress.step() after every step.
  virtual TrainStats train_epoch(int64_t epoch, Progress& progress) = 0;
  virtual int64_t steps_per_epoch() const = 0;
  // Evaluates on the whole eval set, sharded over ranks and reduced; the same Quality on every rank,
  // with a value for every target named in WorkloadInfo (and any others worth recording).
  virtual Quality evaluate(int64_t epoch) = 0;
  // A baseline worth printing beside the target (e.g. the popularity recommender), if any.
  virtual std::map<std::string, double> baselines() { return {}; }

  // Checkpoints (harness/checkpoint.h), taken and restored between epochs, after init: everything the
  // later epochs depend on that is not drawn afresh from (seed, epoch): the model's parameters and
  // buffers, the training step's optimizer and loss scaler (TrainStep::save_state), counters such as
  // a schedule's step. The engine adds the random streams and the epoch. load_state refuses
  // (UserError) a state of another model or config. A workload without them says so.
  virtual void save_state(TrainingState& state) const {
    throw UserError("workload '" + benchmark() + "' cannot write checkpoints");
  }
  virtual void load_state(const TrainingState& state) {
    throw UserError("workload '" + benchmark() + "' cannot resume from checkpoints");
  }

  // `mlharness bench`: a step on random inputs at this workload's configured model size. Throws
  // UserError for a mode, precision or layout the workload does not have.
  virtual std::unique_ptr<BenchStep> make_bench_step(const BenchSpec& spec, const World& world) = 0;
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;

// Name -> factory, filled by MLH_REGISTER_WORKLOAD at static-initialisation time.
class WorkloadRegistry {
 public:
  static WorkloadRegistry& instance();
  bool add(const std::string& name, const std::string& description, WorkloadFactory factory);
  // Throws UserError listing the registered names.
  std::unique_ptr<Workload> create(const std::string& name) const;
  struct Entry {
    std::string name;
    std::string description;
    WorkloadFactory factory;
  };
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace mlh

#define MLH_REGISTER_WORKLOAD_CONCAT2(a, b) a##b
#define MLH_REGISTER_WORKLOAD_CONCAT(a, b) MLH_REGISTER_WORKLOAD_CONCAT2(a, b)
#define MLH_REGISTER_WORKLOAD(name, description, Type)                                   \
  static const bool MLH_REGISTER_WORKLOAD_CONCAT(mlh_registered_workload_, __LINE__) = \
      ::mlh::WorkloadRegistry::instance().add(                                           \
          name, description, [] { return std::unique_ptr<::mlh::Workload>(new Type()); })
