#include "harness/world.h"

#include <dlfcn.h>
#include <malloc.h>
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/cpu_block_cache.h"
#include "harness/cpu_share.h"
#include "harness/job_layout.h"

namespace mlh {

namespace {

MPI_Datatype mpi_type_of(const torch::Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case torch::kFloat: return MPI_FLOAT;
    case torch::kDouble: return MPI_DOUBLE;
    case torch::kLong: return MPI_INT64_T;
    case torch::kInt: return MPI_INT32_T;
    case torch::kByte: return MPI_UINT8_T;
    default: MLH_ASSERT(!"tensor type without an MPI equivalent");
  }
  return MPI_BYTE;
}

// MPI on host memory (a GPU tensor goes through a host copy). Large tensors go in pieces so counts
// fit MPI's int.
class MpiCommunicator final : public Communicator {
 public:
  void allreduce_sum(torch::Tensor& tensor) override {
    if (!tensor.device().is_cpu()) {
      torch::Tensor host = tensor.to(torch::kCPU);
      allreduce_sum(host);
      tensor.copy_(host);
      return;
    }
    MLH_ASSERT(tensor.is_contiguous());
    const int64_t chunk = int64_t{1} << 28;
    const int64_t total = tensor.numel();
    char* base = static_cast<char*>(tensor.data_ptr());
    const int64_t element_bytes = tensor.element_size();
    for (int64_t offset = 0; offset < total; offset += chunk) {
      const int count = static_cast<int>(std::min(chunk, total - offset));
      MPI_Allreduce(MPI_IN_PLACE, base + offset * element_bytes, count, mpi_type_of(tensor), MPI_SUM,
                    MPI_COMM_WORLD);
    }
  }
  void broadcast(torch::Tensor& tensor, int root) override {
    if (!tensor.device().is_cpu()) {
      torch::Tensor host = tensor.to(torch::kCPU);
      broadcast(host, root);
      tensor.copy_(host);
      return;
    }
    MLH_ASSERT(tensor.is_contiguous());
    const int64_t bytes = tensor.numel() * tensor.element_size();
    const int64_t chunk = int64_t{1} << 30;
    char* base = static_cast<char*>(tensor.data_ptr());
    for (int64_t offset = 0; offset < bytes; offset += chunk)
      MPI_Bcast(base + offset, static_cast<int>(std::min(chunk, bytes - offset)), MPI_BYTE, root,
                MPI_COMM_WORLD);
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  std::string name() const override { return "mpi"; }
};

// The world of one process: every collective is the identity.
class LocalCommunicator final : public Communicator {
 public:
  void allreduce_sum(torch::Tensor&) override {}
  void broadcast(torch::Tensor&, int) override {}
  void barrier() override {}
  std::string name() const override { return "local"; }
};

std::vector<std::pair<void (*)(void*), void*>>& abort_hooks() {
  static std::vector<std::pair<void (*)(void*), void*>> hooks;
  return hooks;
}

std::mutex& abort_hooks_mutex() {
  static std::mutex mutex;
  return mutex;
}

bool g_mpi_session_active = false;
int g_world_rank = 0;
int g_world_size = 1;
bool g_threads_may_communicate = false;
// The failing ranks' messages to rank 0 travel apart from every collective.
MPI_Comm g_error_comm = MPI_COMM_NULL;
constexpr int kErrorTag = 1;
constexpr size_t kErrorMessageBytes = 2048;  // below every transport's eager limit: a send never waits for rank 0

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  g_threads_may_communicate = provided >= MPI_THREAD_MULTIPLE;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world_size);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_error_comm);
  g_mpi_session_active = true;
}

MpiSession::~MpiSession() {
  MPI_Comm_free(&g_error_comm);
  MPI_Finalize();
  g_mpi_session_active = false;
}

void MpiSession::tell_root_of_error(const std::string& message, std::chrono::milliseconds wait) {
  if (!g_mpi_session_active || g_world_size == 1 || g_world_rank == 0) return;
  const std::string sent = message.substr(0, kErrorMessageBytes);
  MPI_Request request;
  MPI_Isend(sent.data(), static_cast<int>(sent.size()), MPI_CHAR, 0, kErrorTag, g_error_comm, &request);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  int done = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Rank 0 polls for it (harness/peer_error_watch.h); the job ends after this.
  std::this_thread::sleep_for(wait);
}

std::optional<MpiSession::PeerError> MpiSession::take_peer_error() {
  if (!g_mpi_session_active || g_world_size == 1 || g_world_rank != 0) return std::nullopt;
  int waiting = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kErrorTag, g_error_comm, &waiting, &status);
  if (!waiting) return std::nullopt;
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  std::string message(static_cast<size_t>(length), '\0');
  MPI_Recv(message.data(), length, MPI_CHAR, status.MPI_SOURCE, kErrorTag, g_error_comm, MPI_STATUS_IGNORE);
  return PeerError{status.MPI_SOURCE, message};
}

bool MpiSession::threads_may_communicate() { return g_mpi_session_active && g_threads_may_communicate; }

void MpiSession::on_abort(void (*hook)(void*), void* argument) {
  const std::lock_guard<std::mutex> lock(abort_hooks_mutex());
  abort_hooks().emplace_back(hook, argument);
}

void MpiSession::forget_abort_hook(void* argument) {
  const std::lock_guard<std::mutex> lock(abort_hooks_mutex());
  auto& hooks = abort_hooks();
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [&](const auto& hook) { return hook.second == argument; }),
              hooks.end());
}

