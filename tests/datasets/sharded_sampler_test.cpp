#include "datasets/sharded_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "base/user_error.h"

namespace mlh {
namespace {

std::vector<int32_t> indices_of(const ShardedSampler& sampler, const ShardedSampler::Slice& s) {
  return std::vector<int32_t>(sampler.indices(s), sampler.indices(s) + (s.end - s.begin));
}

TEST(ShardedSampler, EveryEpochIsAPermutation) {
  ShardedSampler sampler(103, 8, 0, 1, 42);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    sampler.set_epoch(epoch);
    std::vector<int32_t> sorted = sampler.permutation();
    std::sort(sorted.begin(), sorted.end());
    std::vector<int32_t> expected(103);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(sorted, expected) << "epoch " << epoch;
  }
}

TEST(ShardedSampler, NumBatchesRoundsUp) {
  EXPECT_EQ(ShardedSampler(103, 8, 0, 1, 1).num_batches(), 13);
  EXPECT_EQ(ShardedSampler(104, 8, 0, 1, 1).num_batches(), 13);
  EXPECT_EQ(ShardedSampler(1, 8, 0, 1, 1).num_batches(), 1);
}

// For world sizes 1..4, with a short last batch (103 = 12 * 8 + 7; and 3 < 4 ranks in the last
// batch of size-4 batches), the ranks' slices are contiguous, disjoint, cover each global batch
// exactly as one rank would, and cover the epoch once.
TEST(ShardedSampler, RankSlicesPartitionEachGlobalBatchAndTheEpoch) {
  const int64_t num_samples = 103;
  for (const int64_t global_batch_size : {8, 4}) {
    ShardedSampler single_rank(num_samples, global_batch_size, 0, 1, 7);
    single_rank.set_epoch(2);
    for (int world_size = 1; world_size <= 4; ++world_size) {
      std::vector<ShardedSampler> ranks;
      for (int rank = 0; rank < world_size; ++rank) {
        ranks.emplace_back(num_samples, global_batch_size, rank, world_size, 7);
        ranks.back().set_epoch(2);
      }
      std::vector<int32_t> epoch_samples;
      for (int64_t batch = 0; batch < single_rank.num_batches(); ++batch) {
        const ShardedSampler::Slice whole = single_rank.slice(batch);
        std::vector<int32_t> batch_samples;
        int64_t expected_begin = whole.begin;
        int64_t smallest_part = whole.end - whole.begin;
        int64_t largest_part = 0;
        for (int rank = 0; rank < world_size; ++rank) {
          const ShardedSampler::Slice part = ranks[rank].slice(batch);
          EXPECT_EQ(part.begin, expected_begin);
          EXPECT_EQ(part.global_size, whole.global_size);
          expected_begin = part.end;
          smallest_part = std::min(smallest_part, part.end - part.begin);
          largest_part = std::max(largest_part, part.end - part.begin);
          const std::vector<int32_t> part_samples = indices_of(ranks[rank], part);
          batch_samples.insert(batch_samples.end(), part_samples.begin(), part_samples.end());
        }
        EXPECT_EQ(expected_begin, whole.end);
        EXPECT_LE(largest_part - smallest_part, 1);
        EXPECT_EQ(batch_samples, indices_of(single_rank, whole))
            << "world " << world_size << " batch " << batch;
        epoch_samples.insert(epoch_samples.end(), batch_samples.begin(), batch_samples.end());
      }
      std::sort(epoch_samples.begin(), epoch_samples.end());
      std::vector<int32_t> all(num_samples);
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(epoch_samples, all) << "world " << world_size;
    }
  }
}

TEST(ShardedSampler, ShortLastBatchIsCutProportionally) {
  // 103 samples at global batch 8: the last batch holds 7; three ranks cut at floor(i*7/3): 2, 2, 3.
  const int world_size = 3;
  const int64_t expected_sizes[] = {2, 2, 3};
  for (int rank = 0; rank < world_size; ++rank) {
    const ShardedSampler sampler(103, 8, rank, world_size, 1);
    const ShardedSampler::Slice last = sampler.slice(sampler.num_batches() - 1);
    EXPECT_EQ(last.global_size, 7);
    EXPECT_EQ(last.end - last.begin, expected_sizes[rank]);
  }
  // Four ranks over a last batch of 3: the first rank's slice is empty.
  const ShardedSampler first(103, 4, 0, 4, 1);
  const ShardedSampler::Slice empty = first.slice(first.num_batches() - 1);
  EXPECT_EQ(empty.global_size, 3);
  EXPECT_EQ(empty.begin, empty.end);
}

TEST(ShardedSampler, RankSliceIsTheUnionOfItsGradientShards) {
  // 8 shards per batch; for 1, 2, 4 and 8 ranks each rank's shards tile its slice, and shard k is
  // the same range whatever the world size.
  for (int world_size : {1, 2, 4, 8}) {
    for (int rank = 0; rank < world_size; ++rank) {
      const ShardedSampler sampler(1003, 100, rank, world_size, 1);
      const ShardedSampler reference(1003, 100, 0, 1, 1);
      for (int64_t batch : {int64_t{0}, sampler.num_batches() - 1}) {
        const ShardedSampler::Slice slice = sampler.slice(batch);
        const auto shards = sampler.local_shards(batch, 8);
        const auto all = reference.local_shards(batch, 8);
        ASSERT_EQ(shards.size(), static_cast<size_t>(8 / world_size));
        EXPECT_EQ(shards.front().begin, slice.begin);
        EXPECT_EQ(shards.back().end, slice.end);
        for (size_t j = 0; j < shards.size(); ++j) {
          if (j > 0) {
            EXPECT_EQ(shards[j].begin, shards[j - 1].end);
          }
          const auto& same = all[static_cast<size_t>(rank) * shards.size() + j];
          EXPECT_EQ(shards[j].begin, same.begin);
          EXPECT_EQ(shards[j].end, same.end);
        }
      }
    }
  }
}

TEST(ShardedSampler, DeterministicInSeedAndEpoch) {
  ShardedSampler a(1000, 32, 0, 2, 5);
  ShardedSampler b(1000, 32, 1, 2, 5);
  a.set_epoch(3);
  b.set_epoch(3);
  EXPECT_EQ(a.permutation(), b.permutation());

  const std::vector<int32_t> epoch3 = a.permutation();
  a.set_epoch(4);
  const std::vector<int32_t> epoch4 = a.permutation();
  EXPECT_NE(epoch3, epoch4);
  a.set_epoch(3);
  EXPECT_EQ(a.permutation(), epoch3);

  ShardedSampler other_seed(1000, 32, 0, 2, 6);
  other_seed.set_epoch(3);
  EXPECT_NE(other_seed.permutation(), epoch3);
}

// The shuffle is our own Fisher-Yates over mt19937_64, so these values hold on every platform.
TEST(ShardedSampler, PermutationIsPinned) {
  ShardedSampler sampler(10, 5, 0, 1, 1);
  sampler.set_epoch(0);
  const std::vector<int32_t> expected_epoch0 = {3, 7, 8, 5, 0, 6, 2, 1, 4, 9};
  EXPECT_EQ(sampler.permutation(), expected_epoch0);
}

TEST(ShardedSampler, RejectsBadSizes) {
  EXPECT_THROW(ShardedSampler(100, 2, 0, 4, 1), UserError);  // global batch < world size
  EXPECT_THROW(ShardedSampler(0, 8, 0, 1, 1), UserError);
  EXPECT_THROW(ShardedSampler(-5, 8, 0, 1, 1), UserError);
  EXPECT_THROW(ShardedSampler(100, 0, 0, 1, 1), UserError);
  EXPECT_THROW(ShardedSampler(100, 8, 0, 0, 1), UserError);
  EXPECT_THROW(ShardedSampler(100, 8, 2, 2, 1), UserError);
  EXPECT_THROW(ShardedSampler(100, 8, -1, 2, 1), UserError);
  EXPECT_NO_THROW(ShardedSampler(100, 4, 3, 4, 1));
}

// Rank 1 of 2 at 2 shards per batch: each global batch's second half, its indices the permutation's.
TEST(ShardedSampler, EpochPlanIsTheRanksSliceOfEveryBatch) {
  ShardedSampler sampler(10, 4, 1, 2, 1);
  sampler.set_epoch(0);
  const ShardedSampler::EpochPlan plan = sampler.epoch_plan(2);
  ASSERT_EQ(plan.shards.size(), 3u);
  ASSERT_EQ(plan.indices.size(), 3u);
  const std::vector<int32_t>& p = sampler.permutation();
  EXPECT_EQ(plan.indices[0], (std::vector<int32_t>{p[2], p[3]}));
  EXPECT_EQ(plan.indices[2], (std::vector<int32_t>{p[9]}));  // the short last batch: 2 samples, 1 each
  EXPECT_EQ(plan.shards[2].front().global_size, 2);
}

TEST(PartInBatches, CutsTheRanksPartInOrder) {
  EXPECT_EQ(part_in_batches(10, 2, 1, 2), (std::vector<std::vector<int32_t>>{{5, 6}, {7, 8}, {9}}));
  EXPECT_EQ(part_in_batches(10, 2, 0, 5), (std::vector<std::vector<int32_t>>{{0, 1, 2, 3, 4}}));
  EXPECT_TRUE(part_in_batches(1, 2, 0, 4).empty());
}

TEST(CyclingBatches, GoOnWhereTheLastPassStoppedAndWrapAround) {
  EXPECT_EQ(cycling_batches(0, 2, 2, 5), (std::vector<std::vector<int32_t>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(cycling_batches(1, 2, 2, 5), (std::vector<std::vector<int32_t>>{{4, 0}, {1, 2}}));
}

}  // namespace
}  // namespace mlh
