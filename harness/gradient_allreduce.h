// Data-parallel gradient reduction, as the training step (harness/train_step.h) uses it: after
// backward, every rank's gradients are summed across the world in buckets of about `bucket_bytes`,
// each bucket one flat tensor and one collective. The step scales the loss by 1 / (the global
// batch's samples), so the sum is the global-batch gradient exactly, also for a short last batch
// split unevenly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "harness/world.h"

namespace mlh {

class GradientAllReducer {
 public:
  GradientAllReducer(std::vector<torch::Tensor> parameters, const World& world,
                     int64_t bucket_bytes = int64_t{25} << 20);

  // Sums every parameter's gradient across ranks, in place. A no-op on a world of one.
  void allreduce_sum();
  // Makes every rank's parameters equal to rank 0's (after init).
  void broadcast_parameters();

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<std::vector<size_t>> buckets_;  // parameter indices per bucket
  const World& world_;
};

// Sums the gradients of a global batch cut into a power-of-two number of shards in one fixed order,
// a balanced pairwise tree over the shard index. Each rank adds its shards in index order; for a
// world size that divides the shard count its shards form whole subtrees, and on two ranks the
// all-reduce adds the two subtree sums, so the gradient is bitwise the same on one rank or two
// (and then so is the whole training run on CPU). Memory: log2(shards) gradient copies.
class PairwiseGradientSum {
 public:
  explicit PairwiseGradientSum(std::vector<torch::Tensor> parameters);
  // Takes the parameters' current gradients as the next shard's and clears them.
  void take_shard();
  // Writes the sum of every shard taken since the last call into the parameters' gradients.
  void store_sum();

 private:
  struct Partial {
    std::vector<torch::Tensor> grads;
    int level = 0;  // the partial sums 2^level shards
  };
  std::vector<torch::Tensor> parameters_;
  std::vector<Partial> stack_;
};

// The shard count a run cuts each global batch into. 0 means one shard per rank (the usual
// data-parallel step; results then depend on the rank count to rounding). Any other value must be a
// power of two and a multiple of world_size; then 1, 2, 4, ... ranks give the same sums. Throws
// UserError naming `key`.
int64_t resolve_gradient_shards(int64_t shards, int world_size, const std::string& key);
// resolve_gradient_shards(...) / world_size.
int64_t shards_per_rank(int64_t shards, int world_size, const std::string& key);

}  // namespace mlh
