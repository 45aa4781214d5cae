// Data-parallel gradient reduction, as the training step (harness/train_step.h) uses it: every rank's
// gradients are summed across the world in buckets of about `bucket_bytes`, each bucket one flat
// tensor and one collective. The step scales the loss by 1 / (the global batch's samples), so the
// sum is the global-batch gradient exactly, also for a short last batch split unevenly.
//
// Buckets hold the parameters in reverse order, the order backward usually produces their gradients.
// When a rank's step is one backward pass (one gradient shard per rank) and the communicator works on
// the parameters' device (NCCL on GPUs, MPI on CPUs), reduce_during_next_backward() makes every
// gradient a view of its bucket's flat tensor (as PyTorch DDP's gradient_as_bucket_view: backward
// accumulates into the bucket, and nothing is copied in or out) and arms hooks on the gradient
// accumulators: a bucket's collective starts once backward has produced its last gradient, while
// backward goes on with the layers below (NCCL: on its own stream, which the compute stream waits
// for only in allreduce_sum()). Buckets start in index order on every rank: a complete bucket waits
// for the ones before it, and allreduce_sum() starts the rest, so a rank whose backward produced
// gradients in another order, left some out, or did not run at all (no samples this step) meets its
// peers' collectives in the same order. The sums are the same either way: each element is the same
// sum over ranks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "harness/world.h"

namespace torch::autograd {
struct Node;
}

namespace mlh {

// Parameter indices per bucket: from the last parameter to the first, a new bucket whenever the
// next parameter would take the bucket past `bucket_bytes` (a parameter larger than that is a bucket
// of its own).
std::vector<std::vector<size_t>> plan_gradient_buckets(const std::vector<int64_t>& parameter_bytes,
                                                       int64_t bucket_bytes);

class GradientAllReducer {
 public:
  GradientAllReducer(std::vector<torch::Tensor> parameters, const World& world,
                     int64_t bucket_bytes = int64_t{25} << 20);
  ~GradientAllReducer();
  GradientAllReducer(const GradientAllReducer&) = delete;
  GradientAllReducer& operator=(const GradientAllReducer&) = delete;

  // True when reduce_during_next_backward() overlaps: more than one rank, and the communicator
  // works on the parameters' device.
  bool can_overlap() const { return can_overlap_; }
  // Arms the hooks for the next backward pass, whose gradients must be this rank's whole gradient
  // (one shard): every gradient becomes a zeroed view of its bucket (whatever it was before). A
  // no-op when it cannot overlap.
  void reduce_during_next_backward();
  // Sums every parameter's gradient across ranks, in place: after an armed backward, the buckets the
  // hooks have not started (gradients backward did not produce count as zeros), and the gradients
  // stay views of the buckets; else bucket by bucket through a flat copy. A no-op on a world of one.
  void allreduce_sum();
  // Makes every rank's parameters equal to rank 0's (after init).
  void broadcast_parameters();

  std::vector<std::vector<size_t>> buckets() const;  // parameter indices, in reduction order
  // Of the last allreduce_sum: buckets whose collective started inside backward.
  int64_t buckets_reduced_during_backward() const { return reduced_during_backward_; }

 private:
  struct State;
  std::vector<torch::Tensor> parameters_;
  const World& world_;
  std::shared_ptr<State> state_;  // shared with the hooks, which hold it weakly
  std::vector<std::shared_ptr<torch::autograd::Node>> gradient_accumulators_;  // hold the hooks
  bool can_overlap_ = false;
  int64_t reduced_during_backward_ = 0;
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
