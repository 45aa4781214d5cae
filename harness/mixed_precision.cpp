#include "harness/mixed_precision.h"

#include <fstream>
#include <sstream>

#include <ATen/Version.h>
#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/device.h"
#include "harness/libtorch_compat.h"

namespace mlh {

const std::vector<std::pair<std::string, Precision>>& precision_names() {
  static const std::vector<std::pair<std::string, Precision>> names = {{"fp32", Precision::kFp32},
                                                                       {"fp32-strict", Precision::kFp32Strict},
                                                                       {"amp", Precision::kAmp},
                                                                       {"bf16", Precision::kBf16}};
  return names;
}

Precision parse_precision(const std::string& name, const std::string& what) {
  for (const auto& [known, precision] : precision_names())
    if (name == known) return precision;
  throw UserError(what + " is '" + name + "'; expected fp32, fp32-strict, amp or bf16");
}

bool is_fp32(Precision precision) { return precision == Precision::kFp32 || precision == Precision::kFp32Strict; }

std::string describe_precision(Precision precision, const PrecisionHardware& hardware) {
  switch (precision) {
    case Precision::kFp32:
      return hardware.cuda && hardware.cuda_capability >= 80 && hardware.tf32_enabled
                 ? "tf32 (fp32 with TF32 tensor-core matrix products and convolutions)"
                 : "fp32";
    case Precision::kFp32Strict: return "fp32";
    case Precision::kBf16: return "bf16 (bf16 autocast)";
    case Precision::kAmp: return hardware.cuda ? "amp (fp16 autocast + loss scaling)" : "amp (bf16 autocast)";
  }
  return "?";
}

std::string describe_precision(Precision precision, const torch::Device& device) {
  PrecisionHardware hardware;
  hardware.cuda = device.is_cuda();
  if (hardware.cuda && precision == Precision::kFp32) {  // the one label that asks the GPU
    hardware.cuda_capability = cuda_compute_capability(device);
    hardware.tf32_enabled = libtorch::cuda_tf32_enabled();
  }
  return describe_precision(precision, hardware);
}

bool uses_tf32(const std::string& precision_used) { return precision_used.rfind("tf32", 0) == 0; }

void apply_precision_to_gpu_math(Precision precision) {
  if (precision == Precision::kFp32Strict) libtorch::set_cuda_tf32(false);
}

PrecisionHardware precision_hardware(const torch::Device& device) {
  PrecisionHardware hardware;
  hardware.cuda = device.is_cuda();
  hardware.cuda_capability = cuda_compute_capability(device);
  hardware.tf32_enabled = hardware.cuda && libtorch::cuda_tf32_enabled();
  hardware.device_model = device_model(device);
  hardware.libtorch_version = libtorch::version();
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream flags(line.substr(line.find(':') + 1));
    for (std::string flag; flags >> flag;)
      hardware.cpu_bf16_instructions = hardware.cpu_bf16_instructions || flag == "avx512_bf16" || flag == "amx_bf16";
    break;
  }
  // at::show_config() has a line " - CPU capability usage: AVX2" in LibTorch 1.13 and 2.x.
  const std::string config = at::show_config();
  const std::string marker = "CPU capability usage: ";
  if (const auto at = config.find(marker); at != std::string::npos) {
    const auto start = at + marker.size();
    hardware.cpu_kernel_level = config.substr(start, config.find_first_of("\n ,", start) - start);
  }
  return hardware;
}

std::string precision_note(Precision precision, const PrecisionHardware& hardware) {
  if (is_fp32(precision)) return "";
  const std::string asked = precision == Precision::kAmp ? "amp" : "bf16";
  if (hardware.cuda) {
    const std::string gpu = hardware.device_model + " (sm_" + std::to_string(hardware.cuda_capability) + ")";
    if (precision == Precision::kBf16 && hardware.cuda_capability < 80)
      return "bf16 on " + gpu + ": bf16 tensor cores came with Ampere (sm_80), so bf16 runs slower here than "
             "precision=amp (fp16 with loss scaling)";
    if (precision == Precision::kAmp && hardware.cuda_capability < 70)
      return "amp on " + gpu + ": fp16 tensor cores came with Volta (sm_70), so fp16 autocast gains little here";
    return "";
  }
  std::string note = precision == Precision::kAmp
                         ? "amp on the CPU is bf16 autocast without loss scaling (fp16 with loss scaling needs a GPU)"
                         : "";
  const bool bf16_kernels = hardware.cpu_bf16_instructions &&
                            (hardware.cpu_kernel_level.find("AVX512") != std::string::npos ||
                             hardware.cpu_kernel_level.find("AMX") != std::string::npos);
  if (!bf16_kernels) {
    note += std::string(note.empty() ? "bf16 on the CPU: " : "; ") + "LibTorch " + hardware.libtorch_version +
            " runs its CPU kernels at " + (hardware.cpu_kernel_level.empty() ? "?" : hardware.cpu_kernel_level) +
            (hardware.cpu_bf16_instructions ? "" : " and this CPU has no bf16 instructions (avx512_bf16, amx_bf16)") +
            ", so bf16 is converted to and from fp32 around most operations: depending on the model, training "
            "runs slower or faster than fp32 (ResNet-50 mini 2.6x slower, Transformer-big 1.2x faster on a "
            "2-core EPYC); `mlharness bench --precision fp32," + asked + "` measures it here, --set precision=fp32 "
            "avoids it";
  }
  return note;
}

