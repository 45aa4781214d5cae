#include "harness/nccl_communicator.h"

#include <mpi.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "base/user_error.h"

namespace mlh {

namespace {

void check_nccl(ncclResult_t result, const char* what) {
  if (result != ncclSuccess && result != ncclInProgress)
    throw std::runtime_error(std::string("NCCL ") + what + ": " + ncclGetErrorString(result));
}

ncclDataType_t nccl_type_of(const torch::Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case torch::kFloat: return ncclFloat32;
    case torch::kDouble: return ncclFloat64;
    case torch::kHalf: return ncclFloat16;
    case torch::kBFloat16: return ncclBfloat16;
    case torch::kLong: return ncclInt64;
    case torch::kInt: return ncclInt32;
    case torch::kByte: return ncclUint8;
    default: MLH_ASSERT(!"tensor type without an NCCL equivalent");
  }
  return ncclUint8;
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const torch::Device& device, int rank, int size, std::shared_ptr<Communicator> host)
      : device_(device), host_(std::move(host)) {
    ncclUniqueId id;
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "get unique id");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    const c10::cuda::CUDAGuard guard(device_);
    check_nccl(ncclCommInitRank(&comm_, size, id, rank), "communicator init");
    MpiSession::on_abort(&NcclCommunicator::abort, this);
  }
  ~NcclCommunicator() override {
    MpiSession::forget_abort_hook(this);
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }

  void allreduce_sum(torch::Tensor& tensor) override {
    if (tensor.device().is_cpu()) return host_->allreduce_sum(tensor);
    MLH_ASSERT(tensor.is_contiguous() && tensor.device() == device_);
    check_nccl(ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), static_cast<size_t>(tensor.numel()),
                             nccl_type_of(tensor), ncclSum, comm_, stream()),
               "all-reduce");
  }
  void broadcast(torch::Tensor& tensor, int root) override {
    if (tensor.device().is_cpu()) return host_->broadcast(tensor, root);
    MLH_ASSERT(tensor.is_contiguous() && tensor.device() == device_);
    check_nccl(ncclBroadcast(tensor.data_ptr(), tensor.data_ptr(), static_cast<size_t>(tensor.numel()),
                             nccl_type_of(tensor), root, comm_, stream()),
               "broadcast");
  }
  // Queued device work first, then the ranks meet over MPI.
  void barrier() override {
    at::cuda::getCurrentCUDAStream(device_.index()).synchronize();
    host_->barrier();
  }
  std::string name() const override { return "nccl"; }
  torch::Device device() const override { return device_; }

 private:
  cudaStream_t stream() const { return at::cuda::getCurrentCUDAStream(device_.index()).stream(); }
  static void abort(void* self) {
    auto* communicator = static_cast<NcclCommunicator*>(self);
    if (communicator->comm_ == nullptr) return;
    ncclCommAbort(communicator->comm_);
    communicator->comm_ = nullptr;
  }

  torch::Device device_;
  std::shared_ptr<Communicator> host_;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::shared_ptr<Communicator> make_nccl_communicator(const torch::Device& device, int rank, int size,
                                                     std::shared_ptr<Communicator> host_communicator) {
  MLH_ASSERT(device.is_cuda());
  return std::make_shared<NcclCommunicator>(device, rank, size, std::move(host_communicator));
}

std::string nccl_version() {
  int version = 0;
  ncclGetVersion(&version);
  // NCCL >= 2.9: major * 10000 + minor * 100 + patch.
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

}  // namespace mlh
