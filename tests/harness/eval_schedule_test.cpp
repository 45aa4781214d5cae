// The evaluation schedule: which epochs evaluate, the blocks, and the settings it rejects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/user_error.h"
#include "harness/eval_schedule.h"

namespace mlh {
namespace {

std::vector<int64_t> evaluated(const EvalSchedule& schedule) {
  std::vector<int64_t> epochs;
  for (int64_t e = 1; e <= schedule.max_epochs(); ++e)
    if (schedule.evaluates_after(e)) epochs.push_back(e);
  return epochs;
}

using Blocks = std::vector<EvalBlock>;

TEST(EvalSchedule, EveryEpoch) {
  const EvalSchedule schedule = EvalSchedule::every(1, -1, 3);
  EXPECT_EQ(evaluated(schedule), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(schedule.blocks(), (Blocks{{1, 1}, {2, 1}, {3, 1}}));
}

TEST(EvalSchedule, EveryFourWithoutOffsetEndsEachBlockOfFour) {
  const EvalSchedule schedule = EvalSchedule::every(4, -1, 10);
  EXPECT_EQ(evaluated(schedule), (std::vector<int64_t>{4, 8, 10}));
  EXPECT_EQ(schedule.blocks(), (Blocks{{1, 4}, {5, 4}, {9, 2}}));
  // -1 is the same schedule as the offset every - 1.
  EXPECT_EQ(EvalSchedule::every(4, 3, 10).blocks(), schedule.blocks());
}

TEST(EvalSchedule, OffsetsZeroToThreeOfResNet) {
  // 0-based epoch e evaluates when e % 4 == offset, so 1-based epoch offset + 1 comes first.
  EXPECT_EQ(evaluated(EvalSchedule::every(4, 0, 9)), (std::vector<int64_t>{1, 5, 9}));
  EXPECT_EQ(evaluated(EvalSchedule::every(4, 1, 9)), (std::vector<int64_t>{2, 6, 9}));
  EXPECT_EQ(evaluated(EvalSchedule::every(4, 2, 9)), (std::vector<int64_t>{3, 7, 9}));
  EXPECT_EQ(EvalSchedule::every(4, 0, 9).blocks(), (Blocks{{1, 1}, {2, 4}, {6, 4}}));
  EXPECT_EQ(EvalSchedule::every(4, 2, 9).blocks(), (Blocks{{1, 3}, {4, 4}, {8, 2}}));
}

TEST(EvalSchedule, BlockFromAnyEpochRunsToTheNextEvaluation) {
  const EvalSchedule schedule = EvalSchedule::every(4, 1, 100);
  EXPECT_EQ(schedule.block_from(1), (EvalBlock{1, 2}));
  EXPECT_EQ(schedule.block_from(2), (EvalBlock{2, 1}));
  EXPECT_EQ(schedule.block_from(3), (EvalBlock{3, 4}));
  EXPECT_EQ(schedule.block_from(5), (EvalBlock{5, 2}));
  EXPECT_EQ(schedule.block_from(98), (EvalBlock{98, 1}));
  EXPECT_EQ(schedule.block_from(99), (EvalBlock{99, 2}));  // cut at max_epochs
  EXPECT_EQ(schedule.block_from(3).last_epoch(), 6);
}

TEST(EvalSchedule, SsdEpochList) {
  const EvalSchedule schedule = EvalSchedule::at_epochs({40, 50, 55, 60, 65, 70, 75, 80}, 80);
  EXPECT_EQ(evaluated(schedule), (std::vector<int64_t>{40, 50, 55, 60, 65, 70, 75, 80}));
  EXPECT_EQ(schedule.blocks(), (Blocks{{1, 40}, {41, 10}, {51, 5}, {56, 5}, {61, 5}, {66, 5}, {71, 5}, {76, 5}}));
}

TEST(EvalSchedule, EpochListMeetsMaxEpochs) {
  // Past the list, the last epoch still evaluates; list entries past max_epochs are never reached.
  EXPECT_EQ(EvalSchedule::at_epochs({2, 3}, 6).blocks(), (Blocks{{1, 2}, {3, 1}, {4, 3}}));
  EXPECT_EQ(EvalSchedule::at_epochs({40, 50}, 45).blocks(), (Blocks{{1, 40}, {41, 5}}));
  EXPECT_EQ(EvalSchedule::at_epochs({40, 50}, 1).blocks(), (Blocks{{1, 1}}));
}

TEST(EvalSchedule, HugeMaxEpochsCostsNothingPerBlock) {
  const EvalSchedule schedule = EvalSchedule::every(4, -1, int64_t{1} << 40);
  EXPECT_EQ(schedule.block_from(1), (EvalBlock{1, 4}));
  EXPECT_TRUE(schedule.evaluates_after(int64_t{1} << 40));
}

std::string error_of(const std::function<void()>& build) {
  try {
    build();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(EvalSchedule, RejectsBadSettingsNamingTheKey) {
  using ::testing::HasSubstr;
  EXPECT_THAT(error_of([] { EvalSchedule::every(0, -1, 5); }), HasSubstr("'eval_every_epochs'"));
  EXPECT_THAT(error_of([] { EvalSchedule::every(4, 4, 5); }), HasSubstr("'eval_offset'"));
  EXPECT_THAT(error_of([] { EvalSchedule::every(4, -2, 5); }), HasSubstr("'eval_offset'"));
  EXPECT_THAT(error_of([] { EvalSchedule::every(1, 1, 5); }), HasSubstr("'eval_offset'"));
  EXPECT_THAT(error_of([] { EvalSchedule::every(4, 0, 0); }), HasSubstr("'max_epochs'"));
  EXPECT_THAT(error_of([] { EvalSchedule::at_epochs({}, 5); }), HasSubstr("'eval_epochs' is empty"));
  EXPECT_THAT(error_of([] { EvalSchedule::at_epochs({50, 40}, 80); }), HasSubstr("strictly increasing"));
  EXPECT_THAT(error_of([] { EvalSchedule::at_epochs({40, 40}, 80); }), HasSubstr("strictly increasing"));
  EXPECT_THAT(error_of([] { EvalSchedule::at_epochs({0, 40}, 80); }), HasSubstr("numbered from 1"));
  EXPECT_THAT(error_of([] { EvalSchedule::at_epochs({-5}, 80); }), HasSubstr("numbered from 1"));
  EXPECT_THAT(error_of([] { EvalSchedule::at_epochs({40}, 0); }), HasSubstr("'max_epochs'"));
  EXPECT_EQ(error_of([] { EvalSchedule::every(4, 3, 5); }), "no error");
}

}  // namespace
}  // namespace mlh
