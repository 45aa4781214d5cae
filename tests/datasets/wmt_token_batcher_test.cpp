#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "datasets/counter_random.h"
#include "datasets/wmt/subword_codec.h"
#include "datasets/wmt/token_batcher.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

// A side of `length` tokens ending in EOS (ids from 2 up, so padding and EOS stand out).
TokenIds side(int64_t length, int32_t first) {
  TokenIds ids;
  for (int64_t i = 0; i + 1 < length; ++i) ids.push_back(first + static_cast<int32_t>(i % 50) + 2);
  if (length > 0) ids.push_back(kEosId);
  return ids;
}

// `count` pairs with lengths drawn in [1, max_length] (a few longer when `over` > 0).
std::vector<EncodedPair> random_pairs(int64_t count, int64_t max_length, int64_t over,
                                      uint64_t seed) {
  std::vector<EncodedPair> pairs;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t draw = counter_random(seed, 0, static_cast<uint64_t>(i));
    const int64_t limit = i < over ? max_length + 30 : max_length;
    const int64_t source = 1 + static_cast<int64_t>(draw % static_cast<uint64_t>(limit));
    const int64_t target =
        1 + static_cast<int64_t>((draw >> 32) % static_cast<uint64_t>(max_length));
    pairs.push_back({side(source, 0), side(target, 100)});
  }
  return pairs;
}

TokenBatchOptions options(int64_t max_tokens, int64_t max_length,
                          LengthPolicy policy = LengthPolicy::kDiscard) {
  TokenBatchOptions result;
  result.max_tokens_per_batch = max_tokens;
  result.max_length = max_length;
  result.policy = policy;
  return result;
}

TEST(TokenBatcher, BucketLimitsAreTheReferences) {
  const std::vector<EncodedPair> pairs = {{side(3, 0), side(3, 0)}};
  const TokenBatcher reference(pairs, options(4096, 256));
  // utils/dataset.py _create_min_max_boundaries(256) buckets_max, from the reference's own code.
  const std::vector<int64_t> expected = {8,   9,   10,  11,  12,  13,  14,  15,  16, 17,  18,
                                         19,  20,  22,  24,  26,  28,  30,  33,  36, 39,  42,
                                         46,  50,  55,  60,  66,  72,  79,  86,  94, 103, 113,
                                         124, 136, 149, 163, 179, 196, 215, 236, 257};
  EXPECT_EQ(reference.bucket_limits(), expected);
  ASSERT_EQ(reference.bucket_batch_sizes().size(), expected.size());
  EXPECT_EQ(reference.bucket_batch_sizes().front(), 4096 / 8);
  EXPECT_EQ(reference.bucket_batch_sizes().back(), 4096 / 257);

  TokenBatchOptions small = options(100, 24);
  small.min_bucket_length = 4;
  small.bucket_growth = 2.0;
  // The reference's docstring says [4, 8, 16, 24, 25] for this case; its code gives [4, 8, 16, 25].
  EXPECT_EQ(TokenBatcher(pairs, small).bucket_limits(), (std::vector<int64_t>{4, 8, 16, 25}));
}

TEST(TokenBatcher, PairsGoToTheBucketOfTheirLongerSide) {
  const std::vector<EncodedPair> pairs = {{side(3, 0), side(9, 0)},
                                          {side(7, 0), side(2, 0)},
                                          {side(8, 0), side(8, 0)},
                                          {side(0, 0), side(0, 0)},
                                          {side(256, 0), side(1, 0)}};
  const TokenBatcher batcher(pairs, options(4096, 256));
  EXPECT_EQ(batcher.bucket_of(0), 2);  // 9 in [9, 10)
  EXPECT_EQ(batcher.bucket_of(1), 0);  // 7 in [0, 8)
  EXPECT_EQ(batcher.bucket_of(2), 1);  // 8 in [8, 9)
  EXPECT_EQ(batcher.bucket_of(3), 0);
  EXPECT_EQ(batcher.bucket_of(4), 41);  // 256 in [236, 257)
}

