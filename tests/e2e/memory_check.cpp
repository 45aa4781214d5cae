// Memory per epoch, from the run record of a mini run ctest makes first (mlh_add_memory_check in a
// workload's e2e.cmake): after the first epoch
// (which allocates the model, optimizer state, data and caches) a run must not grow. A leak of one
// batch's tensors per step, or a cache that keeps every epoch's data, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/e2e/run_check_arguments.h"
#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

// Each epoch's figure `key` ("resident_mib", "heap_in_use_mib") from the record beside the run's log.
std::vector<double> per_epoch(const std::string& run, const std::string& key) {
  std::filesystem::path record = log_of(run);
  record.replace_extension(".json");
  std::ifstream in(record);
  const nlohmann::json json = nlohmann::json::parse(in);
  std::vector<double> mib;
  for (const auto& epoch : json.at("epochs")) mib.push_back(epoch.at(key).get<double>());
  return mib;
}

std::string figures_of(const std::vector<double>& mib) {
  std::string figures;
  for (double m : mib) figures += std::to_string(static_cast<int>(std::lround(m))) + " ";
  return figures;
}

// After epoch 1 (its training and evaluation): the heap in use, which a leak grows, stays within 2%
// (at least 4 MiB) of epoch 1's; the resident memory, which also holds freed memory the allocator
// keeps for reuse (harness/world.h configure_host_allocator) and so rises in steps as blocks of new
// sizes fragment it, stays within 25% (at least 64 MiB).
void expect_flat_after_first_epoch(const std::string& run, size_t epochs) {
  const std::vector<double> heap = per_epoch(run, "heap_in_use_mib");
  const std::vector<double> resident = per_epoch(run, "resident_mib");
  ASSERT_EQ(heap.size(), epochs);
  ASSERT_EQ(resident.size(), epochs);
  EXPECT_GT(heap[0], 1.0);
  for (size_t e = 1; e < epochs; ++e) {
    EXPECT_LE(heap[e], heap[0] + std::max(4.0, 0.02 * heap[0]))
        << "epoch " << e + 1 << "'s heap grew; MiB per epoch: " << figures_of(heap);
    EXPECT_LE(resident[e], resident[0] + std::max(64.0, 0.25 * resident[0]))
        << "epoch " << e + 1 << "'s resident memory grew; MiB per epoch: " << figures_of(resident);
  }
  std::printf("heap in use, MiB per epoch: %s\nresident, MiB per epoch: %s\n", figures_of(heap).c_str(),
              figures_of(resident).c_str());
}

TEST(Memory, StaysFlatAfterTheFirstEpoch) {
  const RunCheckArguments& arguments = run_check_arguments();
  ASSERT_EQ(arguments.runs.size(), 1u) << "give --run NAME --epochs N";
  ASSERT_GT(arguments.epochs, 1) << "give --epochs N, the run's epochs (more than one)";
  expect_flat_after_first_epoch(arguments.runs[0], static_cast<size_t>(arguments.epochs));
}

}  // namespace
}  // namespace mlh
