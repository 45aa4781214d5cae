// Pieces the translation workloads (Transformer, GNMT) share: rank-independent dropout seeds, id
// batches as tensors, and the fixed split of evaluation batches over ranks.
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

// sources[begin, end) padded with 0 to the longest: int64 [end - begin, longest] on the CPU.
inline torch::Tensor padded_batch(const std::vector<const wmt::TokenIds*>& sources, size_t begin, size_t end) {
  size_t longest = 0;
  for (size_t i = begin; i < end; ++i) longest = std::max(longest, sources[i]->size());
  torch::Tensor batch = torch::zeros({static_cast<int64_t>(end - begin), static_cast<int64_t>(longest)}, torch::kLong);
  auto accessor = batch.accessor<int64_t, 2>();
  for (size_t i = begin; i < end; ++i)
    for (size_t t = 0; t < sources[i]->size(); ++t)
      accessor[static_cast<int64_t>(i - begin)][static_cast<int64_t>(t)] = (*sources[i])[t];
  return batch;
}

// The evaluation sentences a rank decodes: `order` cut into batches of `batch`, fixed for any rank
// count (so each sentence is decoded with the same padding and the score does not depend on the
// ranks); rank r takes batches r, r + ranks, ... Returns positions into `order`'s values.
inline std::vector<size_t> rank_eval_sentences(const std::vector<size_t>& order, int rank, int ranks, size_t batch) {
  std::vector<size_t> sentences;
  for (size_t first = static_cast<size_t>(rank) * batch; first < order.size(); first += static_cast<size_t>(ranks) * batch)
    for (size_t i = first; i < std::min(order.size(), first + batch); ++i) sentences.push_back(order[i]);
  return sentences;
}

}  // namespace mlh
