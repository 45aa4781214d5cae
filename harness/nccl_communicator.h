// NCCL behind the Communicator interface (CUDA builds only, MLH_WITH_CUDA): one communicator per
// job, made from a unique id that rank 0 draws and broadcasts over MPI; collectives run on the
// current CUDA stream of the rank's GPU, so they queue behind the work that produced their input
// and the host does not wait. fp32, fp64, fp16, bf16 and integer tensors. CPU tensors (the engine's
// scalars) go to the MPI communicator it was given: MPI stays the control plane. When the job is
// aborted (MpiSession::abort_job) the communicator is aborted first (ncclCommAbort), so no rank is
// left spinning in a collective whose peer has gone.
#pragma once

#include <memory>

#include <torch/types.h>

#include "harness/world.h"

namespace mlh {

// A collective over all `size` ranks; `device` is this rank's GPU (its current CUDA device).
std::shared_ptr<Communicator> make_nccl_communicator(const torch::Device& device, int rank, int size,
                                                     std::shared_ptr<Communicator> host_communicator);

// "2.27.3": the NCCL this binary runs with.
std::string nccl_version();

}  // namespace mlh
