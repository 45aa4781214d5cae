#include "harness/energy_meter.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>

#ifdef MLH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace mlh {

// The few NVML entry points the meter needs, by their C signatures (nvml.h), so that no NVML
// header or library is needed to build.
struct EnergyMeter::Nvml {
  using Handle = void*;
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*handle_by_pci_bus_id)(const char*, Handle*) = nullptr;
  int (*power_usage_mw)(Handle, unsigned int*) = nullptr;
  int (*total_energy_mj)(Handle, unsigned long long*) = nullptr;
  Handle device = nullptr;

  ~Nvml() {
    if (shutdown != nullptr) shutdown();
    if (library != nullptr) dlclose(library);
  }
};

EnergyMeter::EnergyMeter(const torch::Device& device, double sample_period_s, const std::string& nvml_library)
    : sample_period_s_(sample_period_s) {
  if (!device.is_cuda()) {
    source_ = "the run is on the CPU (NVML measures GPUs)";
    return;
  }
  auto nvml = std::make_unique<Nvml>();
  nvml->library = dlopen(nvml_library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (nvml->library == nullptr) {
    source_ = "no NVML: cannot load " + nvml_library + " (the NVIDIA driver's library)";
    return;
  }
  auto symbol = [&](const char* name) { return dlsym(nvml->library, name); };
  nvml->init = reinterpret_cast<int (*)()>(symbol("nvmlInit_v2"));
  nvml->handle_by_pci_bus_id = reinterpret_cast<int (*)(const char*, Nvml::Handle*)>(symbol("nvmlDeviceGetHandleByPciBusId_v2"));
  nvml->power_usage_mw = reinterpret_cast<int (*)(Nvml::Handle, unsigned int*)>(symbol("nvmlDeviceGetPowerUsage"));
  nvml->total_energy_mj =
      reinterpret_cast<int (*)(Nvml::Handle, unsigned long long*)>(symbol("nvmlDeviceGetTotalEnergyConsumption"));
  if (nvml->init == nullptr || nvml->handle_by_pci_bus_id == nullptr || nvml->power_usage_mw == nullptr) {
    source_ = "no NVML: " + nvml_library + " lacks the power functions";
    return;
  }
  if (nvml->init() != 0) {
    source_ = "no NVML: nvmlInit failed";
    return;
  }
  nvml->shutdown = reinterpret_cast<int (*)()>(symbol("nvmlShutdown"));
  // NVML counts GPUs its own way (CUDA_VISIBLE_DEVICES does not apply): find ours by PCI address.
  char bus_id[32] = "";
#ifdef MLH_WITH_CUDA
  const cudaDeviceProp* properties = at::cuda::getDeviceProperties(device.index());
  std::snprintf(bus_id, sizeof bus_id, "%08x:%02x:%02x.0", properties->pciDomainID, properties->pciBusID,
                properties->pciDeviceID);
#endif
  if (nvml->handle_by_pci_bus_id(bus_id, &nvml->device) != 0) {
    source_ = std::string("no NVML: no NVML device at PCI address ") + bus_id;
    return;
  }
  unsigned long long energy_mj = 0;
  counter_ = nvml->total_energy_mj != nullptr && nvml->total_energy_mj(nvml->device, &energy_mj) == 0;
  nvml_ = std::move(nvml);
  source_ = "nvml";
}

EnergyMeter::~EnergyMeter() {
  if (sampling_) stop();
}

void EnergyMeter::start() {
  if (!available() || sampling_) return;
  joules_ = mean_watts_ = integrated_joules_ = 0;
  sample_count_ = 0;
  if (counter_) nvml_->total_energy_mj(nvml_->device, &counter_start_mj_);
  sampling_ = true;
  sampler_ = std::thread([this] {
    using Clock = std::chrono::steady_clock;
    const auto period = std::chrono::duration<double>(sample_period_s_);
    double watts_sum = 0;
    auto last = Clock::now();
    while (sampling_) {
      std::this_thread::sleep_for(period);
      unsigned int milliwatts = 0;
      if (nvml_->power_usage_mw(nvml_->device, &milliwatts) != 0) continue;
      const auto now = Clock::now();
      const double watts = milliwatts / 1000.0;
      integrated_joules_ += watts * std::chrono::duration<double>(now - last).count();
      last = now;
      watts_sum += watts;
      ++sample_count_;
      mean_watts_ = watts_sum / static_cast<double>(sample_count_);
    }
  });
}

void EnergyMeter::stop() {
  if (!sampling_) return;
  sampling_ = false;
  sampler_.join();
  joules_ = integrated_joules_;
  unsigned long long energy_mj = 0;
  if (counter_ && nvml_->total_energy_mj(nvml_->device, &energy_mj) == 0 && energy_mj >= counter_start_mj_)
    joules_ = static_cast<double>(energy_mj - counter_start_mj_) / 1000.0;
}

}  // namespace mlh
