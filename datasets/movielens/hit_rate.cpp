#include "datasets/movielens/hit_rate.h"

#include <algorithm>
#include <vector>

#include "base/user_error.h"

namespace mlh::movielens {
namespace {

// A negative ranks ahead of the positive unless it scores strictly lower; written as !(a < b) so a
// NaN on either side counts against the positive rather than as a free hit.
template <typename Score>
bool ranks_ahead(Score negative_score, Score positive_score) {
  return !(negative_score < positive_score);
}

template <typename ScoreOf>
int64_t count_hits(int64_t num_users, int64_t negatives_per_user, int k,
                   const int32_t* negative_items, ScoreOf score_of) {
  MLH_ASSERT(num_users >= 0 && negatives_per_user >= 0 && k > 0);
  int64_t hits = 0;
  std::vector<int32_t> items_ahead;
  for (int64_t user = 0; user < num_users; ++user) {
    const auto positive_score = score_of.positive(user);
    items_ahead.clear();
    const int64_t row_begin = user * negatives_per_user;
    for (int64_t j = row_begin; j < row_begin + negatives_per_user; ++j) {
      if (ranks_ahead(score_of.negative(j), positive_score))
        items_ahead.push_back(negative_items[j]);
    }
    if (static_cast<int64_t>(items_ahead.size()) >= k) {
      std::sort(items_ahead.begin(), items_ahead.end());
      const auto distinct_end = std::unique(items_ahead.begin(), items_ahead.end());
      if (distinct_end - items_ahead.begin() >= k) continue;
    }
    ++hits;
  }
  return hits;
}

}  // namespace

int64_t count_hits_at_k(const float* positive_scores, const float* negative_scores,
                        const int32_t* negative_items, int64_t num_users,
                        int64_t negatives_per_user, int k) {
  struct {
    const float* positive_scores;
    const float* negative_scores;
    float positive(int64_t user) const { return positive_scores[user]; }
    float negative(int64_t j) const { return negative_scores[j]; }
  } scores{positive_scores, negative_scores};
  return count_hits(num_users, negatives_per_user, k, negative_items, scores);
}

double popularity_hit_rate_at_k(const int64_t* item_train_counts, const int32_t* test_items,
                                const int32_t* negative_items, int64_t num_users,
                                int64_t negatives_per_user, int k) {
  if (num_users == 0) return 0.0;
  struct {
    const int64_t* counts;
    const int32_t* test_items;
    const int32_t* negative_items;
    int64_t positive(int64_t user) const { return counts[test_items[user]]; }
    int64_t negative(int64_t j) const { return counts[negative_items[j]]; }
  } scores{item_train_counts, test_items, negative_items};
  return static_cast<double>(count_hits(num_users, negatives_per_user, k, negative_items, scores)) /
         static_cast<double>(num_users);
}

}  // namespace mlh::movielens
