// Data-parallel gradient reduction: after backward, every rank's gradients are summed across the
// world in buckets of about `bucket_bytes`, each bucket one flat tensor and one collective. Workloads
// scale their loss by 1 / (samples in the global batch), so the sum is the global-batch gradient
// exactly, also for a short last batch split unevenly.
#pragma once

#include <cstdint>
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

}  // namespace mlh
