// The energy a rank's GPU draws during the timed run, from NVML, loaded at run time (dlopen of
// libnvidia-ml.so.1) so that the binary starts where there is no driver. A thread samples the
// board's power every `sample_period_s`; where the GPU has a total-energy counter (Volta and newer)
// the energy is the counter's difference, else the integral of the samples. On the CPU, or without
// NVML, the meter is unavailable and says why; the run record then has no energy fields.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <torch/types.h>

#include "harness/run_result.pb.h"
#include "harness/world.h"

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

// The CPU packages' energy during the timed run, from Linux powercap RAPL counters:
// <powercap_root>/intel-rapl:N/energy_uj, one per CPU package (Intel; AMD Zen on kernels 5.8+ through
// the same interface and names). Package domains only: their subzones (intel-rapl:N:M: cores, uncore,
// DRAM) are parts of a package's count or, for DRAM, outside it, and the platform domain (psys) spans
// more than the CPUs, so DRAM's energy is not counted and nothing is counted twice. The
// intel-rapl-mmio zones repeat the packages through another interface and are skipped too.
//
// Each counter is read at start, every sample_period_s by a thread (often enough that a counter wraps
// at most once between reads: at 1 s that holds below max_energy_range_uj / 1 s, hundreds of kW), and at
// stop. An increase is the counter's difference, or, when the counter went down, the wrap: what was
// left to max_energy_range_uj plus the new value (exact to one counter unit, under a millijoule).
// Counters that cannot be read make the meter unavailable, and source() says which and why. A
// package's energy belongs to its node: only one rank per node reads it (reads_node false: the others).
class CpuEnergyMeter {
 public:
  explicit CpuEnergyMeter(bool reads_node = true, const std::string& powercap_root = "/sys/class/powercap",
                          double sample_period_s = 1.0);
  ~CpuEnergyMeter();
  CpuEnergyMeter(const CpuEnergyMeter&) = delete;
  CpuEnergyMeter& operator=(const CpuEnergyMeter&) = delete;

  bool reads_node() const { return reads_node_; }
  bool available() const { return reads_node_ && !packages_.empty() && failure_.empty(); }
  // "rapl: package-0, package-1 (DRAM not counted)", or why not: "cpu energy: not readable
  // (/sys/class/powercap absent)", "... (/sys/class/powercap/intel-rapl:0/energy_uj: Permission denied)".
  std::string source() const;

  void start();   // run_start: reads every counter; starts the sampling thread when sample_period_s > 0
  void sample();  // reads every counter and adds its increase since the last read
  void stop();    // run_stop: a last read; ends the thread
  double joules() const { return joules_; }  // between start and the last read

 private:
  struct Package {
    std::string name;         // "package-0"
    std::string energy_path;  // .../intel-rapl:0/energy_uj
    uint64_t max_range_uj = 0;
    uint64_t last_uj = 0;
  };
  bool read_counter(const std::string& path, uint64_t& value);

  bool reads_node_;
  std::string root_;
  double sample_period_s_;
  std::vector<Package> packages_;
  std::string failure_;  // why the counters cannot be read ("" while they can)
  std::thread sampler_;
  std::atomic<bool> sampling_{false};
  double joules_ = 0;
};

// The timed run's energy over every rank (a collective): the GPU boards' (NVML) when every rank
// measured its GPU, the CPU packages' (RAPL) when every node's reading rank measured them, and the
// sources of both (or why one is absent).
struct EnergyReading {
  std::string gpu_source;
  std::string cpu_source;
  std::optional<double> gpu_joules;
  std::optional<double> cpu_joules;
};
EnergyReading read_energy(const EnergyMeter& gpu, const CpuEnergyMeter& cpu, const World& world);

// Writes a reading into `result`: energy_joules, cpu_energy_joules, energy_measured (which of the two
// mean_power_watts, over result's time_to_train_seconds, and samples_per_joule cover: "gpu+cpu",
// "gpu", "cpu"; "" with neither), and both sources.
void record_energy(proto::RunResult& result, const EnergyReading& reading, int64_t samples_trained);

// read_energy, then record_energy (a collective).
void record_energy(proto::RunResult& result, const EnergyMeter& gpu, const CpuEnergyMeter& cpu, const World& world,
                   int64_t samples_trained);

}  // namespace mlh
