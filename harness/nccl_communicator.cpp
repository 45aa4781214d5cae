#include "harness/nccl_communicator.h"

#include <mpi.h>
#include <nccl.h>

#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

#include "base/user_error.h"
#include "harness/collective_guard.h"

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
  NcclCommunicator(const torch::Device& device, int rank, int size, std::shared_ptr<Communicator> host,
                   std::chrono::seconds collective_timeout)
      : device_(device),
        host_(std::move(host)),
        collective_timeout_(collective_timeout),
        stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/true, device.index())) {
    MLH_ASSERT(host_ != nullptr);
    ncclUniqueId id;
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "get unique id");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    const c10::cuda::CUDAGuard guard(device_);
    check_nccl(ncclCommInitRank(&comm_, size, id, rank), "communicator init");
    guard_ = std::make_unique<CollectiveGuard>(
        CollectiveGuard::Operations{[this] { ncclCommAbort(comm_); }, [this] { ncclCommDestroy(comm_); },
                                    [this] { return problem(); }},
        CollectiveGuard::Watchdog{});
  }

  void allreduce_sum(torch::Tensor& tensor) override {
    start_allreduce_sum(tensor);
    wait_started_collectives();
  }
  void start_allreduce_sum(torch::Tensor& tensor) override {
    if (tensor.device().is_cpu()) return host_->allreduce_sum(tensor);
    enqueue(tensor, "all-reduce", [&](cudaStream_t stream) {
      return ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), static_cast<size_t>(tensor.numel()),
                           nccl_type_of(tensor), ncclSum, comm_, stream);
    });
  }
  void wait_started_collectives() override {
    std::shared_ptr<c10::cuda::CUDAEvent> last;
    {
      const std::lock_guard<std::mutex> lock(pending_mutex_);
      last = std::move(last_done_);
    }
    if (last) last->block(at::cuda::getCurrentCUDAStream(device_.index()));
  }
  void broadcast(torch::Tensor& tensor, int root) override {
    if (tensor.device().is_cpu()) return host_->broadcast(tensor, root);
    enqueue(tensor, "broadcast", [&](cudaStream_t stream) {
      return ncclBroadcast(tensor.data_ptr(), tensor.data_ptr(), static_cast<size_t>(tensor.numel()),
                           nccl_type_of(tensor), root, comm_, stream);
    });
    wait_started_collectives();
  }
  // Queued device work first, then the ranks meet over MPI.
  void barrier() override {
    wait_started_collectives();
    at::cuda::getCurrentCUDAStream(device_.index()).synchronize();
    host_->barrier();
  }
  std::string name() const override { return "nccl"; }
  torch::Device device() const override { return device_; }

 private:
  struct Pending {
    std::shared_ptr<c10::cuda::CUDAEvent> done;
    std::chrono::steady_clock::time_point started;
  };

  // Queues `collective` on the communicator's stream behind the current stream's work.
  template <typename Collective>
  void enqueue(const torch::Tensor& tensor, const char* what, Collective collective) {
    MLH_ASSERT(tensor.is_contiguous() && tensor.device() == device_);
    if (guard_->aborted()) throw std::runtime_error(std::string("NCCL ") + what + " on an aborted communicator");
    const c10::cuda::CUDAGuard device_guard(device_);
    c10::cuda::CUDAEvent ready;
    ready.record(at::cuda::getCurrentCUDAStream(device_.index()));
    ready.block(stream_);
    // The caller may free the tensor once it returns: its memory is not reused before the
    // collective is done with it.
    c10::cuda::CUDACachingAllocator::recordStream(tensor.storage().data_ptr(), stream_);
    check_nccl(collective(stream_.stream()), what);
    auto done = std::make_shared<c10::cuda::CUDAEvent>();
    done->record(stream_);
    const std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_.push_back({done, std::chrono::steady_clock::now()});
    last_done_ = std::move(done);
  }

  // The watchdog's question (harness/collective_guard.h): NCCL's asynchronous error, or the oldest
  // collective still running past the timeout.
  std::string problem() {
    const c10::cuda::CUDAGuard device_guard(device_);  // this thread's CUDA calls on the rank's GPU only
    ncclResult_t async_error = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &async_error) == ncclSuccess && async_error != ncclSuccess &&
        async_error != ncclInProgress)
      return std::string("NCCL reports ") + ncclGetErrorString(async_error) + ": " + ncclGetLastError(comm_);
    const std::lock_guard<std::mutex> lock(pending_mutex_);
    while (!pending_.empty() && pending_.front().done->query()) pending_.pop_front();
    if (!pending_.empty() && std::chrono::steady_clock::now() - pending_.front().started > collective_timeout_)
      return "an NCCL collective has not completed in " + std::to_string(collective_timeout_.count()) +
             " s (a rank that never joined it?)";
    return "";
  }

  torch::Device device_;
  std::shared_ptr<Communicator> host_;
  std::chrono::seconds collective_timeout_;
  c10::cuda::CUDAStream stream_;
  ncclComm_t comm_ = nullptr;
  std::mutex pending_mutex_;
  std::deque<Pending> pending_;                         // oldest first; the watchdog drops the done
  std::shared_ptr<c10::cuda::CUDAEvent> last_done_;    // not yet waited for
  std::unique_ptr<CollectiveGuard> guard_;             // last: stops the watchdog before the rest goes
};

}  // namespace

std::shared_ptr<Communicator> make_nccl_communicator(const torch::Device& device, int rank, int size,
                                                     std::shared_ptr<Communicator> host_communicator,
                                                     std::chrono::seconds collective_timeout) {
  MLH_ASSERT(device.is_cuda());
  return std::make_shared<NcclCommunicator>(device, rank, size, std::move(host_communicator), collective_timeout);
}

std::string nccl_version() {
  int version = 0;
  ncclGetVersion(&version);
  // NCCL >= 2.9: major * 10000 + minor * 100 + patch.
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

}  // namespace mlh
