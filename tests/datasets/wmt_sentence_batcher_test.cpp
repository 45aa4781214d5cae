#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/user_error.h"
#include "datasets/wmt/sentence_batcher.h"

namespace mlh::wmt {
namespace {

// Pair i has source length 3 + i % 20 and target length 3 + (i * 7) % 20: BOS, words, EOS.
std::vector<EncodedPair> pairs_of_many_lengths(int count) {
  std::vector<EncodedPair> pairs;
  for (int i = 0; i < count; ++i) {
    TokenIds source(static_cast<size_t>(3 + i % 20), 5 + i % 11), target(static_cast<size_t>(3 + (i * 7) % 20), 6);
    source.front() = target.front() = 2;
    source.back() = target.back() = 3;
    pairs.push_back({source, target});
  }
  return pairs;
}

TEST(SentenceBatcher, DrawsWholeBatchesFromEqualWidthBuckets) {
  const auto pairs = pairs_of_many_lengths(1000);
  SentenceBatchOptions options;
  options.batch_size = 16;
  options.max_length = 20;  // width 4: lengths 0-3, 4-7, ..., 16-20 (the last takes 20 too)
  const SentenceBatcher batcher(pairs, options);
  EXPECT_EQ(batcher.dropped_pairs(), 1000 / 20 * 4);  // lengths 21 and 22 on either side: i % 20 in {14, 17, 18, 19}
  std::vector<int64_t> bucket_sizes(5, 0);
  for (int64_t k = 0; k < batcher.kept_pairs(); ++k) {
    const int64_t expected = std::min<int64_t>(std::max(batcher.source_length(k), batcher.target_length(k)) / 4, 4);
    EXPECT_EQ(batcher.bucket_of(k), expected);
    ++bucket_sizes[static_cast<size_t>(expected)];
  }
  int64_t whole = 0;
  for (int64_t size : bucket_sizes) whole += size / 16;
  EXPECT_EQ(batcher.batches_per_epoch(), whole);

  const auto batches = batcher.epoch_batches(7, 1);
  ASSERT_EQ(static_cast<int64_t>(batches.size()), whole);
  std::set<int64_t> seen;
  for (const auto& batch : batches) {
    ASSERT_EQ(batch.size(), 16u);
    for (int64_t k : batch) {
      EXPECT_EQ(batcher.bucket_of(k), batcher.bucket_of(batch.front()));  // one bucket per batch
      EXPECT_TRUE(seen.insert(k).second);                                 // no pair twice
    }
  }
  // The same (seed, epoch) gives the same batches; another epoch or seed another order.
  EXPECT_EQ(batcher.epoch_batches(7, 1), batches);
  EXPECT_NE(batcher.epoch_batches(7, 2), batches);
  EXPECT_NE(batcher.epoch_batches(8, 1), batches);
}

TEST(SentenceBatcher, TruncateKeepsEosLastAndPadsWithZero) {
  std::vector<EncodedPair> pairs = {{{2, 7, 8, 9, 10, 3}, {2, 4, 3}}, {{2, 5, 3}, {2, 6, 6, 3}}};
  SentenceBatchOptions options;
  options.batch_size = 2;
  options.max_length = 4;
  options.buckets = 1;
  options.policy = LengthPolicy::kTruncate;
  const SentenceBatcher batcher(pairs, options);
  EXPECT_EQ(batcher.truncated_pairs(), 1);
  const PaddedIds sources = batcher.padded_sources({0, 1});
  EXPECT_EQ(sources.columns, 4);
  EXPECT_EQ(sources.ids, (std::vector<int32_t>{2, 7, 8, 3, 2, 5, 3, 0}));
  const PaddedIds targets = batcher.padded_targets({0, 1});
  EXPECT_EQ(targets.ids, (std::vector<int32_t>{2, 4, 3, 0, 2, 6, 6, 3}));
}

TEST(SentenceBatcher, NamesTheProblemWhenNoBucketHoldsABatch) {
  const auto pairs = pairs_of_many_lengths(30);
  SentenceBatchOptions options;
  options.batch_size = 64;
  try {
    SentenceBatcher batcher(pairs, options);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("whole batch of 64"), std::string::npos) << e.what();
  }
  options.batch_size = 0;
  EXPECT_THROW(SentenceBatcher(pairs, options), UserError);
}

}  // namespace
}  // namespace mlh::wmt