TEST(TokenBatcher, EveryKeptPairAppearsOncePerEpochWithinTheTokenLimit) {
  const std::vector<EncodedPair> pairs = random_pairs(3000, 64, 0, 5);
  const int64_t max_tokens = 512;
  const TokenBatcher batcher(pairs, options(max_tokens, 64));
  ASSERT_EQ(batcher.kept_pairs(), 3000);
  for (const int64_t epoch : {0, 1, 7}) {
    const auto batches = batcher.epoch_batches(11, epoch);
    std::vector<int> seen(3000, 0);
    std::map<int64_t, int> partial_batches_per_bucket;
    for (size_t b = 0; b < batches.size(); ++b) {
      const auto& batch = batches[b];
      ASSERT_FALSE(batch.empty());
      const int64_t bucket = batcher.bucket_of(batch[0]);
      const int64_t limit = batcher.bucket_limits()[static_cast<size_t>(bucket)];
      const auto rows = static_cast<int64_t>(batch.size());
      EXPECT_LE(rows, batcher.bucket_batch_sizes()[static_cast<size_t>(bucket)]);
      EXPECT_LE(rows * limit, max_tokens);
      for (const int64_t kept : batch) {
        ++seen[static_cast<size_t>(kept)];
        EXPECT_EQ(batcher.bucket_of(kept), bucket);
      }
      const PaddedIds sources = batcher.padded_sources(batch);
      const PaddedIds targets = batcher.padded_targets(batch);
      EXPECT_LE(sources.rows * sources.columns, max_tokens);
      EXPECT_LE(targets.rows * targets.columns, max_tokens);
      if (rows < batcher.bucket_batch_sizes()[static_cast<size_t>(bucket)]) {
        ++partial_batches_per_bucket[bucket];
      }
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    for (const auto& [bucket, partial] : partial_batches_per_bucket) {
      EXPECT_EQ(partial, 1) << "bucket " << bucket;  // only the flushed rest of each bucket
    }
  }
}

TEST(TokenBatcher, PartialWindowsComeLastInBucketOrder) {
  const std::vector<EncodedPair> pairs = random_pairs(500, 40, 0, 3);
  const TokenBatcher batcher(pairs, options(200, 40));
  const auto batches = batcher.epoch_batches(1, 0);
  size_t first_partial = batches.size();
  for (size_t b = 0; b < batches.size(); ++b) {
    const auto bucket = static_cast<size_t>(batcher.bucket_of(batches[b][0]));
    const bool full =
        static_cast<int64_t>(batches[b].size()) == batcher.bucket_batch_sizes()[bucket];
    if (!full && first_partial == batches.size()) first_partial = b;
    if (b > first_partial) {
      EXPECT_FALSE(full) << b;
      EXPECT_GT(bucket, static_cast<size_t>(batcher.bucket_of(batches[b - 1][0])));
    }
  }
  EXPECT_LT(first_partial, batches.size());
}

TEST(TokenBatcher, EpochsDependOnSeedAndEpochOnly) {
  const std::vector<EncodedPair> pairs = random_pairs(800, 50, 0, 9);
  const TokenBatcher batcher(pairs, options(400, 50));
  const TokenBatcher twin(pairs, options(400, 50));
  EXPECT_EQ(batcher.epoch_batches(3, 2), twin.epoch_batches(3, 2));
  EXPECT_EQ(batcher.epoch_batches(3, 2), batcher.epoch_batches(3, 2));
  EXPECT_NE(batcher.epoch_batches(3, 2), batcher.epoch_batches(3, 3));
  EXPECT_NE(batcher.epoch_batches(3, 2), batcher.epoch_batches(4, 2));
}

TEST(TokenBatcher, DiscardDropsAndTruncateCutsLongPairs) {
  std::vector<EncodedPair> pairs = random_pairs(200, 20, 40, 4);
  int64_t long_pairs = 0;
  for (const EncodedPair& pair : pairs)
    long_pairs += pair.source.size() > 20 || pair.target.size() > 20;
  ASSERT_GT(long_pairs, 10);
  pairs.push_back({side(20, 0), side(20, 0)});  // exactly max_length is kept

  const TokenBatcher discard(pairs, options(200, 20, LengthPolicy::kDiscard));
  EXPECT_EQ(discard.dropped_pairs(), long_pairs);
  EXPECT_EQ(discard.truncated_pairs(), 0);
  EXPECT_EQ(discard.kept_pairs(), static_cast<int64_t>(pairs.size()) - long_pairs);
  for (int64_t k = 0; k < discard.kept_pairs(); ++k) {
    const EncodedPair& pair = pairs[static_cast<size_t>(discard.pair_index(k))];
    EXPECT_LE(pair.source.size(), 20u);
    EXPECT_EQ(discard.source_length(k), static_cast<int64_t>(pair.source.size()));
  }

  const TokenBatcher truncate(pairs, options(200, 20, LengthPolicy::kTruncate));
  EXPECT_EQ(truncate.dropped_pairs(), 0);
  EXPECT_EQ(truncate.truncated_pairs(), long_pairs);
  ASSERT_EQ(truncate.kept_pairs(), static_cast<int64_t>(pairs.size()));
  for (int64_t k = 0; k < truncate.kept_pairs(); ++k) {
    const EncodedPair& pair = pairs[static_cast<size_t>(truncate.pair_index(k))];
    EXPECT_EQ(truncate.source_length(k), std::min<int64_t>(20, pair.source.size()));
    EXPECT_EQ(truncate.target_length(k), std::min<int64_t>(20, pair.target.size()));
    const PaddedIds row = truncate.padded_sources({k});
    ASSERT_EQ(row.columns, truncate.source_length(k));
    EXPECT_EQ(row.ids.back(), kEosId);
    EXPECT_TRUE(std::equal(row.ids.begin(), row.ids.end() - 1, pair.source.begin()));
  }
}

TEST(TokenBatcher, PaddedIdsPadToTheLongestRow) {
  const std::vector<EncodedPair> pairs = {{{5, 6, 1}, {7, 1}}, {{8, 1}, {9, 10, 11, 1}}};
  const TokenBatcher batcher(pairs, options(100, 10));
  const PaddedIds sources = batcher.padded_sources({1, 0});
  EXPECT_EQ(sources.rows, 2);
  EXPECT_EQ(sources.columns, 3);
  EXPECT_EQ(sources.ids, (std::vector<int32_t>{8, 1, kPadId, 5, 6, 1}));
  const PaddedIds targets = batcher.padded_targets({0, 1});
  EXPECT_EQ(targets.columns, 4);
  EXPECT_EQ(targets.ids, (std::vector<int32_t>{7, 1, kPadId, kPadId, 9, 10, 11, 1}));
}

TEST(TokenBatcher, BadOptionsAndNoKeptPairsAreUserErrors) {
  EXPECT_EQ(parse_length_policy("discard", "data.length_policy"), LengthPolicy::kDiscard);
  EXPECT_EQ(parse_length_policy("truncate", "data.length_policy"), LengthPolicy::kTruncate);
  EXPECT_STREQ(length_policy_name(LengthPolicy::kTruncate), "truncate");
  std::string message = user_error_of([] { parse_length_policy("clip", "data.length_policy"); });
  EXPECT_NE(message.find("data.length_policy: unknown length policy 'clip'"), std::string::npos)
      << message;

  const std::vector<EncodedPair> pairs = {{side(30, 0), side(5, 0)}};
  message = user_error_of([&] { TokenBatcher(pairs, options(256, 256)); });
  EXPECT_NE(message.find("max_tokens_per_batch 256 is not above max_length 256"), std::string::npos)
      << message;
  message = user_error_of([&] { TokenBatcher(pairs, options(256, 0)); });
  EXPECT_NE(message.find("max_length is 0"), std::string::npos) << message;
  TokenBatchOptions growth = options(256, 20);
  growth.bucket_growth = 0.5;
  message = user_error_of([&] { TokenBatcher(pairs, growth); });
  EXPECT_NE(message.find("bucket_growth"), std::string::npos) << message;
  message = user_error_of([&] { TokenBatcher(pairs, options(256, 20)); });
  EXPECT_NE(message.find("all 1 pairs are longer than max_length 20"), std::string::npos)
      << message;
  EXPECT_EQ(TokenBatcher(pairs, options(256, 20, LengthPolicy::kTruncate)).kept_pairs(), 1);
  message = user_error_of([] { TokenBatcher({}, options(256, 20)); });
  EXPECT_NE(message.find("no pairs to batch"), std::string::npos) << message;
}

TEST(SplitIntoShards, CutsContiguousPartsDifferingByAtMostOne) {
  const std::vector<int64_t> batch = {10, 11, 12, 13, 14, 15, 16};
  const auto parts = split_into_shards(batch, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], (std::vector<int64_t>{10, 11}));
  EXPECT_EQ(parts[1], (std::vector<int64_t>{12, 13}));
  EXPECT_EQ(parts[2], (std::vector<int64_t>{14, 15, 16}));
  EXPECT_EQ(split_into_shards(batch, 1), std::vector<std::vector<int64_t>>{batch});

  const auto sparse = split_into_shards({7, 8}, 4);
  ASSERT_EQ(sparse.size(), 4u);
  std::vector<int64_t> joined;
  for (const auto& part : sparse) {
    EXPECT_LE(part.size(), 1u);
    joined.insert(joined.end(), part.begin(), part.end());
  }
  EXPECT_EQ(joined, (std::vector<int64_t>{7, 8}));
  for (const auto& part : split_into_shards({}, 2)) EXPECT_TRUE(part.empty());
}

}  // namespace
}  // namespace mlh::wmt
