// The epoch order every data-parallel workload draws from: one seeded permutation of [0, n) per epoch,
// the same on every rank, cut into global batches; each global batch is split into `world_size`
// contiguous, disjoint slices, rank r taking slice r. Cuts are proportional (part i of n in p parts
// starts at floor(i*n/p)), so a rank's slice is exactly the union of its gradient shards. Every index appears exactly once per epoch, and
// a global batch holds the same samples whatever the world size, which is what makes N ranks at
// batch B/N reproduce one rank at batch B.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace mlh {

// [begin, end) of part `index` of `count` items cut into `parts` contiguous parts.
std::pair<int64_t, int64_t> proportional_part(int64_t count, int64_t parts, int64_t index);

// A sharded evaluation's plan: part `index` of [0, count) in `parts` proportional parts (a rank's
// share), cut in order into batches of `batch` samples (the last may be short).
std::vector<std::vector<int32_t>> part_in_batches(int64_t count, int64_t parts, int64_t index, int64_t batch);

// A bench loader's plan for pass `pass` (from 0): `batches` batches of `batch` samples walking
// through [0, count) and around again, each pass going on where the last stopped.
std::vector<std::vector<int32_t>> cycling_batches(int64_t pass, int64_t batches, int64_t batch, int64_t count);

class ShardedSampler {
 public:
  // Throws UserError when global_batch_size < world_size or any size is not positive.
  ShardedSampler(int64_t num_samples, int64_t global_batch_size, int rank, int world_size,
                 uint64_t seed);

  // Draws epoch `epoch`'s permutation (deterministic in seed and epoch).
  void set_epoch(int64_t epoch);
  int64_t num_batches() const;  // ceil(num_samples / global_batch_size)
  // This rank's slice of global batch b: [begin, end) positions into the permutation.
  struct Slice {
    int64_t begin = 0;
    int64_t end = 0;
    int64_t global_size = 0;  // samples in the whole global batch (the last may be short)
  };
  Slice slice(int64_t batch) const;
  // This rank's shards of global batch b when the batch is cut into `shards_per_batch` parts
  // (a multiple of world_size): rank r gets parts [r*S/W, (r+1)*S/W), together its slice.
  std::vector<Slice> local_shards(int64_t batch, int64_t shards_per_batch) const;
  // This rank's whole epoch as a loader plan: for every global batch its local_shards, and the sample
  // indices of the rank's slice (the shards' samples, in shard order), batch by batch.
  struct EpochPlan {
    std::vector<std::vector<Slice>> shards;
    std::vector<std::vector<int32_t>> indices;
  };
  EpochPlan epoch_plan(int64_t shards_per_batch) const;
  // The sample indices of this rank's slice of batch b.
  const int32_t* indices(const Slice& s) const { return permutation_.data() + s.begin; }
  const std::vector<int32_t>& permutation() const { return permutation_; }

 private:
  int64_t num_samples_;
  int64_t global_batch_size_;
  int rank_;
  int world_size_;
  uint64_t seed_;
  std::vector<int32_t> permutation_;
};

}  // namespace mlh
