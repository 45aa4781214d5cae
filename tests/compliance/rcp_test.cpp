// Reference convergence points: the statistics of the official resnet 4.0.0, ssd 1.1.0 and maskrcnn
// 3.1.0 points (numbers from spec/mlperf-logging.md §6, computed there with the official checker),
// pruning (which points survive: as mlcommons/logging's rcp_checker prunes them), interpolation, the
// verdicts, and the RCP file format.
#include "compliance/rcp.h"

#include <gtest/gtest.h>

#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "base/user_error.h"

namespace mlh {
namespace {

const RcpSet& embedded_set(const std::string& name) {
  for (const RcpSet& set : embedded_rcp_sets())
    if (set.name == name) return set;
  throw std::runtime_error("no embedded RCP set " + name);
}

std::optional<RcpPoint> point_at(const std::vector<RcpPoint>& points, int64_t batch_size) {
  for (const RcpPoint& point : points)
    if (point.global_batch_size == batch_size) return point;
  return std::nullopt;
}

struct ExpectedPoint {
  int64_t batch_size;
  double mean, stdev, min_epochs;
  bool kept;
};

void expect_points(const RcpSet& set, const std::vector<ExpectedPoint>& expected, double tolerance) {
  const std::vector<RcpPoint> all = rcp_points(set);
  const std::vector<RcpPoint> pruned = pruned_rcp_points(set);
  for (const ExpectedPoint& e : expected) {
    SCOPED_TRACE(set.name + " batch " + std::to_string(e.batch_size));
    const std::optional<RcpPoint> point = point_at(all, e.batch_size);
    ASSERT_TRUE(point);
    EXPECT_NEAR(point->mean_epochs, e.mean, tolerance);
    if (e.stdev >= 0) {
      EXPECT_NEAR(point->stdev_epochs, e.stdev, tolerance);
    }
    if (e.min_epochs >= 0) {
      EXPECT_NEAR(point->min_epochs, e.min_epochs, tolerance);
    }
    EXPECT_EQ(point_at(pruned, e.batch_size).has_value(), e.kept);
  }
}

TEST(RcpStatistics, Resnet400MatchesTheSpec) {
  const RcpSet& resnet = embedded_set("resnet");
  EXPECT_EQ(resnet.ruleset, "4.0.0");
  EXPECT_EQ(resnet.submission_runs, 5);
  EXPECT_EQ(resnet.records.size(), 10u);
  expect_points(resnet,
                {{1632, 35.000, 1.085, 33.802, true},
                 {3264, 35.154, 0.748, 34.310, true},
                 {4096, 39.875, 1.000, 38.634, false},
                 {32768, 56.000, 0.447, 55.445, true},
                 {67840, 85.846, 0.639, 85.183, true}},
                0.0005);
  // The pruned list, as the official checker (mlperf-logging 4.1.59) prunes the 4.0.0 points.
  std::vector<int64_t> kept;
  for (const RcpPoint& point : pruned_rcp_points(resnet)) kept.push_back(point.global_batch_size);
  EXPECT_EQ(kept, (std::vector<int64_t>{1632, 3264, 32768, 49152, 67840}));
}

TEST(RcpStatistics, Ssd110AndMaskrcnn310MatchTheSpec) {
  // -1: the spec gives no number for that column.
  expect_points(embedded_set("ssd"),
                {{1024, 50.0, 0.0, 50.0, true},
                 {1536, 55.0, 0.0, 55.0, true},
                 {2048, 65.09, -1, 64.20, false},
                 {4096, 87.0, -1, 84.51, true}},
                0.005);
  expect_points(embedded_set("maskrcnn"),
                {{8, 12.75, 0.458, -1, true},
                 {48, 14.0, 0.0, 14.0, false},
                 {96, 14.0556, 0.384, -1, false},
                 {128, 14.0, 0.0, 14.0, true},
                 {256, 17.0, 0.3, -1, false},
                 {272, 17.125, 0.539, -1, true}},
                0.0005);
}

TEST(RcpStatistics, MinEpochsIsWhereTheOneSidedTTestReachesAlpha) {
  const double mean = 35.154, stdev = 0.748;
  const double min_epochs = min_acceptable_mean_epochs(mean, stdev, 13, 3);
  const double t = (min_epochs - mean) / (stdev * std::sqrt(1.0 / 13 + 1.0 / 3));
  EXPECT_NEAR(boost::math::cdf(boost::math::students_t(14), t), 0.05, 1e-4);
  EXPECT_LT(min_epochs, mean);
  EXPECT_DOUBLE_EQ(min_acceptable_mean_epochs(50, 0, 8, 3), 50);
  // More submission runs make the test sharper: the bound moves towards the mean.
  EXPECT_GT(min_acceptable_mean_epochs(mean, stdev, 13, 8), min_epochs);
}

TEST(RcpVerdicts, ResnetAt3264) {
  const RcpSet& resnet = embedded_set("resnet");
  const RcpVerdict pass = check_convergence(resnet, 3264, {36, 36, 36, 40, 40});
  EXPECT_EQ(pass.outcome, RcpOutcome::kPass) << pass.message;
  ASSERT_TRUE(pass.mean_epochs);
  EXPECT_NEAR(*pass.mean_epochs, 37.333, 0.0005);
  ASSERT_TRUE(pass.reference);
  EXPECT_EQ(pass.reference->name, "resnet_ref_3264");
  EXPECT_DOUBLE_EQ(pass.score_scale, 1.0);  // slower than the RCP mean: no normalisation

  const RcpVerdict fail = check_convergence(resnet, 3264, {32, 32, 32, 32, 32});
  EXPECT_EQ(fail.outcome, RcpOutcome::kFail);
  EXPECT_NE(fail.message.find("converges faster than the reference allows"), std::string::npos) << fail.message;

  // Between min epochs (34.310) and the RCP mean (35.154): passes, and the score is normalised.
  const RcpVerdict scaled = check_convergence(resnet, 3264, {30, 34.5, 34.5, 34.5, 40});
  EXPECT_EQ(scaled.outcome, RcpOutcome::kPass) << scaled.message;
  EXPECT_NEAR(scaled.score_scale, 35.154 / 34.5, 1e-3);
}

TEST(RcpVerdicts, OneRunMayFailTwoMayNot) {
  const RcpSet& resnet = embedded_set("resnet");
  const RcpVerdict one = check_convergence(resnet, 3264, {36, std::nullopt, 36, 36, 35});
  EXPECT_EQ(one.outcome, RcpOutcome::kPass) << one.message;
  EXPECT_DOUBLE_EQ(*one.mean_epochs, 36.0);  // 35 and the failed run dropped
  const RcpVerdict two = check_convergence(resnet, 3264, {36, std::nullopt, 36, std::nullopt, 35});
  EXPECT_EQ(two.outcome, RcpOutcome::kInsufficientConvergence);
}

TEST(RcpVerdicts, InterpolatesBetweenNeighbours) {
  const RcpSet& resnet = embedded_set("resnet");
  const std::vector<RcpPoint> pruned = pruned_rcp_points(resnet);
  const RcpPoint low = *point_at(pruned, 1632), high = *point_at(pruned, 3264);
  const RcpPoint middle = interpolate_rcp(2448, low, high, 5);
  EXPECT_NEAR(middle.mean_epochs, (low.mean_epochs + high.mean_epochs) / 2, 1e-12);
  EXPECT_NEAR(middle.stdev_epochs, (low.stdev_epochs + high.stdev_epochs) / 2, 1e-12);
  EXPECT_NEAR(middle.min_epochs, min_acceptable_mean_epochs(middle.mean_epochs, middle.stdev_epochs, 10, 3), 1e-9);

  const RcpVerdict verdict = check_convergence(resnet, 2448, {35, 35, 35, 35, 35});
  ASSERT_TRUE(verdict.reference);
  EXPECT_EQ(verdict.reference->name, "interpolated between resnet_ref_1632 and resnet_ref_3264");
  EXPECT_NEAR(verdict.reference->mean_epochs, middle.mean_epochs, 1e-12);
  EXPECT_EQ(verdict.outcome, RcpOutcome::kPass);

  // 4096, 8192 and 13056 are pruned, so 5000 interpolates between 3264 and 32768.
  const RcpVerdict skipping = check_convergence(resnet, 5000, {40, 40, 40, 40, 40});
  ASSERT_TRUE(skipping.reference);
  EXPECT_EQ(skipping.reference->name, "interpolated between resnet_ref_3264 and resnet_ref_32768");
}

TEST(RcpVerdicts, OutsideTheBatchSizesOfTheSet) {
  const RcpSet& resnet = embedded_set("resnet");
  const RcpVerdict above = check_convergence(resnet, 100000, {90, 90, 90, 90, 90});
  EXPECT_EQ(above.outcome, RcpOutcome::kMissingRcp);
  EXPECT_NE(above.message.find("no RCP for batch size 100000"), std::string::npos) << above.message;
  EXPECT_FALSE(above.reference);

  // Below the smallest (1632: min 33.802): slower passes, faster asks for an RCP.
  EXPECT_EQ(check_convergence(resnet, 256, {36, 36, 36, 36, 36}).outcome, RcpOutcome::kPass);
  const RcpVerdict faster = check_convergence(resnet, 256, {30, 30, 30, 30, 30});
  EXPECT_EQ(faster.outcome, RcpOutcome::kMissingRcp);
  EXPECT_EQ(faster.reference->name, "resnet_ref_1632");
}

// Batch 50 converges slower than the fastest point (100) and lies below it: dropped. 200 converges
// slower than the line from 100 to 300: dropped. 400 lies below the line from 300 to 500: kept.
TEST(RcpPruning, DropsPointsBelowTheFastestAndAboveTheirNeighboursLine) {
  const RcpSet set = parse_rcp_set(R"({
    "benchmark": "toy", "source": "hand-made", "submission_runs": 5,
    "records": [
      {"name": "b200", "global_batch_size": 200, "epochs_to_converge": [19, 20, 20, 20, 21]},
      {"name": "b50", "global_batch_size": 50, "epochs_to_converge": [10, 11, 11, 11, 12]},
      {"name": "b100", "global_batch_size": 100, "epochs_to_converge": [9, 10, 10, 10, 11]},
      {"name": "b300", "global_batch_size": 300, "epochs_to_converge": [12, 13, 13, 13, 14]},
      {"name": "b400", "global_batch_size": 400, "epochs_to_converge": [15, 15, 15, 15, 15]},
      {"name": "b500", "global_batch_size": 500, "epochs_to_converge": [19, 20, 20, 20, 21]}
    ]})",
                                   "toy.json");
  std::vector<int64_t> kept;
  for (const RcpPoint& point : pruned_rcp_points(set)) kept.push_back(point.global_batch_size);
  EXPECT_EQ(kept, (std::vector<int64_t>{100, 300, 400, 500}));
  EXPECT_EQ(rcp_points(set).size(), 6u);
}

