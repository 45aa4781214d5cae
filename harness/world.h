// The distributed world: one process per device, ranks from MPI (mpirun or srun), and the
// Communicator that moves tensors between them (MPI here; NCCL's between GPUs comes from
// harness/device_world.h, which the world does not know).
// A single process started without mpirun is a world of size 1.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "harness/communicator.h"

namespace mlh {

// MPI_Init_thread on construction, MPI_Finalize on destruction; one per process, in main.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  // Ends every process of the job, and mpirun exits with `exit_code`; prints nothing itself. Under
  // Open MPI's mpirun this process exits with `exit_code` (mpirun then ends the others, printing
  // its own notice), elsewhere MPI_Abort. Without a session, exits this process with `exit_code`.
  // Hooks registered with on_abort (NCCL's communicator abort, harness/collective_guard.h) run
  // first, so no rank is left in a device collective. Any thread may call it; the hooks run under a
  // lock that forget_abort_hook takes too, so a hook never runs once it has been forgotten.
  [[noreturn]] static void abort_job(int exit_code);
  // Prints "mlharness: internal error (rank R): <message>" on stderr and ends the job with exit
  // status 3 (abort_job): for a thread that finds the job broken where no exception reaches main
  // (the NCCL watchdog).
  [[noreturn]] static void fail_job(const std::string& message);
  // A failing rank's last word to rank 0, which may sit in a collective this rank will never join
  // (rank 0's harness/peer_error_watch.h hears it and ends its log). Rank 0 and a world of one
  // send nothing. Waits at most `wait` for the message to leave, then the same again for rank 0 to
  // take it up; needs no collective.
  static void tell_root_of_error(const std::string& message, std::chrono::milliseconds wait);
  // On rank 0: the first error another rank told, once it has arrived (rank and message). Any thread
  // may call it when threads_may_communicate().
  struct PeerError {
    int rank;
    std::string message;
  };
  static std::optional<PeerError> take_peer_error();
  // Whether MPI lets a second thread communicate while the first sits in a collective
  // (MPI_THREAD_MULTIPLE was granted).
  static bool threads_may_communicate();
  static void on_abort(void (*hook)(void*), void* argument);
  static void forget_abort_hook(void* argument);  // the hooks registered with this argument
  static bool active();
  // This process's rank in MPI_COMM_WORLD and the job's size, read once at MPI_Init (0 and 1 without
  // a session). They need no communication, so an error path may use them while the other ranks sit
  // in a collective that this rank will never join; World::from_mpi() may not be called there.
  static int world_rank();
  static int world_size();
};

class World {
 public:
  // Reads rank, size and the ranks sharing this node from MPI_COMM_WORLD (needs an MpiSession).
  static World from_mpi();
  // A world of one, no MPI (for tests of single-process code).
  static World single_process();
  // This world with another communicator (harness/device_world.h picks NCCL's for a GPU).
  World with_communicator(std::shared_ptr<Communicator> communicator) const;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  bool is_root() const { return rank_ == 0; }
  Communicator& comm() const { return *comm_; }
  const std::shared_ptr<Communicator>& shared_comm() const { return comm_; }

  // Cores this rank may use: its CPU affinity, shared fairly with the ranks of its node whose
  // affinities overlap it (harness/cpu_share.h); at least 1. OpenMPI's default binding (one core per
  // rank under `mpirun -np 1` and `-np 2`) is replaced by the rank's slice of the CPUs mpirun had; a
  // binding asked for with --bind-to is kept. Every thread of the process, whenever it started, ends
  // with the rank's mask.
  int cores_per_rank() const { return cores_per_rank_; }

  // Broadcasts a string from rank 0.
  std::string broadcast_string(const std::string& value) const;
  double allreduce_sum(double value) const;
  double allreduce_max(double value) const;
  // Every rank's `local` values, concatenated in rank order, on every rank (lengths may differ). Over
  // MPI, the control plane: for results gathered once an evaluation (detections), not for gradients.
  std::vector<double> allgather(const std::vector<double>& local) const;
  // Every rank's `local` string, in rank order, on every rank (over MPI, the control plane).
  std::vector<std::string> allgather_string(const std::string& local) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  int cores_per_rank_ = 1;
  std::shared_ptr<Communicator> comm_;
};

// Sets LibTorch's intra-op threads to world.cores_per_rank() (or to `intra_op_threads` when it is
// above 0: models of tiny matrices run faster on one thread), and the BLAS library's own thread
// pool (OpenBLAS, MKL) to `blas_threads` (0: the same count). Returns the intra-op thread count.
// One BLAS thread is the default: LibTorch's pool already holds the cores, two pools oversubscribe
// them (NCF mini trains 2.7x slower on 2 cores), and OpenBLAS's threaded GEMM splits reductions by
// thread count, so results would change with the rank count.
int configure_threads(const World& world, int blas_threads, int intra_op_threads = 0);

// Keeps freed memory in the process (glibc malloc: no trimming, no per-allocation mmap) so that
// tensors reallocated every step reuse warm pages, and makes LibTorch's CPU allocator cache large
// blocks by size (harness/cpu_block_cache.h), so that a step's tensors take back the same blocks
// instead of fragmenting the heap. On virtual machines the kernel's page faults for fresh pages
// otherwise dominate CPU training (NCF at batch 65536: 4x).
void configure_host_allocator();

}  // namespace mlh
