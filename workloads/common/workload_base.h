// The part of the Workload interface (harness/workload.h) that every workload here implements alike,
// so that a workload's file holds its model, data, metric and recipe only: its settings bound and
// validated, what init's RunContext says of the run kept for the later calls, the checkpoint (the
// trainer's model and step and the schedule's step counter, harness/train_step.h save_training), and
// `mlharness bench`'s refusals before the workload's own bench steps.
//
// `Settings` has bind(ConfigMap&), validate() and gradient_shards; a ComputeSettings' precision is the
// run's, else it trains in fp32. `Trainer` has model() (a module holder) and step() (a TrainStep).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include <torch/types.h>

#include "base/user_error.h"
#include "harness/gradient_allreduce.h"
#include "harness/mixed_precision.h"
#include "harness/setting_groups.h"
#include "harness/train_step.h"
#include "harness/workload.h"

namespace mlh {

template <class Settings, class Trainer>
class WorkloadBase : public Workload {
 public:
  void bind_settings(ConfigMap& config) override { settings_.bind(config); }
  void validate_settings() const override { settings_.validate(); }

  void save_state(TrainingState& state) const override {
    save_training(state, *trainer_->model(), trainer_->step(), step_);
  }
  void load_state(const TrainingState& state) override {
    step_ = load_training(state, *trainer_->model(), trainer_->step());
  }

  // Refuses a loader bench or NHWC layout the workload lacks, then hands over to its bench steps.
  std::unique_ptr<BenchStep> make_bench_step(const BenchSpec& spec, const World& world) final {
    if (spec.mode == BenchMode::kLoader) return loader_bench_step(spec, world);
    if (spec.channels_last && !image_layouts())
      throw UserError("--channels-last is for image workloads; " + benchmark() + " has no such layout");
    return model_bench_step(spec, world);
  }

 protected:
  // Keeps the run's world, seed, device, output stem and precision, and resolves the gradient shards
  // (UserError for a count the ranks do not divide): the first call of every init.
  void start_run(const RunContext& context) {
    world_ = &context.world;
    seed_ = context.seed;
    device_ = context.device;
    output_stem_ = context.output_stem;
    if constexpr (std::is_base_of_v<ComputeSettings, Settings>) precision_ = settings_.precision;
    gradient_shards_ = resolve_gradient_shards(settings_.gradient_shards, world_->size(), "gradient_shards");
  }

  // Bench's training or inference step of the configured model on random inputs.
  virtual std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) = 0;
  // Bench's data loader alone; a workload without a loader of its own refuses.
  virtual std::unique_ptr<BenchStep> loader_bench_step(const BenchSpec& spec, const World& world) {
    throw UserError(benchmark() + " has no --loader bench: its batches are made in memory, not by a data loader");
  }
  // True for image workloads, whose model step judges --channels-last itself.
  virtual bool image_layouts() const { return false; }

  Settings settings_;
  const World* world_ = nullptr;
  uint64_t seed_ = 0;
  torch::Device device_{torch::kCPU};
  Precision precision_ = Precision::kFp32;
  std::string output_stem_;  // rank 0: the log's path without ".txt"
  int64_t gradient_shards_ = 1;
  std::unique_ptr<Trainer> trainer_;
  int64_t step_ = 0;  // the learning-rate schedule's step, kept in checkpoints
};

}  // namespace mlh