TEST(RcpSets, EachRunFindsTheSetForItsData) {
  const std::vector<RcpSet>& sets = embedded_rcp_sets();
  const RcpSet* official = find_rcp_set(sets, "resnet", nullptr);
  ASSERT_TRUE(official);
  EXPECT_EQ(official->name, "resnet");
  EXPECT_EQ(find_rcp_set(sets, "resnet", {{"data_source", "imagenet"}}), official);
  const RcpSet* resnet_mini = find_rcp_set(sets, "resnet", {{"data_source", "fashion_mnist"}});
  ASSERT_TRUE(resnet_mini);
  EXPECT_EQ(resnet_mini->name, "mini_resnet50");  // never the ImageNet points
  const RcpSet* gnmt_mini = find_rcp_set(sets, "gnmt", {{"data_source", "synthetic"}});
  ASSERT_TRUE(gnmt_mini);
  EXPECT_EQ(gnmt_mini->name, "mini_gnmt");
  EXPECT_EQ(find_rcp_set(sets, "gnmt", nullptr), nullptr);  // no official gnmt RCPs exist
  const RcpSet* ncf_mini = find_rcp_set(sets, "ncf", {{"data_source", "synthetic"}});
  ASSERT_TRUE(ncf_mini);
  EXPECT_EQ(ncf_mini->name, "mini_ncf");
  const RcpSet* ssd_mini = find_rcp_set(sets, "ssd", {{"data_source", "synthetic_coco"}});
  ASSERT_TRUE(ssd_mini);
  EXPECT_EQ(ssd_mini->name, "mini_ssd");  // never the COCO points
  EXPECT_EQ(find_rcp_set(sets, "ssd", {{"data_source", "coco"}})->name, "ssd");
  const RcpSet* maskrcnn_mini = find_rcp_set(sets, "maskrcnn", {{"data_source", "synthetic_coco"}});
  ASSERT_TRUE(maskrcnn_mini);
  EXPECT_EQ(maskrcnn_mini->name, "mini_maskrcnn");  // never the COCO points
  EXPECT_EQ(find_rcp_set(sets, "maskrcnn", {{"data_source", "coco"}})->name, "maskrcnn");
  EXPECT_EQ(find_rcp_set(sets, "maskrcnn", nullptr)->name, "maskrcnn");  // the published logs
}

