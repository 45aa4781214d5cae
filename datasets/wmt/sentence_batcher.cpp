#include "datasets/wmt/sentence_batcher.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "base/user_error.h"
#include "datasets/counter_random.h"

namespace mlh::wmt {
namespace {

constexpr uint64_t kBucketOrderStream = 0x5b;  // low byte of the stream id; epoch and bucket above
constexpr uint64_t kBatchOrderStream = 0x5c;

// Returns `options` once they are valid, so the constructor checks them before using them.
const SentenceBatchOptions& validated(const SentenceBatchOptions& options) {
  if (options.batch_size < 1)
    throw UserError("sentence batching: batch size " + std::to_string(options.batch_size) + " must be >= 1");
  if (options.max_length < 3 || options.max_length >= std::numeric_limits<int32_t>::max())
    throw UserError("sentence batching: max_length " + std::to_string(options.max_length) +
                    " must be >= 3 tokens (BOS, a word, EOS); the reference uses 50");
  if (options.buckets < 1) throw UserError("sentence batching: buckets must be >= 1");
  return options;
}

}  // namespace

SentenceBatcher::SentenceBatcher(const std::vector<EncodedPair>& pairs, const SentenceBatchOptions& options)
    : options_(validated(options)), kept_(pairs, options_.max_length, options_.policy) {
  const int64_t width = (options_.max_length + options_.buckets - 1) / options_.buckets;
  std::vector<int64_t> bucket_sizes(static_cast<size_t>(options_.buckets), 0);
  for (int64_t k = 0; k < kept_.count(); ++k) {
    const int64_t bucket = std::min<int64_t>(
        std::max(kept_.source_length(k) / width, kept_.target_length(k) / width), options_.buckets - 1);
    bucket_.push_back(static_cast<int32_t>(bucket));
    ++bucket_sizes[static_cast<size_t>(bucket)];
  }
  for (const int64_t size : bucket_sizes) batches_per_epoch_ += size / options_.batch_size;
  if (batches_per_epoch_ == 0)
    throw UserError("sentence batching: no length bucket holds a whole batch of " +
                    std::to_string(options_.batch_size) + " pairs (" + std::to_string(kept_pairs()) + " of " +
                    std::to_string(pairs.size()) + " pairs kept at max_length " +
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

}  // namespace mlh::wmt