AutocastScope::AutocastScope(Precision precision, const torch::Device& device) {
  if (is_fp32(precision)) return;
  active_ = true;
  cuda_ = device.is_cuda();
  was_enabled_ = libtorch::autocast_enabled(cuda_);
  previous_dtype_ = libtorch::autocast_dtype(cuda_);
  libtorch::set_autocast_dtype(cuda_, cuda_ && precision == Precision::kAmp ? torch::kHalf : torch::kBFloat16);
  libtorch::set_autocast_enabled(cuda_, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Leaving the outermost scope drops the cache of fp16/bf16 weight copies, as torch.autocast does.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  libtorch::set_autocast_enabled(cuda_, was_enabled_);
  libtorch::set_autocast_dtype(cuda_, previous_dtype_);
}

bool DynamicLossScaler::needed(Precision precision, const torch::Device& device) {
  return precision == Precision::kAmp && device.is_cuda();
}

DynamicLossScaler::DynamicLossScaler(bool enabled, Options options, torch::Device device)
    : enabled_(enabled), fused_(enabled && device.is_cuda()), options_(options) {
  MLH_ASSERT(options_.initial_scale > 0 && options_.growth_factor >= 1 && options_.backoff_factor > 0 &&
             options_.backoff_factor < 1 && options_.growth_interval >= 1);
  if (!enabled_) return;
  const auto on_device = torch::TensorOptions(torch::kFloat).device(device);
  scale_ = torch::full({1}, options_.initial_scale, on_device);
  growth_tracker_ = torch::zeros({1}, on_device.dtype(torch::kInt));
  found_inf_ = torch::zeros({1}, on_device);
  skipped_steps_ = torch::zeros({1}, on_device.dtype(torch::kDouble));
}

double DynamicLossScaler::scale() const { return enabled_ ? scale_.item<double>() : 1.0; }

int64_t DynamicLossScaler::skipped_steps() const {
  return enabled_ ? static_cast<int64_t>(skipped_steps_.item<double>()) : 0;
}

torch::Tensor DynamicLossScaler::scale_loss(const torch::Tensor& loss) const {
  return enabled_ ? loss * scale_.squeeze() : loss;
}

void DynamicLossScaler::unscale_gradients(const std::vector<torch::Tensor>& parameters) {
  if (!enabled_) return;
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  found_inf_.zero_();
  if (grads.empty()) return;  // LibTorch's fused kernel rejects an empty list
  const torch::Tensor inverse_scale = scale_.reciprocal();
  if (fused_) {
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inverse_scale);
    return;
  }
  torch::Tensor non_finite = torch::zeros({1}, found_inf_.options().dtype(torch::kBool));
  for (torch::Tensor& grad : grads) {
    grad.mul_(inverse_scale);
    non_finite.logical_or_(grad.isfinite().logical_not().any());
  }
  found_inf_.copy_(non_finite);
}

void DynamicLossScaler::update() {
  if (!enabled_) return;
  skipped_steps_.add_(found_inf_);
  if (fused_) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor, options_.backoff_factor,
                           options_.growth_interval);
    return;
  }
  // _amp_update_scale_'s arithmetic: back off and restart the count on inf or NaN; otherwise count,
  // and grow (when the grown scale is finite) and restart at growth_interval.
  const torch::Tensor found = found_inf_.gt(0);
  const torch::Tensor counted = growth_tracker_ + 1;
  const torch::Tensor grown = scale_ * options_.growth_factor;
  const torch::Tensor grow = counted.ge(options_.growth_interval);
  scale_.copy_(torch::where(found, scale_ * options_.backoff_factor,
                            torch::where(grow.logical_and(grown.isfinite()), grown, scale_)));
  growth_tracker_.copy_(torch::where(found.logical_or(grow), torch::zeros_like(counted), counted));
}

void DynamicLossScaler::save_state(TrainingState& state, const std::string& prefix) const {
  state.put_int(prefix + "/skipped_steps", skipped_steps());
  if (!enabled_) return;
  state.put(prefix + "/scale", scale_);
  state.put(prefix + "/growth_tracker", growth_tracker_);
}

void DynamicLossScaler::load_state(const TrainingState& state, const std::string& prefix) {
  const int64_t skipped = state.get_int(prefix + "/skipped_steps");
  if (!enabled_) return;
  skipped_steps_.fill_(static_cast<double>(skipped));
  state.copy_into(prefix + "/scale", scale_);
  state.copy_into(prefix + "/growth_tracker", growth_tracker_);
}

}  // namespace mlh
