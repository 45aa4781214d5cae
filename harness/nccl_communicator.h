// NCCL behind the Communicator interface (CUDA builds only, MLH_WITH_CUDA): one communicator per
// job, made from a unique id that rank 0 draws and broadcasts over MPI. Collectives run on the
// communicator's own stream of the rank's GPU: it waits on an event recorded on the current stream
// (so a collective follows the work that produced its input), the allocator is told the tensor is in
// use there (recordStream), and an event recorded after it lets the current stream wait in turn
// (at once for allreduce_sum and broadcast; at wait_started_collectives() for start_allreduce_sum,
// so backward goes on while gradient buckets are summed). The host never waits, except in barrier().
// fp32, fp64, fp16, bf16 and integer tensors. CPU tensors (the engine's scalars) go to the MPI
// communicator it was given, which must exist: MPI stays the control plane.
// Its end of life follows harness/collective_guard.h: aborted, not destroyed, while an exception
// unwinds; aborted first by MpiSession::abort_job; and a watchdog ends the job when NCCL reports an
// asynchronous error or a collective has not completed within `collective_timeout`.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <torch/types.h>

#include "harness/communicator.h"

namespace mlh {

// A collective over all `size` ranks; `device` is this rank's GPU (its current CUDA device).
std::shared_ptr<Communicator> make_nccl_communicator(
    const torch::Device& device, int rank, int size, std::shared_ptr<Communicator> host_communicator,
    std::chrono::seconds collective_timeout = std::chrono::minutes(10));

// "2.27.3": the NCCL this binary runs with.
std::string nccl_version();

}  // namespace mlh
