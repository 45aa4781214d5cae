// Host batches copied to a GPU one batch ahead of the step that uses them, on a stream of their own
// (the input side of a training loop, as DALI's and PyTorch's data prefetchers do it): start() the
// copy of batch b + 1 after step b is queued, and its bytes cross PCIe while the GPU computes step b;
// take() makes the compute stream wait for that copy alone, not for the host. On the CPU it is a
// pass-through: take() returns what start() was given.
//
//   CopyAhead ahead(device);
//   ahead.start(host_tensors(0));
//   for (b = 0; b < n; ++b) {
//     std::vector<torch::Tensor> batch = ahead.take();
//     queue_step(batch);
//     if (b + 1 < n) ahead.start(host_tensors(b + 1));
//   }
//
// Host tensors go through stage_to_device (harness/device.h): pinned ones (host_staging_options) are
// copied as they are, and LibTorch's CUDA host allocator reuses their memory only once the copy is
// done; pageable ones are first copied into pinned memory.
#pragma once

#include <memory>
#include <vector>

#include <torch/types.h>

namespace mlh {

class CopyAhead {
 public:
  explicit CopyAhead(const torch::Device& device);
  ~CopyAhead();
  CopyAhead(const CopyAhead&) = delete;
  CopyAhead& operator=(const CopyAhead&) = delete;

  // Starts copying `host` (CPU tensors) to the device on the copy stream and returns at once. One
  // copy in flight: a start() before the previous one was taken is an InternalError.
  void start(std::vector<torch::Tensor> host);
  bool started() const { return started_; }
  // The started copy's tensors on the device, ready for work queued on the current stream from now
  // on (which waits for the copy's event; their memory is kept from reuse until that work is done).
  // An InternalError when nothing was started.
  std::vector<torch::Tensor> take();

 private:
  struct CudaCopy;  // the copy stream and its event (CUDA builds)
  torch::Device device_;
  std::unique_ptr<CudaCopy> cuda_;
  std::vector<torch::Tensor> in_flight_;
  bool started_ = false;
};

}  // namespace mlh
