// Batches of translation pairs by token count, as the MLPerf transformer's utils/dataset.py batches
// them (tf.contrib.data.group_by_window over length buckets, the Tensor2Tensor scheme):
// - a pair's length is max(source, target) length, EOS included;
// - bucket limits start at min_bucket_length and grow as x -> max(x + 1, int(x * bucket_growth))
//   while below max_length, then max_length + 1 closes the last bucket; bucket i holds the lengths
//   [limit(i-1), limit(i)) (from 0 for the first);
// - a bucket with limit b takes max_tokens_per_batch / b pairs per batch (integer division), so a
//   batch padded to its longest pair never exceeds max_tokens_per_batch tokens per side;
// - pairs longer than max_length on either side are dropped (the reference) or cut (the v0.7 rules
//   allow either).
// An epoch streams the kept pairs in a seeded order into per-bucket windows, emitting a window as a
// batch when it is full; at the end the partial windows are emitted in bucket order, as
// group_by_window flushes them, so every kept pair is in exactly one batch. The reference's order
// comes from shuffled shard files and nondeterministic interleaving; here it is a permutation that
// depends on (seed, epoch) only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/wmt/kept_pairs.h"
#include "datasets/wmt/sentence_pair.h"

namespace mlh::wmt {

struct TokenBatchOptions {
  int64_t max_tokens_per_batch = 4096;  // the reference's batch_size (TransformerBigParams)
  int64_t max_length = 256;
  LengthPolicy policy = LengthPolicy::kDiscard;
  int64_t min_bucket_length = 8;
  double bucket_growth = 1.1;
};

class TokenBatcher {
 public:
  // Sorts `pairs` (not owned; must outlive the batcher and stay unchanged) into buckets, dropping
  // or cutting (to max_length tokens, the last one EOS) the pairs longer than max_length. Throws
  // UserError naming the option for max_length < 1, max_tokens_per_batch <= max_length (the last
  // bucket would take no pair), min_bucket_length < 1 or bucket_growth < 1; and when no pair is
  // kept.
  TokenBatcher(const std::vector<EncodedPair>& pairs, const TokenBatchOptions& options);

  int64_t kept_pairs() const { return kept_.count(); }
  int64_t dropped_pairs() const { return kept_.dropped(); }
  int64_t truncated_pairs() const { return kept_.truncated(); }

  // One epoch's global batches, as indices into the kept pairs [0, kept_pairs()).
  std::vector<std::vector<int64_t>> epoch_batches(uint64_t seed, int64_t epoch) const;

  // Kept pair `kept` as an index into the constructor's `pairs`, and its lengths after cutting.
  int64_t pair_index(int64_t kept) const { return kept_.pair_index(kept); }
  int64_t source_length(int64_t kept) const { return kept_.source_length(kept); }
  int64_t target_length(int64_t kept) const { return kept_.target_length(kept); }
  // The (cut) ids of kept pairs, padded to the longest in `kept`.
  PaddedIds padded_sources(const std::vector<int64_t>& kept) const {
    return kept_.padded(kept, true);
  }
  PaddedIds padded_targets(const std::vector<int64_t>& kept) const {
    return kept_.padded(kept, false);
  }

  // Bucket i takes lengths below bucket_limits()[i] and batches of bucket_batch_sizes()[i] pairs.
  const std::vector<int64_t>& bucket_limits() const { return bucket_limits_; }
  const std::vector<int64_t>& bucket_batch_sizes() const { return bucket_batch_sizes_; }
  int64_t bucket_of(int64_t kept) const { return bucket_[static_cast<size_t>(kept)]; }

 private:
  TokenBatchOptions options_;
  KeptPairs kept_;
  std::vector<int64_t> bucket_limits_;
  std::vector<int64_t> bucket_batch_sizes_;
  std::vector<int32_t> bucket_;
};

// Cuts one global batch into `shards` contiguous parts (proportional_part: part i starts at
// floor(i * n / shards)), for data-parallel ranks and gradient shards; sizes differ by at most one,
// and some parts are empty when the batch has fewer pairs than `shards`.
std::vector<std::vector<int64_t>> split_into_shards(const std::vector<int64_t>& batch,
                                                    int64_t shards);

}  // namespace mlh::wmt
