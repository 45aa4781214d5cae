// The cores a rank may use: OpenMPI's default binding told apart from one the user asked for, and
// each rank's fair share of the CPUs its node's ranks overlap on.
#include "harness/cpu_share.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mlh {
namespace {

cpu_set_t cpus(std::initializer_list<int> list) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : list) CPU_SET(cpu, &mask);
  return mask;
}

TEST(FairCoreShare, UnboundRanksSplitTheNode) {
  const cpu_set_t all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(fair_core_share(all, {all}), 8);
  EXPECT_EQ(fair_core_share(all, {all, all}), 4);
  EXPECT_EQ(fair_core_share(all, {all, all, all}), 2);  // 8/3 rounds down
  const cpu_set_t two = cpus({0, 1});
  EXPECT_EQ(fair_core_share(two, {two, two, two, two}), 1);  // oversubscribed: still one thread
}

TEST(FairCoreShare, BoundRanksKeepTheirOwnCores) {
  const cpu_set_t first = cpus({0}), second = cpus({1});
  EXPECT_EQ(fair_core_share(first, {first, second}), 1);
  const cpu_set_t socket0 = cpus({0, 1, 2, 3}), socket1 = cpus({4, 5, 6, 7});
  EXPECT_EQ(fair_core_share(socket0, {socket0, socket1}), 4);
  // Two ranks per socket (mpirun's default for -np 4 on two sockets) share each socket.
  EXPECT_EQ(fair_core_share(socket0, {socket0, socket0, socket1, socket1}), 2);
}

TEST(FairCoreShare, OverlappingMasksCountSharedCoresByHalves) {
  const cpu_set_t wide = cpus({0, 1, 2, 3}), narrow = cpus({2, 3});
  EXPECT_EQ(fair_core_share(wide, {wide, narrow}), 3);  // 1 + 1 + 1/2 + 1/2
  EXPECT_EQ(fair_core_share(narrow, {wide, narrow}), 1);
}

TEST(BoundByMpirunDefault, OnlyWhenOpenMpiBoundItWithoutBeingAsked) {
  std::map<std::string, std::string> env;
  const auto getenv = [&env](const char* name) -> const char* {
    const auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  };
  EXPECT_FALSE(bound_by_mpirun_default(getenv));  // not under mpirun
  env["OMPI_MCA_orte_bound_at_launch"] = "1";
  EXPECT_TRUE(bound_by_mpirun_default(getenv));  // `mpirun -np 1`: one core by default
  env["OMPI_MCA_hwloc_base_binding_policy"] = "core";
  EXPECT_FALSE(bound_by_mpirun_default(getenv));  // `mpirun --bind-to core`
  env["OMPI_MCA_hwloc_base_binding_policy"] = "none";
  env.erase("OMPI_MCA_orte_bound_at_launch");
  EXPECT_FALSE(bound_by_mpirun_default(getenv));  // `--bind-to none`
}

TEST(CpusInPlaceOfMpirunDefault, TheLocalRanksSliceOfTheLauncherOnlyWhenBoundByDefault) {
  std::map<std::string, std::string> env;
  const auto getenv = [&env](const char* name) -> const char* {
    const auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  };
  const cpu_set_t launcher = cpus({0, 1, 2, 3});
  EXPECT_FALSE(cpus_in_place_of_mpirun_default(getenv, launcher).has_value());  // no launcher
  env["OMPI_MCA_orte_bound_at_launch"] = "1";
  EXPECT_FALSE(cpus_in_place_of_mpirun_default(getenv, launcher).has_value());  // no local rank: keep
  env["OMPI_COMM_WORLD_LOCAL_RANK"] = "1";
  env["OMPI_COMM_WORLD_LOCAL_SIZE"] = "2";
  const std::optional<cpu_set_t> second = cpus_in_place_of_mpirun_default(getenv, launcher);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(cpu_list(*second), "2-3");
  env["OMPI_COMM_WORLD_LOCAL_RANK"] = "2";  // out of range: keep what OpenMPI gave
  EXPECT_FALSE(cpus_in_place_of_mpirun_default(getenv, launcher).has_value());
  env["OMPI_COMM_WORLD_LOCAL_RANK"] = "0";
  env["OMPI_MCA_hwloc_base_binding_policy"] = "core";  // the user's binding stays
  EXPECT_FALSE(cpus_in_place_of_mpirun_default(getenv, launcher).has_value());
}

TEST(CpuSlice, RanksTakeContiguousBlocksOfWhatMpirunHad) {
  const cpu_set_t all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(cpu_list(cpu_slice(all, 0, 1)), "0-7");  // `mpirun -np 1`: every core
  EXPECT_EQ(cpu_list(cpu_slice(all, 0, 2)), "0-3");
  EXPECT_EQ(cpu_list(cpu_slice(all, 1, 2)), "4-7");
  EXPECT_EQ(cpu_list(cpu_slice(all, 0, 3)), "0-2");  // 8 = 3 + 3 + 2
  EXPECT_EQ(cpu_list(cpu_slice(all, 1, 3)), "3-5");
  EXPECT_EQ(cpu_list(cpu_slice(all, 2, 3)), "6-7");
  const cpu_set_t gaps = cpus({2, 3, 8, 9});
  EXPECT_EQ(cpu_list(cpu_slice(gaps, 1, 2)), "8-9");  // CPUs in order, not numbers
}

TEST(CpuSlice, MoreRanksThanCpusShareThemEvenly) {
  const cpu_set_t two = cpus({0, 1});
  EXPECT_EQ(cpu_list(cpu_slice(two, 0, 4)), "0");
  EXPECT_EQ(cpu_list(cpu_slice(two, 1, 4)), "1");
  EXPECT_EQ(cpu_list(cpu_slice(two, 2, 4)), "0");
  EXPECT_EQ(cpu_list(cpu_slice(two, 3, 4)), "1");
  const std::vector<cpu_set_t> node = {cpu_slice(two, 0, 4), cpu_slice(two, 1, 4), cpu_slice(two, 2, 4),
                                       cpu_slice(two, 3, 4)};
  EXPECT_EQ(fair_core_share(node[0], node), 1);
}

TEST(CpuList, WritesRangesAsLinuxDoes) {
  EXPECT_EQ(cpu_list(cpus({0})), "0");
  EXPECT_EQ(cpu_list(cpus({0, 1, 2, 3, 8, 10, 11})), "0-3,8,10-11");
}

// A thread that started before the mask was set (as a library's pool does at load) ends on it too.
TEST(EveryThreadAffinity, ReachesThreadsStartedEarlier) {
  const cpu_set_t before = current_cpu_affinity();
  std::mutex mutex;
  std::condition_variable done;
  bool finish = false;
  std::thread early([&] {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return finish; });
  });
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &before)) {
      CPU_SET(cpu, &one);
      break;
    }
  EXPECT_EQ(set_affinity_of_every_thread(one), 0);
  const auto threads = affinity_of_every_thread();
  EXPECT_GE(threads.size(), 2u);
  for (const auto& [tid, mask] : threads) EXPECT_TRUE(CPU_EQUAL(&mask, &one)) << "thread " << tid;
  EXPECT_EQ(set_affinity_of_every_thread(before), 0);
  for (const auto& [tid, mask] : affinity_of_every_thread()) EXPECT_TRUE(CPU_EQUAL(&mask, &before)) << tid;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    finish = true;
  }
  done.notify_all();
  early.join();
}

}  // namespace
}  // namespace mlh
