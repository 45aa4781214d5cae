// Batches of a fixed number of translation pairs in length buckets, as the MLPerf GNMT reference's
// BucketingSampler (seq2seq/data/sampler.py) draws them:
// - pairs longer than max_length tokens (BOS and EOS included) on either side are dropped, or cut
//   to max_length with EOS kept last (the v0.7 rules allow either);
// - `buckets` buckets of equal width ceil(max_length / buckets); a pair goes to bucket
//   max(source / width, target / width), at most the last;
// - every epoch each bucket is shuffled and cut into batches of batch_size pairs, its last partial
//   batch dropped, and the batches of all buckets are shuffled together.
// The order depends on (seed, epoch) only, so any rank count sees the same global batches.
#pragma once

#include <cstdint>
#include <vector>

#include "datasets/wmt/sentence_pair.h"
#include "datasets/wmt/kept_pairs.h"

namespace mlh::wmt {

struct SentenceBatchOptions {
  int64_t batch_size = 128;  // pairs per global batch
  int64_t max_length = 50;   // the reference's max_length_train
  LengthPolicy policy = LengthPolicy::kDiscard;
  int64_t buckets = 5;
};

class SentenceBatcher {
 public:
  // `pairs` is not owned and must outlive the batcher unchanged. Throws UserError naming the option
  // for batch_size < 1, max_length < 3 (BOS, a token, EOS) or buckets < 1; and when no bucket holds
  // a whole batch.
  SentenceBatcher(const std::vector<EncodedPair>& pairs, const SentenceBatchOptions& options);

  int64_t kept_pairs() const { return kept_.count(); }
  int64_t dropped_pairs() const { return kept_.dropped(); }
  int64_t truncated_pairs() const { return kept_.truncated(); }
  // Batches per epoch (whole batches only) and the pairs they hold.
  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  int64_t pairs_per_epoch() const { return batches_per_epoch_ * options_.batch_size; }

  // One epoch's global batches, as indices into the kept pairs [0, kept_pairs()).
  std::vector<std::vector<int64_t>> epoch_batches(uint64_t seed, int64_t epoch) const;

  int64_t source_length(int64_t kept) const { return kept_.source_length(kept); }
  int64_t target_length(int64_t kept) const { return kept_.target_length(kept); }
  int64_t bucket_of(int64_t kept) const { return bucket_[static_cast<size_t>(kept)]; }
  // The (cut) ids of kept pairs, padded with kPadId to the longest in `kept`.
  PaddedIds padded_sources(const std::vector<int64_t>& kept) const { return kept_.padded(kept, true); }
  PaddedIds padded_targets(const std::vector<int64_t>& kept) const {
    return kept_.padded(kept, false);
  }

 private:
  SentenceBatchOptions options_;
  KeptPairs kept_;
  std::vector<int32_t> bucket_;
  int64_t batches_per_epoch_ = 0;
};

}  // namespace mlh::wmt