TEST(RcpSets, GnmtMiniRecord) {
  const RcpSet& gnmt = embedded_set("mini_gnmt");
  ASSERT_EQ(gnmt.records.size(), 1u);
  const RcpRecord& record = gnmt.records[0];
  EXPECT_EQ(record.global_batch_size, 16);
  EXPECT_EQ(record.epochs_to_converge, std::vector<double>(10, 3.0));
  EXPECT_EQ(record.seeds, (std::vector<int64_t>{1, 2, 3, 4, 5, 1, 2, 3, 4, 5}));
  EXPECT_EQ(record.ranks, (std::vector<int64_t>{1, 1, 1, 1, 1, 4, 4, 4, 4, 4}));
  const RcpPoint point = rcp_point(record, gnmt.submission_runs);
  EXPECT_DOUBLE_EQ(point.mean_epochs, 3.0);
  EXPECT_DOUBLE_EQ(point.min_epochs, 3.0);  // no spread: nothing faster than 3 epochs passes
  EXPECT_EQ(check_convergence(gnmt, 16, {3, 3, 3, 3, 3, 3, 3, 3, 3, 4}).outcome, RcpOutcome::kPass);
  EXPECT_EQ(check_convergence(gnmt, 16, {2, 2, 2, 3, 3, 3, 3, 3, 3, 3}).outcome, RcpOutcome::kFail);
}

