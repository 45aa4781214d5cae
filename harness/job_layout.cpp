#include "harness/job_layout.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "base/user_error.h"
#include "harness/device.h"

namespace mlh {

namespace {

std::string plural(int count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

}  // namespace

std::string JobLayout::summary() const {
  std::string text = plural(ranks, "rank") + " on " + plural(nodes, "node");
  if (gpus_per_node > 0) text += ", " + plural(gpus_per_node, "GPU") + " per node";
  return text + " (" + launcher + ")";
}

nlohmann::json JobLayout::to_json() const {
  nlohmann::json placement = nlohmann::json::array();
  for (const RankPlacement& p : placements)
    placement.push_back({{"rank", p.rank},
                         {"host", p.host},
                         {"local_rank", p.local_rank},
                         {"device", p.device},
                         {"visible_gpus", p.visible_gpus}});
  return {{"launcher", launcher},         {"ranks", ranks},
          {"nodes", nodes},               {"ranks_per_node", ranks_per_node},
          {"gpus_per_node", gpus_per_node}, {"placement", placement}};
}

JobLayout describe_job(std::vector<RankPlacement> placements, const std::string& launcher) {
  MLH_ASSERT(!placements.empty());
  std::sort(placements.begin(), placements.end(),
            [](const RankPlacement& a, const RankPlacement& b) { return a.rank < b.rank; });
  JobLayout layout;
  layout.launcher = launcher;
  layout.ranks = static_cast<int>(placements.size());
  std::map<std::string, int> ranks_on_host, gpus_on_host;
  for (const RankPlacement& p : placements) {
    ++ranks_on_host[p.host];
    if (p.device.rfind("cuda", 0) == 0) ++gpus_on_host[p.host];
  }
  layout.nodes = static_cast<int>(ranks_on_host.size());
  for (const auto& [host, count] : ranks_on_host) layout.ranks_per_node = std::max(layout.ranks_per_node, count);
  for (const auto& [host, count] : gpus_on_host) layout.gpus_per_node = std::max(layout.gpus_per_node, count);
  layout.placements = std::move(placements);
  return layout;
}

bool started_by_open_mpi_mpirun(const std::function<const char*(const char*)>& getenv) {
  return getenv("OMPI_MCA_orte_hnp_uri") != nullptr;
}

std::string detect_launcher(const std::function<const char*(const char*)>& getenv) {
  if (started_by_open_mpi_mpirun(getenv)) return "mpirun (Open MPI)";
  // srun starts the ranks itself (PMIx or PMI-2) and gives each its step and task ids; in the batch
  // script outside srun, SLURM_STEP_ID is not a step of tasks.
  if (getenv("SLURM_PROCID") != nullptr && getenv("SLURM_STEP_ID") != nullptr) return "srun (SLURM)";
  if (getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return "mpirun (Open MPI)";
  if (getenv("PMIX_RANK") != nullptr || getenv("PMI_RANK") != nullptr) return "MPI (PMI)";
  return "single process";
}

JobLayout gather_job_layout(const World& world, const torch::Device& device) {
  const std::vector<std::string> hosts = world.allgather_string(this_host());
  const std::vector<std::string> devices = world.allgather_string(device_name(device));
  const std::vector<double> numbers =
      world.allgather({static_cast<double>(world.local_rank()),
                       static_cast<double>(device.is_cuda() ? visible_gpu_count() : 0)});
  std::vector<RankPlacement> placements(static_cast<size_t>(world.size()));
  for (int r = 0; r < world.size(); ++r) {
    RankPlacement& p = placements[static_cast<size_t>(r)];
    p.rank = r;
    p.host = hosts[static_cast<size_t>(r)];
    p.device = devices[static_cast<size_t>(r)];
    p.local_rank = static_cast<int>(numbers[2 * static_cast<size_t>(r)]);
    p.visible_gpus = static_cast<int>(numbers[2 * static_cast<size_t>(r) + 1]);
  }
  return describe_job(std::move(placements), detect_launcher([](const char* name) { return std::getenv(name); }));
}

}  // namespace mlh
