#include "datasets/wmt/sentence_batcher.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "compliance/user_error.h"
#include "datasets/counter_random.h"

namespace mlh::wmt {
namespace {

constexpr uint64_t kBucketOrderStream = 0x5b;  // low byte of the stream id; epoch and bucket above
constexpr uint64_t kBatchOrderStream = 0x5c;

}  // namespace

SentenceBatcher::SentenceBatcher(const std::vector<EncodedPair>& pairs, const SentenceBatchOptions& options)
    : pairs_(pairs), options_(options) {
  if (options_.batch_size < 1)
    throw UserError("sentence batching: batch size " + std::to_string(options_.batch_size) + " must be >= 1");
  if (options_.max_length < 3 || options_.max_length >= std::numeric_limits<int32_t>::max())
    throw UserError("sentence batching: max_length " + std::to_string(options_.max_length) +
                    " must be >= 3 tokens (BOS, a word, EOS); the reference uses 50");
  if (options_.buckets < 1) throw UserError("sentence batching: buckets must be >= 1");
  const int64_t width = (options_.max_length + options_.buckets - 1) / options_.buckets;
  const auto max_length = static_cast<size_t>(options_.max_length);
  std::vector<int64_t> bucket_sizes(static_cast<size_t>(options_.buckets), 0);
  for (size_t i = 0; i < pairs_.size(); ++i) {
    size_t source = pairs_[i].source.size(), target = pairs_[i].target.size();
    if (source > max_length || target > max_length) {
      if (options_.policy == LengthPolicy::kDiscard) {
        ++dropped_;
        continue;
      }
      ++truncated_;
      source = std::min(source, max_length);
      target = std::min(target, max_length);
    }
    const int64_t bucket = std::min<int64_t>(
        std::max(static_cast<int64_t>(source) / width, static_cast<int64_t>(target) / width), options_.buckets - 1);
    pair_index_.push_back(static_cast<int64_t>(i));
    source_length_.push_back(static_cast<int32_t>(source));
    target_length_.push_back(static_cast<int32_t>(target));
    bucket_.push_back(static_cast<int32_t>(bucket));
    ++bucket_sizes[static_cast<size_t>(bucket)];
  }
  for (const int64_t size : bucket_sizes) batches_per_epoch_ += size / options_.batch_size;
  if (batches_per_epoch_ == 0)
    throw UserError("sentence batching: no length bucket holds a whole batch of " +
                    std::to_string(options_.batch_size) + " pairs (" + std::to_string(kept_pairs()) + " of " +
                    std::to_string(pairs_.size()) + " pairs kept at max_length " +
                    std::to_string(options_.max_length) + "); lower the batch size or use more data");
}

std::vector<std::vector<int64_t>> SentenceBatcher::epoch_batches(uint64_t seed, int64_t epoch) const {
  MLH_ASSERT(epoch >= 0);
  std::vector<std::vector<int64_t>> buckets(static_cast<size_t>(options_.buckets));
  for (int64_t kept = 0; kept < kept_pairs(); ++kept) buckets[static_cast<size_t>(bucket_of(kept))].push_back(kept);
  std::vector<std::vector<int64_t>> batches;
  const auto batch = static_cast<size_t>(options_.batch_size);
  for (size_t b = 0; b < buckets.size(); ++b) {
    std::vector<int64_t>& bucket = buckets[b];
    keyed_shuffle(bucket, stream_key(seed, (static_cast<uint64_t>(epoch) << 16 | b << 8) | kBucketOrderStream));
    for (size_t begin = 0; begin + batch <= bucket.size(); begin += batch)
      batches.emplace_back(bucket.begin() + static_cast<std::ptrdiff_t>(begin),
                           bucket.begin() + static_cast<std::ptrdiff_t>(begin + batch));
  }
  keyed_shuffle(batches, stream_key(seed, static_cast<uint64_t>(epoch) << 8 | kBatchOrderStream));
  return batches;
}

PaddedIds SentenceBatcher::padded(const std::vector<int64_t>& kept, bool sources) const {
  const std::vector<int32_t>& lengths = sources ? source_length_ : target_length_;
  PaddedIds out;
  out.rows = static_cast<int64_t>(kept.size());
  for (const int64_t k : kept) {
    MLH_ASSERT(k >= 0 && k < kept_pairs());
    out.columns = std::max<int64_t>(out.columns, lengths[static_cast<size_t>(k)]);
  }
  out.ids.assign(static_cast<size_t>(out.rows * out.columns), 0);
  for (size_t row = 0; row < kept.size(); ++row) {
    const auto k = static_cast<size_t>(kept[row]);
    const EncodedPair& pair = pairs_[static_cast<size_t>(pair_index_[k])];
    const TokenIds& ids = sources ? pair.source : pair.target;
    const auto length = static_cast<size_t>(lengths[k]);
    int32_t* destination = out.ids.data() + row * static_cast<size_t>(out.columns);
    std::copy_n(ids.begin(), length, destination);
    if (length < ids.size()) destination[length - 1] = ids.back();  // cut: EOS stays last
  }
  return out;
}

}  // namespace mlh::wmt
