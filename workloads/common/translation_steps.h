// Training as the translation workloads (Transformer, GNMT) share it: rank-independent dropout seeds,
// id batches as tensors, the epoch loop over batches of sentence pairs, and `mlharness bench`'s
// training step. Both drive a workload's trainer (workloads/transformer/transformer_trainer.h,
// workloads/gnmt/gnmt_trainer.h) through its one step, train_on. Their evaluation:
// workloads/common/translation_eval.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "harness/bench.h"
#include "harness/progress.h"
#include "harness/workload.h"
#include "harness/world.h"

#include "datasets/sharded_sampler.h"
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

// Source and target ids [rows, length] (int64, CPU) of one gradient shard; undefined: no pairs.
using PairShard = std::function<std::pair<torch::Tensor, torch::Tensor>(int64_t shard)>;

// One global batch as this rank trains on it, what a translation trainer's train_on takes.
struct TranslationBatch {
  int64_t shards = 1;        // this rank's gradient shards
  int64_t loss_divisor = 1;  // the global batch's predicted target tokens (Transformer) or pairs (GNMT)
  PairShard shard;           // shard k (0 <= k < shards) -> its ids, seeding its dropout where training does
};

// A batch of fixed ids, source and target [rows, length], cut into `shards` contiguous parts
// (proportional_part); the ids stay where they are. Bench's synthetic batch.
inline TranslationBatch fixed_translation_batch(const torch::Tensor& source, const torch::Tensor& target,
                                                int64_t shards, int64_t loss_divisor) {
  TranslationBatch batch;
  batch.shards = shards;
  batch.loss_divisor = loss_divisor;
  batch.shard = [source, target, shards](int64_t k) {
    const auto [begin, end] = proportional_part(source.size(0), shards, k);
    if (begin == end) return std::pair<torch::Tensor, torch::Tensor>();
    return std::make_pair(source.narrow(0, begin, end - begin), target.narrow(0, begin, end - begin));
  };
  return batch;
}

// What differs between the translation workloads' epochs.
struct TranslationEpoch {
  uint64_t seed = 0;
  int64_t epoch = 1;
  int64_t gradient_shards = 1;      // per global batch, all ranks
  int64_t unpredicted_tokens = 0;   // target tokens fed but not predicted (GNMT's BOS: 1)
  bool loss_per_sentence = false;   // the summed loss over the batch's sentences (GNMT), else its tokens
  int64_t samples = 0;              // sentence pairs in an epoch, for the stats
};

// One epoch: every global batch of kept pairs from `batcher` (a wmt::TokenBatcher or
// SentenceBatcher) at learning_rate(step), cut into gradient shards (wmt::split_into_shards; rank r
// trains shards r * per_rank ... (r + 1) * per_rank - 1), each shard's dropout seeded from (seed,
// step, shard) so any rank count draws the same masks, through
// trainer.train_on(TranslationBatch). `step` counts the run's steps. The mean loss is per predicted
// target token.
template <class Batcher, class Trainer, class LearningRate>
TrainStats train_translation_epoch(const TranslationEpoch& e, const World& world, const Batcher& batcher,
                                   Trainer& trainer, const LearningRate& learning_rate, int64_t& step,
                                   Progress& progress) {
  trainer.model()->train();
  const int64_t per_rank = e.gradient_shards / world.size();
  const auto predicted = [&](int64_t kept) { return batcher.target_length(kept) - e.unpredicted_tokens; };
  int64_t epoch_tokens = 0;
  for (const std::vector<int64_t>& batch : batcher.epoch_batches(e.seed, e.epoch)) {
    int64_t global_tokens = 0;
    for (int64_t kept : batch) global_tokens += predicted(kept);
    epoch_tokens += global_tokens;
    const std::vector<std::vector<int64_t>> shards = wmt::split_into_shards(batch, e.gradient_shards);
    trainer.step().set_learning_rate(learning_rate(step));
    int64_t local_tokens = 0;
    const int64_t divisor = e.loss_per_sentence ? static_cast<int64_t>(batch.size()) : global_tokens;
    TranslationBatch local{per_rank, divisor, [&](int64_t k) {
      const int64_t shard = world.rank() * per_rank + k;
      const std::vector<int64_t>& pairs = shards[static_cast<size_t>(shard)];
      if (pairs.empty()) return std::pair<torch::Tensor, torch::Tensor>();
      for (int64_t kept : pairs) local_tokens += predicted(kept);
      torch::manual_seed(shard_seed(e.seed, step, shard));
      return std::make_pair(to_tensor(batcher.padded_sources(pairs)), to_tensor(batcher.padded_targets(pairs)));
    }};
    const torch::Tensor loss = trainer.train_on(local);
    ++step;
    progress.step(static_cast<int64_t>(batch.size()), loss / std::max<int64_t>(local_tokens, 1));
  }
  return trainer.step().take_epoch_stats(e.samples, static_cast<double>(std::max<int64_t>(epoch_tokens, 1)));
}

}  // namespace mlh
