// Where a job's ranks run (harness/job_layout.h): nodes and per-node counts from the ranks'
// placements, the launcher from its variables, and the text and JSON the log and record get.
#include "harness/job_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace mlh {
namespace {

std::function<const char*(const char*)> environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

TEST(JobLayout, TwoNodesOfFourGpusGivenInAnyOrder) {
  std::vector<RankPlacement> placements;
  for (int rank : {5, 0, 7, 2, 1, 3, 6, 4})
    placements.push_back({rank, rank < 4 ? "node-a" : "node-b", rank % 4, "cuda:" + std::to_string(rank % 4), 4});
  const JobLayout layout = describe_job(placements, "srun (SLURM)");
  EXPECT_EQ(layout.ranks, 8);
  EXPECT_EQ(layout.nodes, 2);
  EXPECT_EQ(layout.ranks_per_node, 4);
  EXPECT_EQ(layout.gpus_per_node, 4);
  ASSERT_EQ(layout.placements.size(), 8u);
  for (int rank = 0; rank < 8; ++rank) EXPECT_EQ(layout.placements[static_cast<size_t>(rank)].rank, rank);
  EXPECT_EQ(layout.summary(), "8 ranks on 2 nodes, 4 GPUs per node (srun (SLURM))");
  const nlohmann::json json = layout.to_json();
  EXPECT_EQ(json["nodes"], 2);
  EXPECT_EQ(json["gpus_per_node"], 4);
  EXPECT_EQ(json["placement"][6]["host"], "node-b");
  EXPECT_EQ(json["placement"][6]["local_rank"], 2);
  EXPECT_EQ(json["placement"][6]["device"], "cuda:2");
}

TEST(JobLayout, CpuRanksOnOneNodeUseNoGpus) {
  const JobLayout layout = describe_job({{0, "vm", 0, "cpu", 0}, {1, "vm", 1, "cpu", 0}, {2, "vm", 2, "cpu", 0}},
                                        "mpirun (Open MPI)");
  EXPECT_EQ(layout.nodes, 1);
  EXPECT_EQ(layout.ranks_per_node, 3);
  EXPECT_EQ(layout.gpus_per_node, 0);
  EXPECT_EQ(layout.summary(), "3 ranks on 1 node (mpirun (Open MPI))");
}

TEST(JobLayout, UnevenNodesReportTheFullest) {
  const JobLayout layout = describe_job(
      {{0, "a", 0, "cuda:0", 2}, {1, "a", 1, "cuda:1", 2}, {2, "b", 0, "cuda:0", 2}}, "mpirun (Open MPI)");
  EXPECT_EQ(layout.nodes, 2);
  EXPECT_EQ(layout.ranks_per_node, 2);
  EXPECT_EQ(layout.gpus_per_node, 2);
}

TEST(DetectLauncher, NamesMpirunSrunOtherMpiOrNone) {
  EXPECT_EQ(detect_launcher(environment({})), "single process");
  EXPECT_EQ(detect_launcher(environment({{"OMPI_MCA_orte_hnp_uri", "1.0;tcp://x"}, {"OMPI_COMM_WORLD_SIZE", "2"}})),
            "mpirun (Open MPI)");
  // mpirun inside a SLURM allocation is still mpirun.
  EXPECT_EQ(detect_launcher(environment({{"OMPI_MCA_orte_hnp_uri", "1.0;tcp://x"}, {"SLURM_PROCID", "0"},
                                         {"SLURM_STEP_ID", "0"}})),
            "mpirun (Open MPI)");
  EXPECT_EQ(detect_launcher(environment({{"SLURM_PROCID", "3"}, {"SLURM_STEP_ID", "0"}, {"PMIX_RANK", "3"}})),
            "srun (SLURM)");
  // A batch script itself (no srun step) is not a launcher of ranks.
  EXPECT_EQ(detect_launcher(environment({{"SLURM_PROCID", "0"}, {"SLURM_JOB_ID", "17"}})), "single process");
  EXPECT_EQ(detect_launcher(environment({{"PMI_RANK", "1"}})), "MPI (PMI)");
}

TEST(GatherJobLayout, ASingleProcessIsOneRankOnOneNode) {
  const JobLayout layout = gather_job_layout(World::single_process(), torch::kCPU);
  EXPECT_EQ(layout.ranks, 1);
  EXPECT_EQ(layout.nodes, 1);
  ASSERT_EQ(layout.placements.size(), 1u);
  EXPECT_EQ(layout.placements[0].device, "cpu");
  EXPECT_FALSE(layout.placements[0].host.empty());
}

}  // namespace
}  // namespace mlh
