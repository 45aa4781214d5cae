#include "harness/mixed_precision.h"

#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/libtorch_compat.h"

namespace mlh {

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
  was_enabled_ = libtorch::autocast_enabled(cuda_);
  previous_dtype_ = libtorch::autocast_dtype(cuda_);
  libtorch::set_autocast_dtype(cuda_, cuda_ ? torch::kHalf : torch::kBFloat16);
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
