#include "datasets/movielens/negatives.h"

#include <string>

#include "base/user_error.h"

namespace mlh::movielens {
namespace {

// Streams of the two kinds of draw live in disjoint ranges, so a user id never aliases an epoch.
constexpr uint64_t kEvalStreamBase = 0x4556414c00000000ULL;   // "EVAL"
constexpr uint64_t kTrainStreamBase = 0x5452414e00000000ULL;  // "TRAN"
// Rejection attempts per draw before falling back to an exact walk over the allowed items; each
// draw's attempts occupy their own block of counter indices.
constexpr int kAttemptBits = 16;
constexpr uint64_t kMaxAttempts = uint64_t{1} << kAttemptBits;

int32_t uniform_below(uint64_t random_bits, int32_t bound) {
  return static_cast<int32_t>(((random_bits >> 32) * static_cast<uint64_t>(bound)) >> 32);
}

class ItemBitmap {
 public:
  explicit ItemBitmap(int32_t num_items) : words_((num_items + 63) / 64, 0) {}
  bool contains(int32_t item) const { return (words_[item >> 6] >> (item & 63)) & 1; }
  void insert(int32_t item) { words_[item >> 6] |= uint64_t{1} << (item & 63); }
  void erase(int32_t item) { words_[item >> 6] &= ~(uint64_t{1} << (item & 63)); }

 private:
  std::vector<uint64_t> words_;
};

// The `target`-th item (0-based) not in `excluded`, for the rare user whose rejection draws all
// missed.
template <typename IsExcluded>
int32_t nth_allowed_item(int32_t num_items, int64_t target, IsExcluded is_excluded) {
  for (int32_t item = 0; item < num_items; ++item) {
    if (is_excluded(item)) continue;
    if (target-- == 0) return item;
  }
  MLH_ASSERT(false && "fewer allowed items than counted");
  return -1;
}

}  // namespace

std::vector<int32_t> make_eval_negatives(const LeaveOneOutSplit& split, int per_user,
                                         uint64_t seed) {
  if (per_user <= 0) {
    throw UserError("eval negatives per user is " + std::to_string(per_user) +
                    "; set a positive count (MLPerf uses 999)");
  }
  MLH_ASSERT(static_cast<int32_t>(split.test_item.size()) == split.num_users);
  std::vector<int32_t> negatives(static_cast<size_t>(split.num_users) * per_user);
  ItemBitmap rated(split.num_items);
  for (int32_t user = 0; user < split.num_users; ++user) {
    const auto train_begin = split.user_items_sorted.begin() + split.user_offset[user];
    const auto train_end = split.user_items_sorted.begin() + split.user_offset[user + 1];
    int64_t num_rated = 0;
    auto mark_rated = [&](int32_t item) {
      if (!rated.contains(item)) {
        rated.insert(item);
        ++num_rated;
      }
    };
    for (auto it = train_begin; it != train_end; ++it) mark_rated(*it);
    mark_rated(split.test_item[user]);
    if (num_rated >= split.num_items) {
      throw UserError("movielens: user " + std::to_string(user) + " (dense id) rated all " +
                      std::to_string(split.num_items) +
                      " items, so no eval negative can be drawn; use a dataset with more items");
    }

    const uint64_t key = stream_key(seed, kEvalStreamBase + static_cast<uint64_t>(user));
    int32_t* user_negatives = negatives.data() + static_cast<size_t>(user) * per_user;
    for (int negative = 0; negative < per_user; ++negative) {
      const uint64_t first_index = static_cast<uint64_t>(negative) << kAttemptBits;
      int32_t drawn = -1;
      for (uint64_t attempt = 0; attempt < kMaxAttempts && drawn < 0; ++attempt) {
        const int32_t item =
            uniform_below(keyed_random(key, first_index + attempt), split.num_items);
        if (!rated.contains(item)) drawn = item;
      }
      if (drawn < 0) {
        const int64_t target = uniform_below(keyed_random(key, first_index + kMaxAttempts),
                                             static_cast<int32_t>(split.num_items - num_rated));
        drawn = nth_allowed_item(split.num_items, target,
                                 [&](int32_t item) { return rated.contains(item); });
      }
      user_negatives[negative] = drawn;
    }

    for (auto it = train_begin; it != train_end; ++it) rated.erase(*it);
    rated.erase(split.test_item[user]);
  }
  return negatives;
}

int32_t train_negative(const LeaveOneOutSplit& split, int32_t user, uint64_t seed, int64_t epoch,
                       int64_t index) {
  MLH_ASSERT(user >= 0 && user < split.num_users);
  MLH_ASSERT(index >= 0 && index < (int64_t{1} << (63 - kAttemptBits)));
  const uint64_t key = stream_key(seed, kTrainStreamBase + static_cast<uint64_t>(epoch));
  const uint64_t first_index = static_cast<uint64_t>(index) << kAttemptBits;
  for (uint64_t attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const int32_t item = uniform_below(keyed_random(key, first_index + attempt), split.num_items);
    if (!split.rated_in_train(user, item)) return item;
  }

  const auto train_begin = split.user_items_sorted.begin() + split.user_offset[user];
  const auto train_end = split.user_items_sorted.begin() + split.user_offset[user + 1];
  int64_t num_distinct_rated = 0;
  for (auto it = train_begin; it != train_end; ++it) {
    if (it == train_begin || *it != *(it - 1)) ++num_distinct_rated;
  }
  if (num_distinct_rated >= split.num_items) {
    throw UserError(
        "movielens: user " + std::to_string(user) + " (dense id) rated all " +
        std::to_string(split.num_items) +
        " items in train, so no training negative exists; use a dataset with more items");
  }
  const int64_t target = uniform_below(keyed_random(key, first_index + kMaxAttempts),
                                       static_cast<int32_t>(split.num_items - num_distinct_rated));
  return nth_allowed_item(split.num_items, target,
                          [&](int32_t item) { return split.rated_in_train(user, item); });
}

}  // namespace mlh::movielens
