// How many cores a rank may use: its CPU affinity, shared fairly with the other ranks of its node
// whose affinities overlap it. Linux only (cpu_set_t); no MPI and no LibTorch here, World gathers
// the masks.
#pragma once

#include <sched.h>

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlh {

// The calling thread's CPU affinity; every online CPU if it cannot be read.
cpu_set_t current_cpu_affinity();

// True when OpenMPI (4.x) bound this process at launch by its own default policy, not because the
// user asked: `mpirun -np 1` and `-np 2` bind each rank to a single core, more ranks to a socket,
// whatever the node holds. `getenv` is std::getenv, or a test's stand-in.
bool bound_by_mpirun_default(const std::function<const char*(const char*)>& getenv);

// The CPUs the launcher (the parent process: mpirun, or OpenMPI's node daemon) may use; every online
// CPU if they cannot be read.
cpu_set_t launcher_cpus();

// Part `index` of `count` of the CPUs in `cpus`, in CPU order: contiguous blocks as equal as they can
// be (the first `size % count` blocks one CPU larger); with more parts than CPUs, part i takes CPU
// i mod size, so parts share CPUs evenly. How ranks that OpenMPI bound by default take their own
// cores of what mpirun had.
cpu_set_t cpu_slice(const cpu_set_t& cpus, int index, int count);

// The CPUs this rank takes in place of OpenMPI's default binding: slice OMPI_COMM_WORLD_LOCAL_RANK
// of OMPI_COMM_WORLD_LOCAL_SIZE of `launcher` (what the node's mpirun or daemon may use). nullopt
// where OpenMPI did not bind the rank by its default (no launcher, or a `--bind-to` the user chose).
std::optional<cpu_set_t> cpus_in_place_of_mpirun_default(const std::function<const char*(const char*)>& getenv,
                                                         const cpu_set_t& launcher);

// Moves the calling thread onto cpus_in_place_of_mpirun_default(std::getenv, launcher_cpus()) when
// OpenMPI bound this rank by its default; true when its affinity changed. For a program's first
// lines, followed by execv of itself: libraries read the affinity as they load (libgomp counts the
// CPUs its threads may spin on and spins 100 times instead of GOMP_SPINCOUNT when it manages more
// threads than that; OpenBLAS sizes its pool), and only a process that starts on its rank's CPUs
// lets them count right. The kernel may refuse CPUs (cgroup); then false, and no loop of re-execs.
bool take_rank_cpus_before_libraries_start();

// Sets the CPU affinity of every thread of this process (/proc/self/task), the calling one included,
// whoever started it and whenever: libraries start thread pools when they load (OpenBLAS), before
// main can widen or narrow its own mask, and those keep the launcher's binding otherwise. Passes
// over the threads until one finds none left to set, so a thread started meanwhile is not missed.
// Returns the threads whose affinity the kernel refused (0 normally).
int set_affinity_of_every_thread(const cpu_set_t& mask);

// Every thread of this process and its CPU affinity, by thread id, in /proc/self/task's order.
std::vector<std::pair<pid_t, cpu_set_t>> affinity_of_every_thread();

// "0-3,8": the CPUs of a mask as Linux lists them (/proc/<pid>/status's Cpus_allowed_list).
std::string cpu_list(const cpu_set_t& mask);

// This rank's share of the cores: each CPU in `mine` counts 1/k, where k is the number of masks in
// `node` (every rank of the node, this one included) holding it; rounded down, at least 1. Unbound
// ranks on an 8-core node with 4 ranks get 2 each; ranks bound to their own cores keep them all.
int fair_core_share(const cpu_set_t& mine, const std::vector<cpu_set_t>& node);

}  // namespace mlh
