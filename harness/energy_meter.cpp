#include "harness/energy_meter.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>

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

namespace mlh {

namespace {

namespace fs = std::filesystem;

// The first line of a small sysfs file, or "" with `error` set (strerror of the failed call).
std::string read_line(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return "";
  }
  char buffer[64];
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  const int read_errno = errno;
  ::close(fd);
  if (n < 0) {
    error = std::strerror(read_errno);
    return "";
  }
  std::string line(buffer, static_cast<size_t>(n));
  line = line.substr(0, line.find('\n'));
  error.clear();
  return line;
}

std::string not_readable(const std::string& why) { return "cpu energy: not readable (" + why + ")"; }

}  // namespace

CpuEnergyMeter::CpuEnergyMeter(bool reads_node, const std::string& powercap_root, double sample_period_s)
    : reads_node_(reads_node), root_(powercap_root), sample_period_s_(sample_period_s) {
  if (!reads_node_) return;
  std::error_code error;
  if (!fs::is_directory(root_, error)) {
    failure_ = not_readable(root_ + " absent");
    return;
  }
  // intel-rapl:N, not intel-rapl:N:M (a subzone) nor intel-rapl-mmio:N (the same packages again).
  const std::regex package_zone("intel-rapl:([0-9]+)");
  std::vector<std::pair<int, fs::path>> zones;
  for (const auto& entry : fs::directory_iterator(root_, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, match, package_zone)) zones.emplace_back(std::stoi(match[1].str()), entry.path());
  }
  std::sort(zones.begin(), zones.end());
  for (const auto& [index, zone] : zones) {
    std::string why;
    const std::string name = read_line((zone / "name").string(), why);
    if (name.rfind("package", 0) != 0) continue;  // psys: the platform, more than the CPUs
    Package package;
    package.name = name;
    package.energy_path = (zone / "energy_uj").string();
    const std::string range_path = (zone / "max_energy_range_uj").string();
    if (!read_counter(range_path, package.max_range_uj) || !read_counter(package.energy_path, package.last_uj)) return;
    if (package.max_range_uj == 0) {
      failure_ = not_readable(range_path + ": 0");
      return;
    }
    packages_.push_back(package);
  }
  if (packages_.empty()) failure_ = not_readable("no RAPL package domain under " + root_);
}

CpuEnergyMeter::~CpuEnergyMeter() {
  if (sampling_) stop();
}

bool CpuEnergyMeter::read_counter(const std::string& path, uint64_t& value) {
  std::string why;
  const std::string text = read_line(path, why);
  if (!why.empty()) {
    failure_ = not_readable(path + ": " + why);
    return false;
  }
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0) {
    failure_ = not_readable(path + ": '" + text + "' is not a count of microjoules");
    return false;
  }
  value = parsed;
  return true;
}

std::string CpuEnergyMeter::source() const {
  if (!reads_node_) return "cpu energy: read by the first rank of this node";
  if (!failure_.empty()) return failure_;
  std::string names;
  for (const Package& p : packages_) names += (names.empty() ? "" : ", ") + p.name;
  return "rapl: " + names + " (DRAM not counted)";
}

void CpuEnergyMeter::start() {
  if (!available() || sampling_) return;
  joules_ = 0;
  for (Package& p : packages_)
    if (!read_counter(p.energy_path, p.last_uj)) return;
  if (sample_period_s_ <= 0) return;
  sampling_ = true;
  sampler_ = std::thread([this] {
    const auto period = std::chrono::duration<double>(sample_period_s_);
    while (sampling_) {
      std::this_thread::sleep_for(period);
      if (sampling_) sample();
    }
  });
}

void CpuEnergyMeter::sample() {
  if (!available()) return;
  for (Package& p : packages_) {
    uint64_t now = 0;
    if (!read_counter(p.energy_path, now)) return;
    const uint64_t increase = now >= p.last_uj ? now - p.last_uj : p.max_range_uj - std::min(p.last_uj, p.max_range_uj) + now;
    joules_ += static_cast<double>(increase) / 1e6;
    p.last_uj = now;
  }
}

void CpuEnergyMeter::stop() {
  if (sampling_) {
    sampling_ = false;
    sampler_.join();
  }
  sample();
}

EnergyReading read_energy(const EnergyMeter& gpu, const CpuEnergyMeter& cpu, const World& world) {
  EnergyReading reading;
  reading.gpu_source = gpu.source();
  const double gpu_joules = world.allreduce_sum(gpu.joules());
  const bool gpu_measured = world.allreduce_sum(gpu.available() ? 1.0 : 0.0) == world.size() && gpu_joules > 0;
  // Every node's reading rank, once: the packages are the node's, whatever its rank count.
  const double cpu_joules = world.allreduce_sum(cpu.available() ? cpu.joules() : 0.0);
  const double readers = world.allreduce_sum(cpu.reads_node() ? 1.0 : 0.0);
  const double read = world.allreduce_sum(cpu.available() ? 1.0 : 0.0);
  const bool cpu_measured = readers > 0 && read == readers && cpu_joules > 0;
  const int unread = static_cast<int>(readers - read);
  reading.cpu_source = cpu.available() && unread > 0
                           ? "cpu energy: not readable on " + std::to_string(unread) + " of " +
                                 std::to_string(static_cast<int>(readers)) + " nodes"
                           : cpu.source();
  if (gpu_measured) reading.gpu_joules = gpu_joules;
  if (cpu_measured) reading.cpu_joules = cpu_joules;
  return reading;
}

void record_energy(proto::RunResult& result, const EnergyReading& reading, int64_t samples_trained) {
  result.set_energy_source(reading.gpu_source);
  result.set_cpu_energy_source(reading.cpu_source);
  double measured = 0;
  if (reading.gpu_joules) {
    result.set_energy_joules(*reading.gpu_joules);
    measured += *reading.gpu_joules;
  }
  if (reading.cpu_joules) {
    result.set_cpu_energy_joules(*reading.cpu_joules);
    measured += *reading.cpu_joules;
  }
  const bool gpu = reading.gpu_joules.has_value(), cpu = reading.cpu_joules.has_value();
  result.set_energy_measured(gpu && cpu ? "gpu+cpu" : gpu ? "gpu" : cpu ? "cpu" : "");
  if (measured > 0) {
    if (result.time_to_train_seconds() > 0) result.set_mean_power_watts(measured / result.time_to_train_seconds());
    result.set_samples_per_joule(static_cast<double>(samples_trained) / measured);
  }
}

void record_energy(proto::RunResult& result, const EnergyMeter& gpu, const CpuEnergyMeter& cpu, const World& world,
                   int64_t samples_trained) {
  record_energy(result, read_energy(gpu, cpu, world), samples_trained);
}

}  // namespace mlh