// Seeds 1-10 of the Mask R-CNN mini on one rank: 2 to 4 epochs, mostly 3.
TEST(RcpSets, MaskrcnnMiniRecord) {
  const RcpSet& maskrcnn = embedded_set("mini_maskrcnn");
  ASSERT_EQ(maskrcnn.records.size(), 1u);
  const RcpRecord& record = maskrcnn.records[0];
  EXPECT_EQ(record.global_batch_size, 8);
  EXPECT_EQ(record.epochs_to_converge, (std::vector<double>{3, 3, 2, 3, 4, 3, 3, 2, 3, 3}));
  EXPECT_EQ(record.ranks, std::vector<int64_t>(10, 1));
  const RcpPoint point = rcp_point(record, maskrcnn.submission_runs);
  EXPECT_GT(point.min_epochs, 2.0);
  EXPECT_LT(point.min_epochs, point.mean_epochs);
  EXPECT_EQ(check_convergence(maskrcnn, 8, {3, 3, 3, 3, 3}).outcome, RcpOutcome::kPass);
  EXPECT_EQ(check_convergence(maskrcnn, 8, {2, 2, 2, 2, 2}).outcome, RcpOutcome::kFail);
}

// Ten seeds on two ranks all take 2 epochs; one of two seeds on one rank takes 1. The olympic mean
// drops that run, the standard deviation (over all runs, as the official checker takes it) keeps it.
TEST(RcpSets, ResnetMiniRecord) {
  const RcpSet& resnet = embedded_set("mini_resnet50");
  ASSERT_EQ(resnet.records.size(), 1u);
  const RcpRecord& record = resnet.records[0];
  EXPECT_EQ(record.global_batch_size, 128);
  ASSERT_EQ(record.epochs_to_converge.size(), 12u);
  EXPECT_EQ(record.seeds.size(), 12u);
  EXPECT_EQ(record.ranks.size(), 12u);
  const RcpPoint point = rcp_point(record, resnet.submission_runs);
  EXPECT_DOUBLE_EQ(point.mean_epochs, 2.0);
  EXPECT_NEAR(point.stdev_epochs, std::sqrt((std::pow(1 - 23.0 / 12, 2) + 11 * std::pow(2 - 23.0 / 12, 2)) / 12), 1e-12);
  EXPECT_NEAR(point.min_epochs, 1.673, 1e-3);
  EXPECT_EQ(check_convergence(resnet, 128, {2, 2, 2, 2, 3}).outcome, RcpOutcome::kPass);
  EXPECT_EQ(check_convergence(resnet, 128, {1, 2, 2, 2, 2}).outcome, RcpOutcome::kPass);  // the fastest is dropped
  EXPECT_EQ(check_convergence(resnet, 128, {1, 1, 2, 2, 2}).outcome, RcpOutcome::kFail);  // mean 1.667
}

