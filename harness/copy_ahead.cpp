#include "harness/copy_ahead.h"

#include <utility>

#ifdef MLH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#endif

#include "base/user_error.h"
#include "harness/device.h"

namespace mlh {

#ifdef MLH_WITH_CUDA
struct CopyAhead::CudaCopy {
  explicit CudaCopy(c10::DeviceIndex index) : stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, index)) {}
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAEvent copied;
};
#else
struct CopyAhead::CudaCopy {};
#endif

CopyAhead::CopyAhead(const torch::Device& device) : device_(device) {
#ifdef MLH_WITH_CUDA
  if (device_.is_cuda()) cuda_ = std::make_unique<CudaCopy>(device_.index());
#endif
}

CopyAhead::~CopyAhead() = default;

void CopyAhead::start(std::vector<torch::Tensor> host) {
  MLH_ASSERT(!started_);
  started_ = true;
  if (cuda_ == nullptr) {
    in_flight_ = std::move(host);
    return;
  }
#ifdef MLH_WITH_CUDA
  // Device memory allocated here belongs to the copy stream; the host allocator records the copy
  // stream's event on each pinned source.
  const c10::cuda::CUDAStreamGuard on_copy_stream(cuda_->stream);
  in_flight_.clear();
  for (const torch::Tensor& tensor : host) in_flight_.push_back(stage_to_device(tensor, device_));
  cuda_->copied.record(cuda_->stream);
#endif
}

std::vector<torch::Tensor> CopyAhead::take() {
  MLH_ASSERT(started_);
  started_ = false;
#ifdef MLH_WITH_CUDA
  if (cuda_ != nullptr) {
    const c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(device_.index());
    cuda_->copied.block(compute);
    // Freed after the compute stream's use, not merely after the copy stream's.
    for (const torch::Tensor& tensor : in_flight_) {
      c10::cuda::CUDACachingAllocator::recordStream(tensor.storage().data_ptr(), compute);
    }
  }
#endif
  return std::move(in_flight_);
}

}  // namespace mlh
