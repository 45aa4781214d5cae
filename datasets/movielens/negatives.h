// Negative sampling for NCF, deterministic from a seed and independent of how work is sharded:
// every draw is a pure function of (seed, stream, index), so one rank or many draw the same items.
#pragma once

#include <cstdint>
#include <vector>

#include "datasets/counter_random.h"
#include "datasets/movielens/ratings.h"

namespace mlh::movielens {

using mlh::counter_random;  // the draws below are counter_random streams

// Eval negatives, as the MLPerf reference: per user `per_user` items drawn uniformly WITH replacement
// from the items the user never rated (train or test). Row-major [num_users x per_user].
std::vector<int32_t> make_eval_negatives(const LeaveOneOutSplit& split, int per_user, uint64_t seed);

// The training negative for global negative index `index` of `epoch`: an item drawn uniformly and
// redrawn while the user has it in train (the reference's rejection sampling).
int32_t train_negative(const LeaveOneOutSplit& split, int32_t user, uint64_t seed, int64_t epoch,
                       int64_t index);

}  // namespace mlh::movielens
