// Pieces of training the translation workloads (Transformer, GNMT) share: rank-independent dropout
// seeds and id batches as tensors. Their evaluation: workloads/common/translation_eval.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "datasets/wmt/sentence_pair.h"
#include "datasets/wmt/token_batcher.h"

namespace mlh {

// A distinct, rank-independent seed for the dropout of one gradient shard of one step, so one rank
// or several draw the same masks for the same shard.
inline uint64_t shard_seed(uint64_t seed, int64_t step, int64_t shard) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(step) * 0xBF58476D1CE4E5B9ULL +
               static_cast<uint64_t>(shard) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD39ULL;
  return (x ^ (x >> 28)) & ((uint64_t{1} << 62) - 1);
}

// Padded ids -> an int64 tensor [rows, columns] on the CPU.
inline torch::Tensor to_tensor(const wmt::PaddedIds& ids) {
  return torch::from_blob(const_cast<int32_t*>(ids.ids.data()), {ids.rows, ids.columns}, torch::kInt)
      .to(torch::kLong);
}

}  // namespace mlh
