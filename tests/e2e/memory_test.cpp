// Resident memory per epoch, from the run records of the mini runs ctest makes first: after the
// first epoch (which allocates the model, optimizer state, data and caches) a run must not grow. A
// leak of one batch's tensors per step, or a cache that keeps every epoch's data, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

// Each epoch's resident MiB from the record beside the run's log.
std::vector<double> resident_mib_per_epoch(const std::string& run) {
  std::filesystem::path record = log_of(run);
  record.replace_extension(".json");
  std::ifstream in(record);
  const nlohmann::json json = nlohmann::json::parse(in);
  std::vector<double> mib;
  for (const auto& epoch : json.at("epochs")) mib.push_back(epoch.at("resident_mib").get<double>());
  return mib;
}

// Growth allowed after epoch 1: 3% of it, at least 16 MiB (glibc arenas settle in the second epoch).
void expect_flat_after_first_epoch(const std::vector<double>& mib, size_t epochs) {
  ASSERT_EQ(mib.size(), epochs);
  const double allowed = std::max(16.0, 0.03 * mib[0]);
  std::string figures;
  for (double m : mib) figures += std::to_string(static_cast<int>(m)) + " ";
  for (size_t e = 1; e < mib.size(); ++e)
    EXPECT_LE(mib[e], mib[1] + allowed) << "epoch " << e + 1 << " grew; MiB per epoch: " << figures;
  EXPECT_LE(*std::max_element(mib.begin() + 1, mib.end()), mib[0] + allowed) << "MiB per epoch: " << figures;
  std::printf("resident MiB per epoch: %s\n", figures.c_str());
}

TEST(Memory, NcfMiniTwentyEpochsStayFlatAfterTheFirst) {
  expect_flat_after_first_epoch(resident_mib_per_epoch("ncf_np1_twenty_epochs_seed1"), 20);
}

TEST(Memory, ResNet50MiniThreeEpochsStayFlatAfterTheFirst) {
  expect_flat_after_first_epoch(resident_mib_per_epoch("resnet50_np2_seed1"), 3);
}

}  // namespace
}  // namespace mlh
