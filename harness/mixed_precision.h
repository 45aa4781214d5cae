// Mixed precision as a step uses it: `amp` means autocast to fp16 with dynamic loss scaling on CUDA
// (as the MLPerf references run), and autocast to bf16 on the CPU (bf16 keeps fp32's exponent range,
// so it needs no scaling). `bf16` means autocast to bf16 on either (Ampere and newer GPUs), no
// scaling. `fp32` means neither; on an Ampere or newer GPU its matrix products and convolutions run
// on TF32 tensor cores when the engine's allow_tf32 is on (the default, as PyTorch's references ran
// on A100), and every label then says tf32. `fp32-strict` is fp32 with TF32 off. The training step (harness/train_step.h) runs each shard's forward pass and
// loss in an AutocastScope and scales the loss with a DynamicLossScaler, inert unless the precision
// needs it; evaluation and inference benches use the AutocastScope alone.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "harness/training_state.h"

namespace mlh {

enum class Precision { kFp32, kFp32Strict, kAmp, kBf16 };

// The names of the precisions, as configs and flags spell them: fp32, fp32-strict, amp, bf16.
const std::vector<std::pair<std::string, Precision>>& precision_names();
// "fp32", "fp32-strict", "amp" or "bf16"; anything else is a UserError naming `what` (a key or flag).
Precision parse_precision(const std::string& name, const std::string& what = "precision");
// fp32 or fp32-strict: no autocast, no loss scaling.
bool is_fp32(Precision precision);

// What the hardware under a device offers a precision (precision_note's and describe_precision's facts).
struct PrecisionHardware {
  bool cuda = false;
  int cuda_capability = 0;              // major * 10 + minor: 70 Volta (fp16 tensor cores), 80 Ampere (bf16, TF32)
  bool tf32_enabled = false;            // CUDA: fp32 matrix products or convolutions may use TF32 now
  std::string device_model;             // "Tesla T4", "AMD EPYC"
  bool cpu_bf16_instructions = false;   // avx512_bf16 or amx_bf16 in /proc/cpuinfo
  std::string cpu_kernel_level;         // the level LibTorch's CPU kernels were dispatched at: "AVX2", "AVX512"
  std::string libtorch_version;         // "1.13.1"
};
PrecisionHardware precision_hardware(const torch::Device& device);

// What the precision means on this hardware: "fp32", "tf32 (fp32 with TF32 tensor-core matrix
// products and convolutions)" (fp32 on a GPU of capability >= 80 with TF32 on), "amp (fp16 autocast +
// loss scaling)", "amp (bf16 autocast)", "bf16 (bf16 autocast)". fp32-strict says "fp32".
std::string describe_precision(Precision precision, const PrecisionHardware& hardware);
// The same for this device, as it is set now.
std::string describe_precision(Precision precision, const torch::Device& device);
// Whether the label names TF32 (describe_precision's "tf32 ...").
bool uses_tf32(const std::string& precision_used);

// fp32-strict turns TF32 off process-wide (CUDA); every other precision leaves the engine's
// allow_tf32 as it is. Call once the run's precision is known, before the model runs.
void apply_precision_to_gpu_math(Precision precision);

// One line for the start of a run (and bench's table) when `precision` on this hardware is not what
// it means on a recent GPU (amp on a CPU falls back to bf16 autocast) or runs without hardware for it
// (bf16 converted to and from fp32 around each operation on a CPU whose LibTorch kernels lack bf16
// instructions; bf16 on a GPU before Ampere; fp16 without tensor cores before Volta): what happens
// and what it costs. "" when the device runs the precision as asked (and always for fp32).
std::string precision_note(Precision precision, const PrecisionHardware& hardware);

// Autocast on `device`'s type for the scope's lifetime (no-op for fp32); restores the previous state.
class AutocastScope {
 public:
  AutocastScope(Precision precision, const torch::Device& device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  bool cuda_ = false;
  bool was_enabled_ = false;
  torch::ScalarType previous_dtype_ = torch::kFloat;
};

// Dynamic loss scaling (as torch.cuda.amp.GradScaler): the loss is multiplied by `scale` before
// backward; gradients are divided by it before the optimizer step, and a step whose gradients hold
// inf or NaN is skipped and halves the scale; `growth_interval` finite steps in a row double it.
// Everything stays on the device, with no host read per step: the verdict is found_inf(), which the
// optimizer takes (Optimizer::step) and which makes it change nothing; update() moves the scale
// and counts skipped steps on the device. On CUDA the check and the update are LibTorch's fused
// kernels (as GradScaler's); elsewhere the same arithmetic op by op. Unscale after the gradient
// all-reduce, so every rank sees the same verdict.
class DynamicLossScaler {
 public:
  struct Options {
    double initial_scale = 65536.0;
    double growth_factor = 2.0;
    double backoff_factor = 0.5;
    int64_t growth_interval = 2000;
  };
  // Enabled only for amp on CUDA, where autocast produces fp16.
  static bool needed(Precision precision, const torch::Device& device);
  explicit DynamicLossScaler(bool enabled, torch::Device device = torch::kCPU)
      : DynamicLossScaler(enabled, Options(), device) {}
  DynamicLossScaler(bool enabled, Options options, torch::Device device = torch::kCPU);

  bool enabled() const { return enabled_; }
  bool fused() const { return fused_; }  // LibTorch's fused kernels (on CUDA)
  double scale() const;                 // reads the device
  int64_t skipped_steps() const;        // reads the device (0 when disabled)
  torch::Tensor scale_loss(const torch::Tensor& loss) const;
  // Unscales the gradients of `parameters` in place (those that have one; none is fine) and sets
  // found_inf(). A no-op when disabled.
  void unscale_gradients(const std::vector<torch::Tensor>& parameters);
  // Float [1] on the device: 1 when the last unscale found inf or NaN, else 0; undefined when
  // disabled. Pass it to Optimizer::step.
  const torch::Tensor& found_inf() const { return found_inf_; }
  // After the step was taken or skipped: the scale's update and the skipped-step count, on the device.
  void update();
  // The scale, its growth count and the skipped steps, as "<prefix>/..." for a checkpoint.
  void save_state(TrainingState& state, const std::string& prefix) const;
  void load_state(const TrainingState& state, const std::string& prefix);

 private:
  bool enabled_;
  bool fused_;
  Options options_;
  // On the device, when enabled:
  torch::Tensor scale_;           // float [1]
  torch::Tensor growth_tracker_;  // int [1], finite steps in a row
  torch::Tensor found_inf_;       // float [1], 1 when the last check found inf or NaN
  torch::Tensor skipped_steps_;   // double [1]
};

}  // namespace mlh
