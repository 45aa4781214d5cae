// The interface that moves tensors between the ranks of a job; its implementations are MPI's (on
// the CPU, harness/world.cpp) and NCCL's (between GPUs, harness/nccl_communicator.h), and
// harness/device_world.h picks one for a device.
#pragma once

#include <string>

#include <torch/types.h>

namespace mlh {

// Collective operations on whole tensors. Every rank must make the same calls in the same order.
// Tensors may live on the CPU or on the rank's GPU; on device() they take no extra copy.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual void allreduce_sum(torch::Tensor& tensor) = 0;   // in place; contiguous
  // The same sum, started: it may still run when this returns (NCCL: on the communicator's own
  // stream, after the work queued so far on the current stream), so nothing may use `tensor` until
  // wait_started_collectives(). Every rank starts the same collectives in the same order. MPI sums
  // at once.
  virtual void start_allreduce_sum(torch::Tensor& tensor) { allreduce_sum(tensor); }
  // Work queued on the current stream after this call sees every started collective's result (on a
  // GPU the stream waits for them; the host does not).
  virtual void wait_started_collectives() {}
  virtual void broadcast(torch::Tensor& tensor, int root) = 0;
  virtual void barrier() = 0;
  virtual std::string name() const = 0;
  // Where its collectives' tensors live best: the CPU for MPI, the rank's GPU for NCCL. Callers that
  // build a flat buffer for a collective build it there.
  virtual torch::Device device() const { return torch::kCPU; }
};

}  // namespace mlh
