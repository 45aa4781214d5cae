#include "harness/mixed_precision.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "base/user_error.h"

// LibTorch 2.4 replaced the per-device autocast setters with ones taking a device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define MLH_AUTOCAST_BY_DEVICE_TYPE 1
#endif

namespace mlh {

namespace {

bool autocast_enabled(bool cuda) {
#ifdef MLH_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU);
#else
  return cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

void set_autocast_enabled(bool cuda, bool enabled) {
#ifdef MLH_AUTOCAST_BY_DEVICE_TYPE
  at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, enabled);
#else
  if (cuda)
    at::autocast::set_enabled(enabled);
  else
    at::autocast::set_cpu_enabled(enabled);
#endif
}

torch::ScalarType autocast_dtype(bool cuda) {
#ifdef MLH_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU);
#else
  return cuda ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}

void set_autocast_dtype(bool cuda, torch::ScalarType dtype) {
#ifdef MLH_AUTOCAST_BY_DEVICE_TYPE
  at::autocast::set_autocast_dtype(cuda ? at::kCUDA : at::kCPU, dtype);
#else
  if (cuda)
    at::autocast::set_autocast_gpu_dtype(dtype);
  else
    at::autocast::set_autocast_cpu_dtype(dtype);
#endif
}

}  // namespace

const std::vector<std::pair<std::string, Precision>>& precision_names() {
  static const std::vector<std::pair<std::string, Precision>> names = {{"fp32", Precision::kFp32},
                                                                       {"amp", Precision::kAmp}};
  return names;
}

Precision parse_precision(const std::string& name, const std::string& what) {
  for (const auto& [known, precision] : precision_names())
    if (name == known) return precision;
  throw UserError(what + " is '" + name + "'; expected fp32 or amp");
}

std::string describe_precision(Precision precision, const torch::Device& device) {
  if (precision == Precision::kFp32) return "fp32";
  return device.is_cuda() ? "amp (fp16 autocast + loss scaling)" : "amp (bf16 autocast)";
}

AutocastScope::AutocastScope(Precision precision, const torch::Device& device) {
  if (precision == Precision::kFp32) return;
  active_ = true;
  cuda_ = device.is_cuda();
  was_enabled_ = autocast_enabled(cuda_);
  previous_dtype_ = autocast_dtype(cuda_);
  set_autocast_dtype(cuda_, cuda_ ? torch::kHalf : torch::kBFloat16);
  set_autocast_enabled(cuda_, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Leaving the outermost scope drops the cache of fp16/bf16 weight copies, as torch.autocast does.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast_enabled(cuda_, was_enabled_);
  set_autocast_dtype(cuda_, previous_dtype_);
}

bool DynamicLossScaler::needed(Precision precision, const torch::Device& device) {
  return precision == Precision::kAmp && device.is_cuda();
}

DynamicLossScaler::DynamicLossScaler(bool enabled, Options options)
    : enabled_(enabled), options_(options), scale_(options.initial_scale) {
  MLH_ASSERT(options_.initial_scale > 0 && options_.growth_factor >= 1 && options_.backoff_factor > 0 &&
             options_.backoff_factor < 1 && options_.growth_interval >= 1);
}

torch::Tensor DynamicLossScaler::scale_loss(const torch::Tensor& loss) const {
  return enabled_ ? loss * scale_ : loss;
}

bool DynamicLossScaler::unscale_gradients(const std::vector<torch::Tensor>& parameters) {
  if (!enabled_) return true;
  torch::Tensor non_finite;
  const double inverse = 1.0 / scale_;
  for (const auto& p : parameters) {
    torch::Tensor grad = p.grad();
    if (!grad.defined()) continue;
    grad.mul_(inverse);
    torch::Tensor bad = grad.isfinite().logical_not().any();
    non_finite = non_finite.defined() ? non_finite.logical_or(bad) : bad;
  }
  // One device-to-host read for the whole model.
  return !non_finite.defined() || !non_finite.item<bool>();
}

void DynamicLossScaler::update(bool gradients_finite) {
  if (!enabled_) return;
  if (!gradients_finite) {
    scale_ *= options_.backoff_factor;
    finite_in_a_row_ = 0;
    ++skipped_steps_;
    return;
  }
  if (++finite_in_a_row_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    finite_in_a_row_ = 0;
  }
}

}  // namespace mlh
