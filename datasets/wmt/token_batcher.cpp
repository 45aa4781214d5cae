#include "datasets/wmt/token_batcher.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "datasets/sharded_sampler.h"
#include "datasets/wmt/subword_codec.h"

namespace mlh::wmt {
namespace {

constexpr uint64_t kEpochOrderStream = 0x7b;  // low byte of the stream id; the epoch fills the rest

std::string option_error(const std::string& what) { return "token batching: " + what; }

// Returns `options` once they are valid, so the constructor checks them before using them.
const TokenBatchOptions& validated(const TokenBatchOptions& options) {
  if (options.max_length < 1 || options.max_length >= std::numeric_limits<int32_t>::max()) {
    throw UserError(
        option_error("max_length is " + std::to_string(options.max_length) +
                     "; set it to a positive number of tokens (the reference uses 256)"));
  }
  if (options.max_tokens_per_batch <= options.max_length) {
    throw UserError(
        option_error("max_tokens_per_batch " + std::to_string(options.max_tokens_per_batch) +
                     " is not above max_length " + std::to_string(options.max_length) +
                     ", so the longest bucket (limit max_length + 1) would take no pair; raise "
                     "max_tokens_per_batch or lower max_length"));
  }
  if (options.min_bucket_length < 1) {
    throw UserError(option_error("min_bucket_length is " +
                                 std::to_string(options.min_bucket_length) +
                                 "; set it to at least 1 (the reference uses 8)"));
  }
  if (!(options.bucket_growth >= 1.0) || !std::isfinite(options.bucket_growth)) {
    throw UserError(
        option_error("bucket_growth is " + std::to_string(options.bucket_growth) +
                     "; set it to a finite factor of at least 1 (the reference uses 1.1)"));
  }
  return options;
}

// utils/dataset.py _create_min_max_boundaries: the buckets' exclusive upper limits.
std::vector<int64_t> bucket_limits_for(const TokenBatchOptions& options) {
  std::vector<int64_t> limits;
  for (int64_t x = options.min_bucket_length; x < options.max_length;) {
    limits.push_back(x);
    const double grown = static_cast<double>(x) * options.bucket_growth;
    x = grown >= static_cast<double>(options.max_length)
            ? std::max(x + 1, options.max_length)
            : std::max(x + 1, static_cast<int64_t>(grown));
  }
  limits.push_back(options.max_length + 1);
  return limits;
}

}  // namespace

TokenBatcher::TokenBatcher(const std::vector<EncodedPair>& pairs, const TokenBatchOptions& options)
    : options_(validated(options)), kept_(pairs, options_.max_length, options_.policy) {
  bucket_limits_ = bucket_limits_for(options_);
  for (const int64_t limit : bucket_limits_) {
    bucket_batch_sizes_.push_back(options_.max_tokens_per_batch / limit);
  }
  for (int64_t k = 0; k < kept_.count(); ++k) {
    const int64_t length = std::max(kept_.source_length(k), kept_.target_length(k));
    const auto bucket = std::upper_bound(bucket_limits_.begin(), bucket_limits_.end(), length) -
                        bucket_limits_.begin();
    bucket_.push_back(static_cast<int32_t>(bucket));
  }
  if (kept_.count() == 0) {
    throw UserError(option_error(
        pairs.empty()
            ? std::string("there are no pairs to batch; the data files hold no examples")
            : "all " + std::to_string(pairs.size()) + " pairs are longer than max_length " +
                  std::to_string(options_.max_length) +
                  " on some side and the length policy is discard; raise max_length "
                  "or use truncate"));
  }
}

std::vector<std::vector<int64_t>> TokenBatcher::epoch_batches(uint64_t seed, int64_t epoch) const {
  MLH_ASSERT(epoch >= 0);
  const int64_t count = kept_pairs();
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t{0});
  keyed_shuffle(order, stream_key(seed, static_cast<uint64_t>(epoch) << 8 | kEpochOrderStream));

  std::vector<std::vector<int64_t>> batches;
  std::vector<std::vector<int64_t>> windows(bucket_limits_.size());
  for (const int64_t kept : order) {
    const auto bucket = static_cast<size_t>(bucket_[static_cast<size_t>(kept)]);
    std::vector<int64_t>& window = windows[bucket];
    window.push_back(kept);
    if (static_cast<int64_t>(window.size()) == bucket_batch_sizes_[bucket]) {
      batches.push_back(std::move(window));
      window.clear();
    }
  }
  for (std::vector<int64_t>& window : windows) {
    if (!window.empty()) batches.push_back(std::move(window));
  }
  return batches;
}

std::vector<std::vector<int64_t>> split_into_shards(const std::vector<int64_t>& batch,
                                                    int64_t shards) {
  MLH_ASSERT(shards >= 1);
  const auto count = static_cast<int64_t>(batch.size());
  std::vector<std::vector<int64_t>> parts(static_cast<size_t>(shards));
  for (int64_t part = 0; part < shards; ++part) {
    const auto [begin, end] = proportional_part(count, shards, part);
    parts[static_cast<size_t>(part)].assign(batch.begin() + begin, batch.begin() + end);
  }
  return parts;
}

}  // namespace mlh::wmt