TEST(RcpSets, EveryEmbeddedSetParses) {
  std::vector<std::string> names;
  for (const RcpSet& set : embedded_rcp_sets()) {
    names.push_back(set.name);
    EXPECT_FALSE(set.source.empty()) << set.name;
    EXPECT_FALSE(pruned_rcp_points(set).empty()) << set.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"maskrcnn", "mini_gnmt", "mini_maskrcnn", "mini_ncf", "mini_resnet50", "mini_ssd", "mini_transformer", "resnet", "ssd"}));
}

TEST(RcpFileFormat, ErrorsNameTheFileAndField) {
  const auto message_of = [](const std::string& text) {
    try {
      parse_rcp_set(text, "bad.json");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of("{").find("bad.json: not valid JSON"), std::string::npos);
  EXPECT_EQ(message_of(R"({"source": "s", "submission_runs": 5, "records": []})"), "bad.json: 'benchmark' is missing");
  const std::string record = R"({"name": "a", "global_batch_size": 8, "epochs_to_converge": [1, 2, 3]})";
  EXPECT_EQ(message_of(R"({"benchmark": "b", "source": "s", "submission_runs": 5, "records": [)" + record + "," + record + "]}"),
            "bad.json: 'records' has two records with global_batch_size 8; merge their runs into one record");
  EXPECT_EQ(message_of(R"({"benchmark": "b", "source": "s", "submission_runs": 5, "records": [
      {"name": "a", "global_batch_size": "8", "epochs_to_converge": [1, 2, 3]}]})"),
            "bad.json: records[0]: 'global_batch_size' has the wrong type (string)");
  EXPECT_EQ(message_of(R"({"benchmark": "b", "source": "s", "submission_runs": 5, "records": [
      {"name": "a", "global_batch_size": 8, "epochs_to_converge": [1, 2, 3], "seeds": [1]}]})"),
            "bad.json: records[0]: 'seeds' must have one entry per epochs_to_converge entry");
}

}  // namespace
}  // namespace mlh
