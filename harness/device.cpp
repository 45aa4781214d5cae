#include "harness/device.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <ATen/Context.h>
#include <torch/cuda.h>
#ifdef MLH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>
#endif

#include "base/user_error.h"
#include "harness/libtorch_compat.h"

namespace mlh {

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string model = line.substr(colon + 1);
    model.erase(0, model.find_first_not_of(" \t"));
    return model;
  }
  return "cpu";
}

}  // namespace

torch::Device choose_rank_device(const std::string& requested, int local_rank, int local_size, int visible_gpus,
                                 bool own_gpu_bound) {
  if (requested != "auto" && requested != "cpu" && requested != "cuda")
    throw UserError("device '" + requested + "' is not one of auto, cpu, cuda");
  if (requested == "cpu") return torch::Device(torch::kCPU);
  if (visible_gpus == 0) {
    if (requested == "cuda")
      throw UserError("device 'cuda' asked for, but this build or machine has no CUDA device "
                      "(build with `launch/setup.sh --cuda`, or use --device cpu)");
    return torch::Device(torch::kCPU);
  }
  if (own_gpu_bound) return torch::Device(torch::kCUDA, 0);
  if (local_size > visible_gpus)
    throw UserError(std::to_string(local_size) + " ranks on this node but " + std::to_string(visible_gpus) +
                    " GPU" + (visible_gpus > 1 ? "s" : "") + " visible: one rank per GPU (mpirun -np " +
                    std::to_string(visible_gpus) + "), or --device cpu");
  return torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(local_rank));
}

bool one_gpu_bound_per_rank(const std::vector<std::string>& node_cuda_visible_devices,
                            const std::vector<int>& node_visible_gpus) {
  if (node_visible_gpus.size() < 2) return false;
  for (const int count : node_visible_gpus)
    if (count != 1) return false;
  std::vector<std::string> named = node_cuda_visible_devices;
  std::sort(named.begin(), named.end());
  if (named.front().empty()) return false;
  return std::adjacent_find(named.begin(), named.end()) == named.end();
}

int cuda_compute_capability(const torch::Device& device) {
#ifdef MLH_WITH_CUDA
  if (device.is_cuda()) {
    const auto* properties = at::cuda::getDeviceProperties(device.index());
    return properties->major * 10 + properties->minor;
  }
#else
  (void)device;
#endif
  return 0;
}

int visible_gpu_count() {
  return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

torch::Device rank_device(const World& world, const std::string& requested) {
  const int visible = requested == "cpu" ? 0 : visible_gpu_count();
  bool own_gpu_bound = false;
  if (requested != "cpu" && world.local_size() > 1) {
    // The node's ranks: their host, CUDA_VISIBLE_DEVICES and GPU count (a collective of every rank).
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const char* bound = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::vector<std::string> hosts = world.allgather_string(host);
    const std::vector<std::string> bindings = world.allgather_string(bound ? bound : "");
    const std::vector<double> counts = world.allgather({static_cast<double>(visible)});
    std::vector<std::string> node_bindings;
    std::vector<int> node_counts;
    for (size_t r = 0; r < hosts.size(); ++r) {
      if (hosts[r] != host) continue;
      node_bindings.push_back(bindings[r]);
      node_counts.push_back(static_cast<int>(counts[r]));
    }
    own_gpu_bound = one_gpu_bound_per_rank(node_bindings, node_counts);
  }
  const torch::Device device =
      choose_rank_device(requested, world.local_rank(), world.local_size(), visible, own_gpu_bound);
#ifdef MLH_WITH_CUDA
  if (device.is_cuda()) c10::cuda::set_device(device.index());
#endif
  return device;
}

void configure_gpu_math(const GpuMath& math) {
  at::Context& context = at::globalContext();
  context.setBenchmarkCuDNN(math.cudnn_benchmark);
  context.setDeterministicCuDNN(math.cudnn_deterministic);
  context.setDeterministicAlgorithms(math.cudnn_deterministic, /*warn_only=*/true);
  libtorch::set_cuda_tf32(math.allow_tf32);
}

#ifdef MLH_WITH_CUDA
// The message of c10::cuda::warn_or_error_on_sync (c10/cuda/CUDAFunctions.cpp).
struct HostSyncCounter::Counting final : c10::WarningHandler {
  void process(const c10::Warning& warning) override {
    if (warning.msg().find("called a synchronizing CUDA operation") != std::string::npos)
      ++count;
    else if (previous != nullptr)
      previous->process(warning);
  }
  c10::WarningHandler* previous = c10::WarningUtils::get_warning_handler();
  int64_t count = 0;
  c10::cuda::SyncDebugMode mode_before = c10::cuda::warning_state().get_sync_debug_mode();
};

bool HostSyncCounter::can_count(const torch::Device& device) { return device.is_cuda(); }

HostSyncCounter::HostSyncCounter(const torch::Device& device) {
  if (!can_count(device)) return;
  counting_ = std::make_unique<Counting>();
  c10::WarningUtils::set_warning_handler(counting_.get());
}

HostSyncCounter::~HostSyncCounter() {
  if (!counting_) return;
  stop();
  c10::WarningUtils::set_warning_handler(counting_->previous);
}

void HostSyncCounter::start() {
  if (counting_) c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
}

void HostSyncCounter::stop() {
  if (counting_) c10::cuda::warning_state().set_sync_debug_mode(counting_->mode_before);
}

int64_t HostSyncCounter::count() const { return counting_ ? counting_->count : 0; }
#else
struct HostSyncCounter::Counting {};
bool HostSyncCounter::can_count(const torch::Device&) { return false; }
HostSyncCounter::HostSyncCounter(const torch::Device&) {}
HostSyncCounter::~HostSyncCounter() = default;
void HostSyncCounter::start() {}
void HostSyncCounter::stop() {}
int64_t HostSyncCounter::count() const { return 0; }
#endif

void synchronize_device(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::string device_name(const torch::Device& device) { return device.str(); }

std::string device_model(const torch::Device& device) {
#ifdef MLH_WITH_CUDA
  if (device.is_cuda()) return at::cuda::getDeviceProperties(device.index())->name;
#endif
  return cpu_model();
}

torch::TensorOptions host_staging_options(torch::ScalarType dtype, const torch::Device& device) {
  return torch::TensorOptions(dtype).pinned_memory(device.is_cuda());
}

torch::Tensor to_device(const torch::Tensor& host, const torch::Device& device) {
  return host.device() == device ? host : host.to(device, /*non_blocking=*/true);
}

torch::Tensor stage_to_device(const torch::Tensor& host, const torch::Device& device) {
  if (host.device() == device) return host;
  if (!device.is_cuda() || host.is_pinned()) return to_device(host, device);
  torch::Tensor pinned = torch::empty(host.sizes(), host_staging_options(host.scalar_type(), device));
  pinned.copy_(host);
  return to_device(pinned, device);
}

}  // namespace mlh
