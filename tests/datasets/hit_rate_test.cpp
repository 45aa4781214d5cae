#include "datasets/movielens/hit_rate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace mlh::movielens {
namespace {

// One user's HR@k: 1 for a hit, 0 for a miss.
int64_t one_user_hit(float positive_score, const std::vector<float>& negative_scores,
                     const std::vector<int32_t>& negative_items, int k) {
  return count_hits_at_k(&positive_score, negative_scores.data(), negative_items.data(), 1,
                         static_cast<int64_t>(negative_scores.size()), k);
}

std::vector<int32_t> distinct_items(int count) {
  std::vector<int32_t> items(count);
  for (int i = 0; i < count; ++i) items[i] = 100 + i;
  return items;
}

TEST(HitRate, ClearHitAndClearMiss) {
  const std::vector<float> low(20, 0.1f);
  EXPECT_EQ(one_user_hit(0.9f, low, distinct_items(20), 10), 1);
  EXPECT_EQ(one_user_hit(0.9f, low, distinct_items(20), 1), 1);
  const std::vector<float> high(20, 0.95f);
  EXPECT_EQ(one_user_hit(0.9f, high, distinct_items(20), 10), 0);
}

TEST(HitRate, KBoundary) {
  // Nine distinct negatives above the positive: rank 9, a hit at k=10 but not at k=9.
  std::vector<float> scores(30, 0.0f);
  for (int i = 0; i < 9; ++i) scores[i * 3] = 1.0f;
  EXPECT_EQ(one_user_hit(0.5f, scores, distinct_items(30), 10), 1);
  EXPECT_EQ(one_user_hit(0.5f, scores, distinct_items(30), 9), 0);
  scores[1] = 1.0f;  // a tenth: rank 10, a miss at k=10
  EXPECT_EQ(one_user_hit(0.5f, scores, distinct_items(30), 10), 0);
  EXPECT_EQ(one_user_hit(0.5f, scores, distinct_items(30), 11), 1);
}

TEST(HitRate, TiesRankThePositiveLast) {
  std::vector<float> scores(30, 0.0f);
  for (int i = 0; i < 9; ++i) scores[i] = 0.5f;
  EXPECT_EQ(one_user_hit(0.5f, scores, distinct_items(30), 10), 1);
  scores[9] = 0.5f;  // ten ties ahead of the positive
  EXPECT_EQ(one_user_hit(0.5f, scores, distinct_items(30), 10), 0);
  EXPECT_EQ(one_user_hit(0.5f, {0.5f}, {7}, 1), 0);
}

TEST(HitRate, DuplicateNegativesCountOnce) {
  // Ten copies of item 3 beat the positive: one item ahead, so rank 1.
  std::vector<float> scores(20, 0.1f);
  std::vector<int32_t> items = distinct_items(20);
  for (int i = 0; i < 10; ++i) {
    scores[i] = 0.9f;
    items[i] = 3;
  }
  EXPECT_EQ(one_user_hit(0.5f, scores, items, 10), 1);
  EXPECT_EQ(one_user_hit(0.5f, scores, items, 2), 1);
  EXPECT_EQ(one_user_hit(0.5f, scores, items, 1), 0);
}

TEST(HitRate, NanPositiveIsAMiss) {
  EXPECT_EQ(one_user_hit(std::nanf(""), std::vector<float>(20, 0.0f), distinct_items(20), 10), 0);
}

TEST(HitRate, CountsOverUsers) {
  // Three users, three negatives each, k=2. User 0: none ahead (hit). User 1: two distinct ahead
  // (miss). User 2: one item twice ahead (hit).
  const std::vector<float> positives = {0.5f, 0.5f, 0.5f};
  const std::vector<float> negative_scores = {0.1f, 0.2f, 0.3f, 0.6f, 0.7f, 0.1f, 0.8f, 0.8f, 0.1f};
  const std::vector<int32_t> negative_items = {1, 2, 3, 1, 2, 3, 4, 4, 5};
  EXPECT_EQ(
      count_hits_at_k(positives.data(), negative_scores.data(), negative_items.data(), 3, 3, 2), 2);
  EXPECT_EQ(
      count_hits_at_k(positives.data(), negative_scores.data(), negative_items.data(), 0, 3, 2), 0);
}

TEST(HitRate, PopularityBaseline) {
  // Item train counts; two users with two negatives each, k=1.
  // User 0: positive item 2 (count 5) vs items 0 (9) and 1 (1): item 0 ahead, miss.
  // User 1: positive item 0 (count 9) vs items 1 and 1: hit.
  const std::vector<int64_t> counts = {9, 1, 5};
  const std::vector<int32_t> test_items = {2, 0};
  const std::vector<int32_t> negative_items = {0, 1, 1, 1};
  EXPECT_DOUBLE_EQ(
      popularity_hit_rate_at_k(counts.data(), test_items.data(), negative_items.data(), 2, 2, 1),
      0.5);
  EXPECT_DOUBLE_EQ(
      popularity_hit_rate_at_k(counts.data(), test_items.data(), negative_items.data(), 2, 2, 2),
      1.0);
  // A tie in count ranks the positive last.
  const std::vector<int64_t> tied = {5, 1, 5};
  EXPECT_DOUBLE_EQ(
      popularity_hit_rate_at_k(tied.data(), test_items.data(), negative_items.data(), 2, 2, 1),
      0.5);
}

}  // namespace
}  // namespace mlh::movielens
