// Prints the CPU affinity of every thread of a rank once World::from_mpi has taken the rank's share
// of the cores, for thread_masks_check.sh to read under each launcher. A thread started before MPI
// (as OpenBLAS starts its pool when the library loads) and one started after both count; the
// process links LibTorch and its BLAS, so their own early threads are among those printed. It starts
// as mlharness does (take_rank_cpus_before_libraries_start, then itself again), and prints the CPUs
// it was loaded on: what libgomp and OpenBLAS counted as they loaded.
//   rank <rank> cores <cores_per_rank> thread <tid> cpus <list>
//   loaded rank <rank> cpus <list>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "harness/cpu_share.h"
#include "harness/world.h"

namespace {

// Read as this program's static objects are made: after the shared libraries' own constructors.
const cpu_set_t g_cpus_at_load = mlh::current_cpu_affinity();

struct Gate {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = false;
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    opened.wait(lock, [this] { return open; });
  }
  void release() {
    { const std::lock_guard<std::mutex> lock(mutex); open = true; }
    opened.notify_all();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (mlh::take_rank_cpus_before_libraries_start()) execv("/proc/self/exe", argv);
  Gate gate;
  std::thread started_before_mpi([&gate] { gate.wait(); });
  int exit_code = 0;
  {
    const mlh::MpiSession mpi(&argc, &argv);
    const mlh::World world = mlh::World::from_mpi();
    std::thread started_after([&gate] { gate.wait(); });
    // One rank prints at a time, so lines of two ranks never interleave.
    for (int rank = 0; rank < world.size(); ++rank) {
      if (rank == world.rank()) {
        std::printf("loaded rank %d cpus %s\n", world.rank(), mlh::cpu_list(g_cpus_at_load).c_str());
        for (const auto& [tid, mask] : mlh::affinity_of_every_thread())
          std::printf("rank %d cores %d thread %d cpus %s\n", world.rank(), world.cores_per_rank(),
                      static_cast<int>(tid), mlh::cpu_list(mask).c_str());
        std::fflush(stdout);
      }
      world.comm().barrier();
    }
    gate.release();
    started_after.join();
  }
  started_before_mpi.join();
  return exit_code;
}
