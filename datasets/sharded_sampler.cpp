#include "datasets/sharded_sampler.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "base/user_error.h"

namespace mlh {
namespace {

uint64_t splitmix64_finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Unbiased integer in [0, bound) by rejection, so the shuffle depends only on mt19937_64's output,
// which the standard fixes (unlike std::uniform_int_distribution and std::shuffle).
uint64_t uniform_below(std::mt19937_64& generator, uint64_t bound) {
  const uint64_t rejection_threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t draw = generator();
    if (draw >= rejection_threshold) return draw % bound;
  }
}

}  // namespace

ShardedSampler::ShardedSampler(int64_t num_samples, int64_t global_batch_size, int rank,
                               int world_size, uint64_t seed)
    : num_samples_(num_samples),
      global_batch_size_(global_batch_size),
      rank_(rank),
      world_size_(world_size),
      seed_(seed) {
  if (num_samples <= 0 || num_samples > std::numeric_limits<int32_t>::max()) {
    throw UserError("sampler: num_samples is " + std::to_string(num_samples) +
                    "; the dataset must hold between 1 and 2^31-1 samples");
  }
  if (world_size <= 0) {
    throw UserError("sampler: world_size is " + std::to_string(world_size) +
                    "; launch at least one rank");
  }
  if (global_batch_size <= 0) {
    throw UserError("sampler: global_batch_size is " + std::to_string(global_batch_size) +
                    "; set a positive global_batch_size");
  }
  if (global_batch_size < world_size) {
    throw UserError("sampler: global_batch_size " + std::to_string(global_batch_size) +
                    " is smaller than the world size " + std::to_string(world_size) +
                    "; set global_batch_size to at least the number of ranks");
  }
  if (rank < 0 || rank >= world_size) {
    throw UserError("sampler: rank " + std::to_string(rank) + " is outside [0, " +
                    std::to_string(world_size) + "); check the launcher's rank assignment");
  }
  set_epoch(0);
}

void ShardedSampler::set_epoch(int64_t epoch) {
  const uint64_t epoch_seed = splitmix64_finalize(
      splitmix64_finalize(seed_) ^
      (static_cast<uint64_t>(epoch) * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
  std::mt19937_64 generator(epoch_seed);
  permutation_.resize(static_cast<size_t>(num_samples_));
  for (int64_t i = 0; i < num_samples_; ++i) permutation_[i] = static_cast<int32_t>(i);
  for (int64_t i = num_samples_ - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(uniform_below(generator, static_cast<uint64_t>(i) + 1));
    std::swap(permutation_[i], permutation_[j]);
  }
}

int64_t ShardedSampler::num_batches() const {
  return (num_samples_ + global_batch_size_ - 1) / global_batch_size_;
}

std::pair<int64_t, int64_t> proportional_part(int64_t count, int64_t parts, int64_t index) {
  MLH_ASSERT(parts > 0 && index >= 0 && index < parts);
  return {index * count / parts, (index + 1) * count / parts};
}

ShardedSampler::Slice ShardedSampler::slice(int64_t batch) const {
  MLH_ASSERT(batch >= 0 && batch < num_batches());
  const int64_t batch_begin = batch * global_batch_size_;
  const int64_t batch_size = std::min(global_batch_size_, num_samples_ - batch_begin);
  const auto [begin, end] = proportional_part(batch_size, world_size_, rank_);
  return Slice{batch_begin + begin, batch_begin + end, batch_size};
}

std::vector<ShardedSampler::Slice> ShardedSampler::local_shards(int64_t batch,
                                                                int64_t shards_per_batch) const {
  MLH_ASSERT(shards_per_batch % world_size_ == 0);
  const int64_t batch_begin = batch * global_batch_size_;
  const int64_t batch_size = std::min(global_batch_size_, num_samples_ - batch_begin);
  const int64_t per_rank = shards_per_batch / world_size_;
  std::vector<Slice> shards;
  for (int64_t k = rank_ * per_rank; k < (rank_ + 1) * per_rank; ++k) {
    const auto [begin, end] = proportional_part(batch_size, shards_per_batch, k);
    shards.push_back(Slice{batch_begin + begin, batch_begin + end, batch_size});
  }
  return shards;
}

ShardedSampler::EpochPlan ShardedSampler::epoch_plan(int64_t shards_per_batch) const {
  EpochPlan plan;
  for (int64_t b = 0; b < num_batches(); ++b) {
    plan.shards.push_back(local_shards(b, shards_per_batch));
    const std::vector<Slice>& shards = plan.shards.back();
    plan.indices.emplace_back(permutation_.data() + shards.front().begin, permutation_.data() + shards.back().end);
  }
  return plan;
}

std::vector<std::vector<int32_t>> part_in_batches(int64_t count, int64_t parts, int64_t index, int64_t batch) {
  MLH_ASSERT(batch >= 1);
  const auto [first, last] = proportional_part(count, parts, index);
  std::vector<std::vector<int32_t>> plan;
  for (int64_t begin = first; begin < last; begin += batch) {
    plan.emplace_back();
    for (int64_t i = begin; i < std::min(last, begin + batch); ++i) plan.back().push_back(static_cast<int32_t>(i));
  }
  return plan;
}

std::vector<std::vector<int32_t>> cycling_batches(int64_t pass, int64_t batches, int64_t batch, int64_t count) {
  MLH_ASSERT(count >= 1);
  std::vector<std::vector<int32_t>> plan(static_cast<size_t>(batches));
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < batch; ++i)
      plan[static_cast<size_t>(b)].push_back(static_cast<int32_t>((pass * batches * batch + b * batch + i) % count));
  return plan;
}

}  // namespace mlh
