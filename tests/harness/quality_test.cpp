// Quality targets: strict and not, all of several, eval_accuracy as the references log it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "base/user_error.h"
#include "harness/quality.h"

namespace mlh {
namespace {

TEST(QualityTarget, StrictMeansGreaterThan) {
  const QualityTarget at_least{"top1", 0.759};
  const QualityTarget above{"bleu/100", 0.25, true};
  EXPECT_TRUE(at_least.reached_by(0.759));
  EXPECT_FALSE(at_least.reached_by(0.7589));
  EXPECT_FALSE(above.reached_by(0.25));
  EXPECT_TRUE(above.reached_by(0.2500001));
  EXPECT_EQ(at_least.describe(), "top1 >= 0.7590");
  EXPECT_EQ(above.describe(), "bleu/100 > 0.2500");
}

TEST(QualityTarget, AllTargetsMustHold) {
  const std::vector<QualityTarget> targets = {{"BBOX", 0.377}, {"SEGM", 0.339}};
  EXPECT_FALSE(reaches_all({{{"BBOX", 0.38}, {"SEGM", 0.33}}}, targets));
  EXPECT_FALSE(reaches_all({{{"BBOX", 0.37}, {"SEGM", 0.34}}}, targets));
  EXPECT_TRUE(reaches_all({{{"BBOX", 0.377}, {"SEGM", 0.339}}}, targets));
  EXPECT_EQ(describe_targets(targets), "BBOX >= 0.3770 and SEGM >= 0.3390");
  EXPECT_EQ(describe_quality({{{"BBOX", 0.38}, {"SEGM", 0.33}, {"other", 1}}}, targets),
            "BBOX 0.3800 (target >= 0.3770), SEGM 0.3300 (target >= 0.3390)");
}

TEST(QualityTarget, EvalAccuracyIsANumberForOneTargetAndAnObjectForSeveral) {
  const Quality quality{{{"BBOX", 0.38}, {"SEGM", 0.34}, {"bleu", 25.0}}};
  EXPECT_EQ(eval_accuracy_value(quality, {{"BBOX", 0.377}}), nlohmann::json(0.38));
  EXPECT_EQ(eval_accuracy_value(quality, {{"BBOX", 0.377}, {"SEGM", 0.339}}),
            (nlohmann::json{{"BBOX", 0.38}, {"SEGM", 0.34}}));
}

TEST(QualityTarget, AWorkloadThatMeasuresNoTargetValueIsABug) {
  EXPECT_THROW(reaches_all({{{"BBOX", 0.38}}}, {{"BBOX", 0.377}, {"SEGM", 0.339}}), InternalError);
  EXPECT_THROW(check_targets({}), InternalError);
  EXPECT_THROW(check_targets({{"a", 1}, {"a", 2}}), InternalError);
  EXPECT_THROW(check_targets({{"", 1}}), InternalError);
  EXPECT_THROW(check_targets({{"a", std::numeric_limits<double>::quiet_NaN()}}), InternalError);
  EXPECT_NO_THROW(check_targets({{"BBOX", 0.377}, {"SEGM", 0.339}}));
}

}  // namespace
}  // namespace mlh
