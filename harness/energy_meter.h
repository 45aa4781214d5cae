// The energy a rank's GPU draws during the timed run, from NVML, loaded at run time (dlopen of
// libnvidia-ml.so.1) so that the binary starts where there is no driver. A thread samples the
// board's power every `sample_period_s`; where the GPU has a total-energy counter (Volta and newer)
// the energy is the counter's difference, else the integral of the samples. On the CPU, or without
// NVML, the meter is unavailable and says why; the run record then has no energy fields.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include <torch/types.h>

namespace mlh {

class EnergyMeter {
 public:
  // `nvml_library` is the library to load (tests name one that does not exist).
  explicit EnergyMeter(const torch::Device& device, double sample_period_s = 0.1,
                       const std::string& nvml_library = "libnvidia-ml.so.1");
  ~EnergyMeter();
  EnergyMeter(const EnergyMeter&) = delete;
  EnergyMeter& operator=(const EnergyMeter&) = delete;

  bool available() const { return nvml_ != nullptr; }
  // "nvml", or why there is no measurement ("no NVML: ...", "the run is on the CPU ...").
  const std::string& source() const { return source_; }

  void start();  // run_start
  void stop();   // run_stop
  double joules() const { return joules_; }          // between start and stop
  double mean_watts() const { return mean_watts_; }  // of the samples
  int64_t samples() const { return sample_count_; }

 private:
  struct Nvml;
  std::unique_ptr<Nvml> nvml_;
  std::string source_;
  double sample_period_s_;
  std::thread sampler_;
  std::atomic<bool> sampling_{false};
  double joules_ = 0;
  double mean_watts_ = 0;
  int64_t sample_count_ = 0;
  double integrated_joules_ = 0;
  unsigned long long counter_start_mj_ = 0;
  bool counter_ = false;
};

}  // namespace mlh
