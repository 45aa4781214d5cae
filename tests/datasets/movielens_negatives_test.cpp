#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "base/user_error.h"
#include "datasets/movielens/negatives.h"

namespace mlh::movielens {
namespace {

// Builds a split directly from per-user train item lists and test items.
LeaveOneOutSplit split_of(int32_t num_items, const std::vector<std::vector<int32_t>>& train_items,
                          const std::vector<int32_t>& test_items) {
  LeaveOneOutSplit split;
  split.num_users = static_cast<int32_t>(train_items.size());
  split.num_items = num_items;
  split.user_offset.push_back(0);
  for (int32_t user = 0; user < split.num_users; ++user) {
    for (const int32_t item : train_items[user]) {
      split.train_user.push_back(user);
      split.train_item.push_back(item);
    }
    split.user_offset.push_back(static_cast<int64_t>(split.train_item.size()));
    std::vector<int32_t> sorted = train_items[user];
    std::sort(sorted.begin(), sorted.end());
    split.user_items_sorted.insert(split.user_items_sorted.end(), sorted.begin(), sorted.end());
  }
  split.test_item = test_items;
  return split;
}

// 40 users over 30 items, each with 5..20 distinct train items and a test item not among them.
LeaveOneOutSplit random_split() {
  std::mt19937 generator(3);
  std::vector<std::vector<int32_t>> train_items;
  std::vector<int32_t> test_items;
  for (int user = 0; user < 40; ++user) {
    std::vector<int32_t> items(30);
    for (int32_t item = 0; item < 30; ++item) items[item] = item;
    std::shuffle(items.begin(), items.end(), generator);
    const int num_train = 5 + user % 16;
    train_items.emplace_back(items.begin(), items.begin() + num_train);
    test_items.push_back(items[num_train]);
  }
  return split_of(30, train_items, test_items);
}

TEST(CounterRandom, DeterministicAndSensitiveToEveryInput) {
  EXPECT_EQ(counter_random(1, 2, 3), counter_random(1, 2, 3));
  const uint64_t base = counter_random(1, 2, 3);
  EXPECT_NE(counter_random(2, 2, 3), base);
  EXPECT_NE(counter_random(1, 3, 3), base);
  EXPECT_NE(counter_random(1, 2, 4), base);
  EXPECT_NE(counter_random(0, 0, 0), counter_random(0, 0, 1));
  EXPECT_NE(counter_random(0, 1, 0), counter_random(0, 0, 1));
}

// Pure integer arithmetic, so these values hold on every platform; a change reshuffles every run.
TEST(CounterRandom, ValuesArePinned) {
  EXPECT_EQ(counter_random(1, 2, 3), 15347426670602572147ULL);
  EXPECT_EQ(counter_random(0, 0, 0), 16572387071653284832ULL);
}

TEST(CounterRandom, RoughlyUniform) {
  const int num_buckets = 16;
  const int num_draws = 160000;
  for (const uint64_t stream : {0ULL, 1ULL, 12345ULL}) {
    std::vector<int> high_buckets(num_buckets, 0);
    std::vector<int> low_buckets(num_buckets, 0);
    std::vector<int> bit_counts(64, 0);
    for (int i = 0; i < num_draws; ++i) {
      const uint64_t r = counter_random(9, stream, static_cast<uint64_t>(i));
      ++high_buckets[r >> 60];
      ++low_buckets[r & 15];
      for (int bit = 0; bit < 64; ++bit) bit_counts[bit] += (r >> bit) & 1;
    }
    const double expected = static_cast<double>(num_draws) / num_buckets;
    for (int bucket = 0; bucket < num_buckets; ++bucket) {
      EXPECT_NEAR(high_buckets[bucket], expected, 0.05 * expected);
      EXPECT_NEAR(low_buckets[bucket], expected, 0.05 * expected);
    }
    for (int bit = 0; bit < 64; ++bit)
      EXPECT_NEAR(bit_counts[bit], num_draws / 2, 0.02 * num_draws);
  }
}

TEST(EvalNegatives, NeverRatedAndDeterministic) {
  const LeaveOneOutSplit split = random_split();
  const int per_user = 50;
  const std::vector<int32_t> negatives = make_eval_negatives(split, per_user, 0);
  ASSERT_EQ(negatives.size(), static_cast<size_t>(split.num_users) * per_user);
  for (int32_t user = 0; user < split.num_users; ++user) {
    for (int j = 0; j < per_user; ++j) {
      const int32_t item = negatives[user * per_user + j];
      ASSERT_GE(item, 0);
      ASSERT_LT(item, split.num_items);
      EXPECT_FALSE(split.rated_in_train(user, item)) << "user " << user;
      EXPECT_NE(item, split.test_item[user]) << "user " << user;
    }
  }
  EXPECT_EQ(make_eval_negatives(split, per_user, 0), negatives);
  EXPECT_NE(make_eval_negatives(split, per_user, 1), negatives);
}

TEST(EvalNegatives, DrawnWithReplacementOverAllUnratedItems) {
  // User 0 rated all but items 7 and 21 of 30 (train + test): 20 draws must repeat and use both.
  std::vector<int32_t> train;
  for (int32_t item = 0; item < 30; ++item) {
    if (item != 7 && item != 21 && item != 13) train.push_back(item);
  }
  const LeaveOneOutSplit split = split_of(30, {train}, {13});
  const std::vector<int32_t> negatives = make_eval_negatives(split, 20, 5);
  const std::set<int32_t> distinct(negatives.begin(), negatives.end());
  EXPECT_EQ(distinct, (std::set<int32_t>{7, 21}));
}

TEST(EvalNegatives, ExactWhenAlmostEveryItemIsRated) {
  // One unrated item among a million: most draws exhaust the rejection attempts and take the
  // exact fallback, which must still find it.
  const int32_t num_items = 1000000;
  std::vector<int32_t> train;
  for (int32_t item = 0; item < num_items; ++item) {
    if (item != 123456 && item != 5) train.push_back(item);
  }
  const LeaveOneOutSplit split = split_of(num_items, {train}, {5});
  for (const int32_t item : make_eval_negatives(split, 3, 0)) EXPECT_EQ(item, 123456);
  for (int64_t index = 0; index < 3; ++index) {
    const int32_t item = train_negative(split, 0, 1, 0, index);
    EXPECT_TRUE(item == 123456 || item == 5) << item;
  }
}

TEST(EvalNegatives, Errors) {
  const LeaveOneOutSplit split = random_split();
  EXPECT_THROW(make_eval_negatives(split, 0, 0), UserError);
  const LeaveOneOutSplit rated_everything = split_of(3, {{0, 1}, {0}}, {2, 1});
  EXPECT_THROW(make_eval_negatives(rated_everything, 5, 0), UserError);
}

TEST(TrainNegatives, NeverInTrainAndDeterministic) {
  const LeaveOneOutSplit split = random_split();
  bool drew_a_test_item = false;
  for (int32_t user = 0; user < split.num_users; ++user) {
    for (int64_t index = 0; index < 200; ++index) {
      const int32_t item = train_negative(split, user, 11, 2, user * 1000 + index);
      ASSERT_GE(item, 0);
      ASSERT_LT(item, split.num_items);
      EXPECT_FALSE(split.rated_in_train(user, item));
      drew_a_test_item |= item == split.test_item[user];
      EXPECT_EQ(train_negative(split, user, 11, 2, user * 1000 + index), item);
    }
  }
  EXPECT_TRUE(drew_a_test_item) << "only train items are rejected, as in the reference";
}

TEST(TrainNegatives, VaryWithIndexEpochAndSeed) {
  const LeaveOneOutSplit split = random_split();
  auto draws = [&](uint64_t seed, int64_t epoch) {
    std::vector<int32_t> items;
    for (int64_t index = 0; index < 100; ++index) {
      items.push_back(train_negative(split, 0, seed, epoch, index));
    }
    return items;
  };
  const std::vector<int32_t> base = draws(1, 0);
  EXPECT_GT(std::set<int32_t>(base.begin(), base.end()).size(), 10u);
  EXPECT_NE(draws(1, 1), base);
  EXPECT_NE(draws(2, 0), base);
  EXPECT_EQ(draws(1, 0), base);
}

TEST(TrainNegatives, UniformOverUnratedItems) {
  // User 0 rated items 0..9 of 40: each of the other 30 should get about 1/30 of the draws.
  std::vector<int32_t> train;
  for (int32_t item = 0; item < 10; ++item) train.push_back(item);
  const LeaveOneOutSplit split = split_of(40, {train}, {10});
  const int num_draws = 60000;
  std::vector<int> counts(40, 0);
  for (int64_t index = 0; index < num_draws; ++index)
    ++counts[train_negative(split, 0, 3, 0, index)];
  for (int32_t item = 0; item < 10; ++item) EXPECT_EQ(counts[item], 0);
  for (int32_t item = 10; item < 40; ++item) EXPECT_NEAR(counts[item], num_draws / 30, 200);
}

TEST(TrainNegatives, UserWhoRatedEverythingInTrain) {
  const LeaveOneOutSplit split = split_of(3, {{0, 1, 2}}, {1});
  EXPECT_THROW(train_negative(split, 0, 1, 0, 0), UserError);
}

}  // namespace
}  // namespace mlh::movielens
