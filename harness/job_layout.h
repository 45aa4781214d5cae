// Where a job's ranks run: the launcher that started them, the nodes, and each rank's host, local
// rank and device. Rank 0 writes it into the log (`mlharness_launch`) and the run record, so a
// result says whether it came from 8 GPUs on one node or 2 nodes of 4; `report` and the README's
// multi-node section read it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "harness/world.h"

namespace mlh {

// One rank's place in the job.
struct RankPlacement {
  int rank = 0;
  std::string host;            // gethostname()
  int local_rank = 0;          // among the ranks of its node
  std::string device;          // "cpu", "cuda:0"
  int visible_gpus = 0;        // GPUs this rank's process could see (CUDA_VISIBLE_DEVICES applied)
};

struct JobLayout {
  std::string launcher;        // "mpirun (Open MPI)", "srun (SLURM)", "single process", "MPI"
  int ranks = 1;
  int nodes = 1;               // distinct hosts
  int ranks_per_node = 1;      // the most on one node
  int gpus_per_node = 0;       // the most GPUs in use on one node (one per GPU rank); 0 on CPUs
  std::vector<RankPlacement> placements;  // in rank order

  // "2 ranks on 1 node (mpirun (Open MPI))", "8 ranks on 2 nodes, 4 GPUs per node (srun (SLURM))".
  std::string summary() const;
  // {"launcher", "ranks", "nodes", "ranks_per_node", "gpus_per_node", "placement": [{"rank", "host",
  // "local_rank", "device", "visible_gpus"}...]}: the log's mlharness_launch value.
  nlohmann::json to_json() const;
};

// The layout of these placements (any order; a rank appears once).
JobLayout describe_job(std::vector<RankPlacement> placements, const std::string& launcher);

// Whether Open MPI's mpirun started this process: it sets OMPI_MCA_orte_hnp_uri, also inside a SLURM
// allocation. `getenv` is std::getenv outside tests.
bool started_by_open_mpi_mpirun(const std::function<const char*(const char*)>& getenv);

// Who started this process, from the variables launchers set: OMPI_MCA_orte_hnp_uri (Open MPI's
// mpirun, also inside a SLURM allocation), SLURM_PROCID with SLURM_STEP_ID (srun), PMIX_RANK or
// PMI_RANK (another MPI launcher); "single process" without any. `getenv` is std::getenv outside
// tests.
std::string detect_launcher(const std::function<const char*(const char*)>& getenv);

// This job's layout: every rank's host, local rank and device, gathered over MPI. A collective.
JobLayout gather_job_layout(const World& world, const torch::Device& device);

}  // namespace mlh
