// `mlharness bench --loader` for a workload's data pipeline alone: batch after batch of `batch`
// samples walking through its `count` samples and around again (cycling_batches), each pass of 64
// batches a new epoch, so the augmentation draws differ from pass to pass. A loader that decodes on a
// GPU names it as the step's device, which the bench waits for before reading its clock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "datasets/sharded_sampler.h"
#include "harness/device.h"
#include "harness/workload.h"

namespace mlh::common {

class LoaderBenchStep final : public BenchStep {
 public:
  // start(plan, epoch) hands a loader its plan; take_batch() waits for and consumes its next batch.
  // threads: the loader's decode threads (0: not reported). decode_device: where its batches are
  // decoded (the CPU, or the GPU of a GPU decoder).
  using Start = std::function<void(std::vector<std::vector<int32_t>> plan, int64_t epoch)>;
  LoaderBenchStep(int64_t batch, int64_t count, Start start, std::function<void()> take_batch, int threads = 0,
                  torch::Device decode_device = torch::kCPU)
      : batch_(batch),
        count_(count),
        threads_(threads),
        decode_device_(decode_device),
        start_(std::move(start)),
        take_batch_(std::move(take_batch)) {
    start_pass();
  }
  void run() override {
    if (next_ == kBatchesPerPass) start_pass();
    ++next_;
    take_batch_();
  }
  int64_t samples_per_step() const override { return batch_; }
  std::string sample_unit() const override { return "images"; }
  std::string memory_format_used() const override { return "nchw"; }
  int loader_threads() const override { return threads_; }
  std::string device_used() const override { return device_name(decode_device_); }
  void synchronize() override { synchronize_device(decode_device_); }

 private:
  static constexpr int64_t kBatchesPerPass = 64;
  void start_pass() {
    start_(cycling_batches(pass_, kBatchesPerPass, batch_, count_), pass_ + 1);
    ++pass_;
    next_ = 0;
  }
  int64_t batch_, count_;
  int threads_;
  torch::Device decode_device_;
  Start start_;
  std::function<void()> take_batch_;
  int64_t pass_ = 0, next_ = 0;
};

}  // namespace mlh::common
