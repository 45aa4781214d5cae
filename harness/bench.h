// `mlharness bench`: steady-state throughput of a workload's training (or inference) step on
// synthetic inputs, or of its data loader alone, for every batch size x precision asked for. Each case runs warm-up steps, then
// `repeats` timed windows of `timed_steps` steps; a window's rate is its samples over its seconds and
// the case reports the median window. Under mpirun every rank runs the same case at the same time and
// the table shows per-rank and total rates. An inference bench then times single batches, each waited
// for alone, and reports their p50/p90/p99 latency beside the throughput. Results go through one record and two reporters
// (console table, JSON), like google/benchmark's. On a GPU, bench also counts the host's waits on the
// GPU in the timed steps (host_syncs_per_step; 0 is the goal of every training step), and each case
// runs with TF32 as the engine set it, but fp32-strict without (describe_precision names tf32 where
// fp32 used it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/mixed_precision.h"
#include "harness/workload.h"

namespace mlh {

// A workload's own step as a bench step: its training step (harness/train_step.h) or its forward
// pass, run on fixed synthetic inputs on `device` at `precision`. `step` owns what it needs.
class DeviceBenchStep final : public BenchStep {
 public:
  struct Spec {
    torch::Device device = torch::kCPU;
    Precision precision = Precision::kFp32;
    int64_t samples_per_step = 0;
    std::string sample_unit = "samples";
    std::string memory_format = "-";
  };
  DeviceBenchStep(Spec spec, std::function<void()> step) : spec_(std::move(spec)), step_(std::move(step)) {}
  void run() override { step_(); }
  int64_t samples_per_step() const override { return spec_.samples_per_step; }
  std::string sample_unit() const override { return spec_.sample_unit; }
  void synchronize() override;
  std::string device_used() const override;
  std::string precision_used() const override { return describe_precision(spec_.precision, spec_.device); }
  std::string precision_note() const override {
    return mlh::precision_note(spec_.precision, precision_hardware(spec_.device));
  }
  std::string memory_format_used() const override { return spec_.memory_format; }

 private:
  Spec spec_;
  std::function<void()> step_;
};

// A workload's training step as a bench step: each run puts `trainer`'s model in training mode and
// trains it on next_batch() through trainer->train_on, the call the workload's train_epoch makes, so
// bench times the step training runs. Trainer: model() (a module holder) and train_on(const Batch&).
template <class Batch, class Trainer>
std::unique_ptr<DeviceBenchStep> make_train_bench_step(DeviceBenchStep::Spec spec, std::shared_ptr<Trainer> trainer,
                                                       std::function<Batch()> next_batch) {
  return std::make_unique<DeviceBenchStep>(std::move(spec), [trainer = std::move(trainer),
                                                             next_batch = std::move(next_batch)] {
    trainer->model()->train();
    trainer->train_on(next_batch());
  });
}

struct BenchOptions {
  std::vector<int64_t> batch_sizes;      // per rank; empty = the workload's configured batch
  std::vector<std::string> precisions = {"fp32"};
  BenchMode mode = BenchMode::kTrain;
  bool channels_last = false;
  std::string data_root = "data";        // where a loader bench may generate its data
  torch::Device device = torch::kCPU;    // this rank's (rank_device, chosen by the caller)
  int64_t warmup_steps = 3;
  int64_t timed_steps = 10;
  int64_t repeats = 3;
  std::string json_path;                 // write the JSON report here when not empty
  int blas_threads = 1;                  // see configure_threads
  int intra_op_threads = 0;              // see configure_threads
};

struct BenchCaseResult {
  int64_t batch_size = 0;
  std::string precision;                 // as asked: "fp32", "amp"
  std::string precision_used;            // what it meant here: "amp (bf16 autocast)"
  std::string precision_note;            // precision_note(): why it falls back or is slow here; "" if not
  std::string mode;                      // "train", "inference" or "loader"
  std::string memory_format;             // "nchw" or "channels_last" (image workloads)
  std::string device;                    // rank 0's device: "cpu", "cuda:0"
  std::string unit;                      // "samples", "tokens", "images", ...
  double per_rank_per_second = 0;        // median window, mean over ranks
  double total_per_second = 0;           // sum over ranks
  std::vector<double> window_rates;      // rank 0's windows, per second
  int loader_threads = 0;                // loader mode: decode threads per rank (0: not reported)
  double per_loader_thread_per_second = 0;  // total_per_second / (ranks x loader_threads)
  // Rank 0's host syncs (waits on the GPU) per timed step, counted by HostSyncCounter
  // (harness/device.h); absent on the CPU and in builds that cannot count.
  std::optional<double> host_syncs_per_step;
  // Inference only: rank 0's latency of one batch (a step waited for alone), in milliseconds, over
  // repeats x timed_steps steps after the timed windows; the nearest-rank percentiles.
  std::optional<double> latency_p50_ms, latency_p90_ms, latency_p99_ms;
};

// The nearest-rank percentile (`percent` in (0, 100]) of `values`: the smallest value with at least
// that share of the values at or below it. NaN for no values.
double nearest_rank_percentile(std::vector<double> values, double percent);

struct BenchReport {
  std::string workload;
  std::string platform;
  std::string device_model;
  int world_size = 1;
  int threads_per_rank = 1;
  std::vector<BenchCaseResult> cases;
};

BenchReport run_bench(Workload& workload, const std::string& workload_name, const World& world,
                      const BenchOptions& options, const std::string& platform_label);

std::string format_bench_table(const BenchReport& report);
nlohmann::json bench_report_to_json(const BenchReport& report);

}  // namespace mlh
