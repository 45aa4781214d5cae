// Throughput per epoch, from the run record and the log of a mini run ctest makes first
// (mlh_add_run_check in a workload's e2e.cmake): every epoch the run trained has its own
// rate in the record, the same rate the log gives for that epoch, and the steady-state rate the
// run reports is the rate of those epochs' samples over their time (not per rank, not per step).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "compliance/mllog_keys.h"
#include "tests/e2e/run_check_arguments.h"
#include "tests/e2e/run_logs.h"

namespace mlh {
namespace {

nlohmann::json record_of(const std::string& run) {
  std::filesystem::path path = log_of(run);
  path.replace_extension(".json");
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The log's per-epoch throughput events, by epoch, and its steady-state one (-1 when absent).
struct LoggedThroughput {
  std::map<int64_t, double> per_epoch;
  double steady = -1;
};

LoggedThroughput logged_throughput(const std::string& run) {
  LoggedThroughput logged;
  for (const LogRecord& line : records_of(run)) {
    if (line.key != keys::kTrainThroughput) continue;
    if (line.metadata.contains(keys::kMetaEpochNum))
      logged.per_epoch[line.metadata.at(keys::kMetaEpochNum).get<int64_t>()] = line.value.get<double>();
    else if (line.metadata.value("steady_state", false))
      logged.steady = line.value.get<double>();
  }
  return logged;
}

TEST(EpochRecord, EveryEpochsThroughputIsRecordedLoggedAndSumsToTheSteadyRate) {
  const RunCheckArguments& arguments = run_check_arguments();
  ASSERT_EQ(arguments.runs.size(), 1u) << "give --run NAME --epochs N";
  ASSERT_GT(arguments.epochs, 1) << "give --epochs N, the run's epochs (more than one)";
  const std::string& run = arguments.runs[0];
  const nlohmann::json record = record_of(run);
  const LoggedThroughput logged = logged_throughput(run);

  const nlohmann::json& epochs = record.at("epochs");
  ASSERT_EQ(epochs.size(), static_cast<size_t>(arguments.epochs));
  std::vector<double> after_first;
  for (size_t i = 0; i < epochs.size(); ++i) {
    const int64_t epoch = std::stoll(epochs[i].at("epoch").get<std::string>());  // int64: a string in proto JSON
    EXPECT_EQ(epoch, static_cast<int64_t>(i + 1));
    const double rate = epochs[i].at("samples_per_second").get<double>();
    EXPECT_TRUE(std::isfinite(rate) && rate > 0) << "epoch " << epoch << ": " << rate;
    ASSERT_EQ(logged.per_epoch.count(epoch), 1u) << "epoch " << epoch << " has no throughput line in the log";
    EXPECT_NEAR(logged.per_epoch.at(epoch), rate, 1e-6 * rate) << "epoch " << epoch;
    if (i > 0) after_first.push_back(rate);
  }
  // After the warm-up steps (all in epoch 1 here) the steady rate is the epochs' samples over their
  // summed time: a weighted mean of the later epochs' rates, with a part of epoch 1. It lies among
  // them; 15% either side leaves room for that part of epoch 1 only, not for a factor of the ranks.
  const double steady = record.at("train_samples_per_second").get<double>();
  const auto [slowest, fastest] = std::minmax_element(after_first.begin(), after_first.end());
  EXPECT_GE(steady, 0.85 * *slowest) << "steady " << steady << " vs the slowest later epoch";
  EXPECT_LE(steady, 1.15 * *fastest) << "steady " << steady << " vs the fastest later epoch";
  EXPECT_NEAR(logged.steady, steady, 1e-6 * steady) << "the log's steady-state throughput line";
}

}  // namespace
}  // namespace mlh