void MpiSession::abort_job(int exit_code) {
  // Held until the process ends: a second caller (another thread) waits for the first one's exit.
  abort_hooks_mutex().lock();
  for (const auto& [hook, argument] : abort_hooks()) hook(argument);
  // Open MPI's mpirun ends every rank once one exits with a non-zero status, and returns that status.
  // There MPI_Abort's banner races the job's end: mpirun often receives the banner cut short and
  // prints "ORTE_ERROR_LOG: ... show_help.c" instead (Open MPI 4.1). Under other launchers (srun
  // leaves the other tasks running by default) MPI_Abort ends the job.
  const bool open_mpi_mpirun = started_by_open_mpi_mpirun([](const char* name) { return std::getenv(name); });
  if (g_mpi_session_active && !open_mpi_mpirun) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

void MpiSession::fail_job(const std::string& message) {
  std::fprintf(stderr, "mlharness: internal error (rank %d): %s\n", world_rank(), message.c_str());
  std::fflush(stderr);
  abort_job(3);
}

bool MpiSession::active() { return g_mpi_session_active; }

int MpiSession::world_rank() { return g_mpi_session_active ? g_world_rank : 0; }

int MpiSession::world_size() { return g_mpi_session_active ? g_world_size : 1; }

World World::from_mpi() {
  MLH_ASSERT(MpiSession::active());
  World world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &world.local_rank_);
  MPI_Comm_size(node, &world.local_size_);
  std::vector<cpu_set_t> node_masks(static_cast<size_t>(world.local_size_));
  // OpenMPI's default binding gives `-np 1` one core of many: the node's ranks split what their
  // launcher had instead, each its own slice (main has usually moved there already, before the
  // libraries loaded). A binding the user asked for is kept.
  const std::optional<cpu_set_t> own = cpus_in_place_of_mpirun_default(std::getenv, launcher_cpus());
  cpu_set_t mine = own ? *own : current_cpu_affinity();
  // Every thread, also those a library started before main (OpenBLAS's pool, bound with the process
  // at launch); the kernel keeps only the CPUs this process's cgroup allows.
  set_affinity_of_every_thread(mine);
  mine = current_cpu_affinity();
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, node_masks.data(), sizeof mine, MPI_BYTE, node);
  world.cores_per_rank_ = fair_core_share(mine, node_masks);
  MPI_Comm_free(&node);
  if (world.size_ > 1)
    world.comm_ = std::make_shared<MpiCommunicator>();
  else
    world.comm_ = std::make_shared<LocalCommunicator>();
  return world;
}

World World::with_communicator(std::shared_ptr<Communicator> communicator) const {
  MLH_ASSERT(communicator != nullptr);
  World world = *this;
  world.comm_ = std::move(communicator);
  return world;
}

World World::single_process() {
  World world;
  const cpu_set_t mine = current_cpu_affinity();
  world.cores_per_rank_ = std::max(1, CPU_COUNT(&mine));
  world.comm_ = std::make_shared<LocalCommunicator>();
  return world;
}

std::string World::broadcast_string(const std::string& value) const {
  if (size_ == 1) return value;
  int64_t length = static_cast<int64_t>(value.size());
  MPI_Bcast(&length, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  std::string result = rank_ == 0 ? value : std::string(static_cast<size_t>(length), '\0');
  MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  return result;
}

double World::allreduce_sum(double value) const {
  if (size_ == 1) return value;
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return result;
}

std::vector<double> World::allgather(const std::vector<double>& local) const {
  if (size_ == 1) return local;
  const int count = static_cast<int>(local.size());
  MLH_ASSERT(local.size() <= static_cast<size_t>(std::numeric_limits<int>::max()));
  std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int64_t total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<size_t>(r)] = static_cast<int>(total);
    total += counts[static_cast<size_t>(r)];
  }
  MLH_ASSERT(total <= std::numeric_limits<int>::max());
  std::vector<double> all(static_cast<size_t>(total));
  MPI_Allgatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return all;
}

std::vector<std::string> World::allgather_string(const std::string& local) const {
  if (size_ == 1) return {local};
  const int length = static_cast<int>(local.size());
  std::vector<int> lengths(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += lengths[static_cast<size_t>(r)];
  }
  std::string all(static_cast<size_t>(total), '\0');
  MPI_Allgatherv(local.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                 MPI_COMM_WORLD);
  std::vector<std::string> strings;
  for (int r = 0; r < size_; ++r)
    strings.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                                 static_cast<size_t>(lengths[static_cast<size_t>(r)])));
  return strings;
}

double World::allreduce_max(double value) const {
  if (size_ == 1) return value;
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

int configure_threads(const World& world, int blas_threads, int intra_op_threads) {
  const int threads = intra_op_threads > 0 ? intra_op_threads : world.cores_per_rank();
  at::set_num_threads(threads);
  const int blas = blas_threads > 0 ? blas_threads : threads;
  // Whichever BLAS LibTorch was linked against; absent symbols are skipped.
  using SetThreads = void (*)(int);
  for (const char* name : {"openblas_set_num_threads", "mkl_set_num_threads", "bli_thread_set_num_threads"})
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, name))) set(blas);
  return threads;
}

void configure_host_allocator() {
  mallopt(M_MMAP_MAX, 0);  // every block from the heap, which is never trimmed
  mallopt(M_TRIM_THRESHOLD, INT32_MAX);
  mallopt(M_TOP_PAD, 1 << 30);
  install_cpu_block_cache();  // tensors' large blocks reused by size, never split by others
}

}  // namespace mlh
