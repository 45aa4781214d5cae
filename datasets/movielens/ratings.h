// MovieLens ratings: reading the published files and the MLPerf NCF leave-one-out split
// (spec/workloads.md §7, reference convert.py). No LibTorch here: plain arrays, so the loader is
// cheap to compile and easy to test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlh::movielens {

// Every rating as an implicit positive, ids remapped to dense 0..N-1 in order of first appearance.
struct RatingsTable {
  std::vector<int32_t> user;        // dense user id per rating
  std::vector<int32_t> item;        // dense item id per rating
  std::vector<int64_t> timestamp;   // seconds, as in the file
  int32_t num_users = 0;
  int32_t num_items = 0;
  std::string source_path;
};

// Reads `ratings.csv` (ml-20m / ml-25m: header `userId,movieId,rating,timestamp`) or `ratings.dat`
// (ml-1m: `user::movie::rating::timestamp`, no header). `path` is the file or a folder holding one of
// them. Throws UserError naming the file and line for a missing file, a wrong header, a short or
// non-numeric row, or a file with no ratings.
RatingsTable read_ratings(const std::string& path);

// The MLPerf split: users with fewer than `min_ratings` ratings dropped (ids stay dense), each user's
// latest rating (largest timestamp; the later row wins a tie) is the test positive, the rest train.
struct LeaveOneOutSplit {
  int32_t num_users = 0;
  int32_t num_items = 0;
  std::vector<int32_t> train_user;      // train positives, grouped by user, in file order per user
  std::vector<int32_t> train_item;
  std::vector<int64_t> user_offset;     // num_users+1: user u's train items are [offset[u], offset[u+1])
  std::vector<int32_t> user_items_sorted;  // same ranges, items sorted, for membership tests
  std::vector<int32_t> test_item;       // num_users: the held-out positive per user

  int64_t num_train() const { return static_cast<int64_t>(train_item.size()); }
  // True when user rated item in train (binary search over user_items_sorted).
  bool rated_in_train(int32_t user, int32_t item) const;
};

// Throws UserError when no user has at least min_ratings ratings.
LeaveOneOutSplit leave_one_out(const RatingsTable& ratings, int min_ratings);

}  // namespace mlh::movielens
