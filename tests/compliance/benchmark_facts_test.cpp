// MLPerf's facts per benchmark (compliance/benchmark_facts.h): the quality targets come from the rule
// files the checker applies, so each is stated once.
#include "compliance/benchmark_facts.h"

#include <gtest/gtest.h>

#include "compliance/rule_set.h"

namespace mlh {
namespace {

TEST(MlperfQualityTarget, IsTheNewestClosedRuleFilesTarget) {
  EXPECT_EQ(mlperf_quality_target("resnet"), 0.759);
  EXPECT_EQ(mlperf_quality_target("ssd"), 0.23);
  EXPECT_EQ(mlperf_quality_target("maskrcnn"), 0.377);  // box AP, the first of its two
  EXPECT_EQ(mlperf_quality_target("gnmt"), 0.24);
  EXPECT_EQ(mlperf_quality_target("transformer"), 0.25);
  EXPECT_EQ(mlperf_quality_target("ncf"), 0.635);
  EXPECT_EQ(mlperf_quality_target("dlrm"), 0.8025);
  EXPECT_FALSE(mlperf_quality_target("resnet (fashion_mnist data)"));
  EXPECT_FALSE(mlperf_quality_target("common"));
}

TEST(MlperfMemberTargets, MaskRcnnHasBoxAndMaskApAndTheOthersOneNumber) {
  const std::vector<MemberTarget> targets = mlperf_member_targets("maskrcnn");
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].name, "BBOX");
  EXPECT_EQ(targets[0].value, 0.377);
  EXPECT_EQ(targets[1].name, "SEGM");
  EXPECT_EQ(targets[1].value, 0.339);
  EXPECT_TRUE(mlperf_member_targets("resnet").empty());
  EXPECT_TRUE(mlperf_member_targets("ncf").empty());  // 0.5.0's {at: {value: ..}} is not the newest file
  EXPECT_TRUE(mlperf_member_targets("common").empty());
}

TEST(RuleSet, TargetValueIsTheThresholdOfReaches) {
  const auto target_of = [](const std::string& reaches) {
    const RuleFile file = parse_rule_file("test", "t", "keys:\n  eval_accuracy:\n    reaches: " + reaches + "\n");
    return file.keys.at(0).target_value;
  };
  EXPECT_EQ(target_of("{min: 0.5, below: 1}"), 0.5);
  EXPECT_EQ(target_of("{above: 0.25}"), 0.25);
  EXPECT_EQ(target_of("{at: {BBOX: {min: 0.377, below: 1}, SEGM: {min: 0.339, below: 1}}}"), 0.377);
  EXPECT_EQ(target_of("{at: {SEGM: {min: 0.339}, BBOX: {min: 0.377}}}"), 0.339);  // the first, as written
  EXPECT_FALSE(target_of("{below: 1}"));
  const RuleFile file = parse_rule_file("test", "t", "keys:\n  eval_accuracy:\n    reaches: {at: {SEGM: {min: 0.339}, BBOX: {min: 0.377}}}\n");
  const auto& members = file.keys.at(0).member_target_values;
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0], std::make_pair(std::string("SEGM"), 0.339));  // as written
  EXPECT_EQ(members[1], std::make_pair(std::string("BBOX"), 0.377));
}

TEST(MlperfEpochSamples, KnowsTheSixDatasetsOnly) {
  EXPECT_EQ(mlperf_epoch_samples("resnet").at(0).min, 1281167);
  EXPECT_EQ(mlperf_epoch_samples("gnmt").at(0).max, 3975116);
  EXPECT_EQ(mlperf_epoch_samples("ncf").size(), 2u);
  EXPECT_TRUE(mlperf_epoch_samples("bert").empty());
}

}  // namespace
}  // namespace mlh
