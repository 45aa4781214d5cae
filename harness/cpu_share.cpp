#include "harness/cpu_share.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mlh {

namespace {

cpu_set_t every_online_cpu() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < std::max(1L, online) && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &mask);
  return mask;
}

}  // namespace

cpu_set_t current_cpu_affinity() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) == 0) return every_online_cpu();
  return mask;
}

bool bound_by_mpirun_default(const std::function<const char*(const char*)>& getenv) {
  const char* bound = getenv("OMPI_MCA_orte_bound_at_launch");
  if (bound == nullptr || std::strcmp(bound, "1") != 0) return false;
  // `--bind-to X` (or the user's own MCA setting) puts the policy in every rank's environment.
  const char* policy = getenv("OMPI_MCA_hwloc_base_binding_policy");
  return policy == nullptr || policy[0] == '\0';
}

cpu_set_t release_to_launcher_cpus() {
  cpu_set_t launcher;
  CPU_ZERO(&launcher);
  if (sched_getaffinity(getppid(), sizeof launcher, &launcher) != 0 || CPU_COUNT(&launcher) == 0)
    launcher = every_online_cpu();
  sched_setaffinity(0, sizeof launcher, &launcher);  // on failure the old mask stays
  return current_cpu_affinity();  // the kernel keeps only the CPUs this process's cgroup allows
}

int fair_core_share(const cpu_set_t& mine, const std::vector<cpu_set_t>& node) {
  double share = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mine)) continue;
    int holders = 0;
    for (const cpu_set_t& mask : node) holders += CPU_ISSET(cpu, &mask) ? 1 : 0;
    share += 1.0 / std::max(1, holders);
  }
  return std::max(1, static_cast<int>(std::floor(share + 1e-9)));
}

}  // namespace mlh
