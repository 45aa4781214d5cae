// HR@K for NCF exactly as the MLPerf rules count it (spec/workloads.md §7 Metric): each user's
// positive is ranked against its eval negatives; duplicate negatives count once; a negative that
// ties the positive's score ranks ahead of it (the positive comes last on ties). A hit is a rank < K.
#pragma once

#include <cstdint>

namespace mlh::movielens {

// Counts the hits among `num_users` users.
//   positive_scores: [num_users]
//   negative_scores, negative_items: [num_users x negatives_per_user], row-major.
// Duplicates are detected by item id within a user's row.
int64_t count_hits_at_k(const float* positive_scores, const float* negative_scores,
                        const int32_t* negative_items, int64_t num_users,
                        int64_t negatives_per_user, int k);

// The score of the "most popular item" recommender on the same eval set: an item's score is its
// train count. Reported beside a run so a target can be judged against it.
double popularity_hit_rate_at_k(const int64_t* item_train_counts, const int32_t* test_items,
                                const int32_t* negative_items, int64_t num_users,
                                int64_t negatives_per_user, int k);

}  // namespace mlh::movielens
