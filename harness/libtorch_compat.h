// Everything that differs between the two LibTorch versions mlharness builds against, Debian's 1.13
// (CPU) and PyPI's 2.11 (CUDA), behind one set of names. The rest of the tree calls these and never
// tests TORCH_VERSION itself.
#pragma once

#include <optional>
#include <string>

#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace mlh::libtorch {

// LibTorch 2.4 replaced the per-device autocast functions with ones taking a device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)

inline bool autocast_enabled(bool cuda) { return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU); }
inline void set_autocast_enabled(bool cuda, bool enabled) {
  at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, enabled);
}
inline at::ScalarType autocast_dtype(bool cuda) { return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU); }
inline void set_autocast_dtype(bool cuda, at::ScalarType dtype) {
  at::autocast::set_autocast_dtype(cuda ? at::kCUDA : at::kCPU, dtype);
}

#else

inline bool autocast_enabled(bool cuda) { return cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled(); }
inline void set_autocast_enabled(bool cuda, bool enabled) {
  if (cuda)
    at::autocast::set_enabled(enabled);
  else
    at::autocast::set_cpu_enabled(enabled);
}
inline at::ScalarType autocast_dtype(bool cuda) {
  return cuda ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
}
inline void set_autocast_dtype(bool cuda, at::ScalarType dtype) {
  if (cuda)
    at::autocast::set_autocast_gpu_dtype(dtype);
  else
    at::autocast::set_autocast_cpu_dtype(dtype);
}

#endif

// TF32 tensor cores for fp32 matrix products, convolutions and RNNs on CUDA (Ampere and newer).
// LibTorch 2.10 deprecated the allow_tf32 flags for the per-backend, per-op fp32 precision
// (torch.backends.fp32_precision); 1.13 has only the flags.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 10)

inline void set_cuda_tf32(bool enabled) {
  const at::Float32Precision precision = enabled ? at::Float32Precision::TF32 : at::Float32Precision::IEEE;
  for (const at::Float32Op op : {at::Float32Op::MATMUL, at::Float32Op::CONV, at::Float32Op::RNN})
    at::globalContext().setFloat32Precision(at::Float32Backend::CUDA, op, precision);
}
// Whether fp32 matrix products or convolutions may run on TF32 (either is enough to change results).
inline bool cuda_tf32_enabled() {
  const at::Context& context = at::globalContext();
  return context.float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL) == at::Float32Precision::TF32 ||
         context.float32Precision(at::Float32Backend::CUDA, at::Float32Op::CONV) == at::Float32Precision::TF32;
}

#else

inline void set_cuda_tf32(bool enabled) {
  at::globalContext().setAllowTF32CuBLAS(enabled);
  at::globalContext().setAllowTF32CuDNN(enabled);
}
inline bool cuda_tf32_enabled() {
  return at::globalContext().allowTF32CuBLAS() || at::globalContext().allowTF32CuDNN();
}

#endif

// LibTorch's fused SGD (torch.optim.SGD(fused=True)): one pass over a list of tensors that takes
// found_inf and leaves every tensor as it was when found_inf is nonzero, so a skipped step needs no
// host read. LibTorch 2.x has it (2.11 for CUDA and CPU tensors); 1.13 does not, and then
// MLH_LIBTORCH_HAS_FUSED_SGD is 0 and fused_sgd_ is not declared.
#if TORCH_VERSION_MAJOR >= 2
#define MLH_LIBTORCH_HAS_FUSED_SGD 1
// w -= lr * (nesterov ? d + momentum * v : v), v = momentum * v + d, d = g + weight_decay * w, over
// the lists (one device, one dtype); momentum_buffers empty when momentum is 0.
inline void fused_sgd_(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers,
                       double weight_decay, double momentum, double learning_rate, bool nesterov,
                       const at::Tensor& found_inf) {
  at::_fused_sgd_(params, grads, momentum_buffers, weight_decay, momentum, learning_rate, /*dampening=*/0.0,
                  nesterov, /*maximize=*/false, /*is_first_step=*/false, /*grad_scale=*/{},
                  found_inf.defined() ? std::optional<at::Tensor>(found_inf) : std::nullopt);
}
#else
#define MLH_LIBTORCH_HAS_FUSED_SGD 0
#endif

// c10::Allocator: 2.x's allocate is not const and every allocator defines copy_data; 1.13's
// allocate is const and has no copy_data. An allocator declares
// `c10::DataPtr allocate(size_t bytes) MLH_LIBTORCH_ALLOCATE_CONST override;` and, on 2.x, copy_data.
#if TORCH_VERSION_MAJOR >= 2
#define MLH_LIBTORCH_ALLOCATE_CONST
#define MLH_LIBTORCH_ALLOCATOR_HAS_COPY_DATA 1
#else
#define MLH_LIBTORCH_ALLOCATE_CONST const
#define MLH_LIBTORCH_ALLOCATOR_HAS_COPY_DATA 0
#endif

// "1.13.0", "2.11.0". TORCH_VERSION itself is a string in 1.13 and a number in 2.x; the parts are
// the same macros in both.
inline std::string version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

}  // namespace mlh::libtorch
