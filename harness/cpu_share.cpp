#include "harness/cpu_share.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

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

cpu_set_t launcher_cpus() {
  cpu_set_t launcher;
  CPU_ZERO(&launcher);
  if (sched_getaffinity(getppid(), sizeof launcher, &launcher) != 0 || CPU_COUNT(&launcher) == 0)
    return every_online_cpu();
  return launcher;
}

cpu_set_t cpu_slice(const cpu_set_t& cpus, int index, int count) {
  std::vector<int> listed;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &cpus)) listed.push_back(cpu);
  cpu_set_t slice;
  CPU_ZERO(&slice);
  const int size = static_cast<int>(listed.size());
  if (size == 0 || count <= 0) return cpus;
  if (count >= size) {
    CPU_SET(listed[static_cast<size_t>(index % size)], &slice);
    return slice;
  }
  const int base = size / count, larger = size % count;
  const int first = index * base + std::min(index, larger);
  const int length = base + (index < larger ? 1 : 0);
  for (int i = first; i < first + length; ++i) CPU_SET(listed[static_cast<size_t>(i)], &slice);
  return slice;
}

std::optional<cpu_set_t> cpus_in_place_of_mpirun_default(const std::function<const char*(const char*)>& getenv,
                                                         const cpu_set_t& launcher) {
  if (!bound_by_mpirun_default(getenv)) return std::nullopt;
  const char* local_rank = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const char* local_size = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (local_rank == nullptr || local_size == nullptr) return std::nullopt;
  const int rank = std::atoi(local_rank), size = std::atoi(local_size);
  if (size < 1 || rank < 0 || rank >= size) return std::nullopt;
  return cpu_slice(launcher, rank, size);
}

bool take_rank_cpus_before_libraries_start() {
  const std::optional<cpu_set_t> own = cpus_in_place_of_mpirun_default(std::getenv, launcher_cpus());
  if (!own) return false;
  const cpu_set_t before = current_cpu_affinity();
  if (CPU_EQUAL(&before, &*own) || sched_setaffinity(0, sizeof *own, &*own) != 0) return false;
  const cpu_set_t after = current_cpu_affinity();
  return !CPU_EQUAL(&before, &after);
}

std::vector<std::pair<pid_t, cpu_set_t>> affinity_of_every_thread() {
  std::vector<std::pair<pid_t, cpu_set_t>> threads;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) {
    threads.emplace_back(static_cast<pid_t>(syscall(SYS_gettid)), current_cpu_affinity());
    return threads;
  }
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const pid_t tid = static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10));
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(tid, sizeof mask, &mask) == 0) threads.emplace_back(tid, mask);  // else it ended
  }
  closedir(tasks);
  return threads;
}

int set_affinity_of_every_thread(const cpu_set_t& mask) {
  std::set<pid_t> refused;
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (const auto& [tid, current] : affinity_of_every_thread()) {
      if (CPU_EQUAL(&current, &mask) || refused.count(tid) != 0) continue;
      if (sched_setaffinity(tid, sizeof mask, &mask) == 0) {
        changed = true;
      } else if (errno != ESRCH) {  // a thread that ended meanwhile needs nothing
        refused.insert(tid);
      }
    }
    if (!changed) break;
  }
  return static_cast<int>(refused.size());
}

std::string cpu_list(const cpu_set_t& mask) {
  std::string list;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &mask)) ++last;
    if (!list.empty()) list += ',';
    list += std::to_string(cpu);
    if (last > cpu) list += '-' + std::to_string(last);
    cpu = last;
  }
  return list;
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
