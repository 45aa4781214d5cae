// How many cores a rank may use: its CPU affinity, shared fairly with the other ranks of its node
// whose affinities overlap it. Linux only (cpu_set_t); no MPI and no LibTorch here, World gathers
// the masks.
#pragma once

#include <sched.h>

#include <functional>
#include <vector>

namespace mlh {

// The calling thread's CPU affinity; every online CPU if it cannot be read.
cpu_set_t current_cpu_affinity();

// True when OpenMPI (4.x) bound this process at launch by its own default policy, not because the
// user asked: `mpirun -np 1` and `-np 2` bind each rank to a single core, more ranks to a socket,
// whatever the node holds. `getenv` is std::getenv, or a test's stand-in.
bool bound_by_mpirun_default(const std::function<const char*(const char*)>& getenv);

// Widens the calling thread's affinity to the CPUs its launcher (the parent process) may use, so that
// threads started afterwards (LibTorch's, the data loader's) can run on all of them. Returns the new
// mask; on failure the affinity is left as it was and returned.
cpu_set_t release_to_launcher_cpus();

// This rank's share of the cores: each CPU in `mine` counts 1/k, where k is the number of masks in
// `node` (every rank of the node, this one included) holding it; rounded down, at least 1. Unbound
// ranks on an 8-core node with 4 ranks get 2 each; ranks bound to their own cores keep them all.
int fair_core_share(const cpu_set_t& mine, const std::vector<cpu_set_t>& node);

}  // namespace mlh
