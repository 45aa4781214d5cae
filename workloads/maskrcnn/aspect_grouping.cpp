#include "workloads/maskrcnn/aspect_grouping.h"

#include "base/user_error.h"
#include "datasets/sharded_sampler.h"

namespace mlh::maskrcnn {

int aspect_group(int64_t width, int64_t height) {
  MLH_ASSERT(width >= 1 && height >= 1);
  return height < width ? 0 : 1;
}

std::vector<std::vector<int32_t>> group_batches(const std::vector<int32_t>& order,
                                                const std::vector<int32_t>& group_of, int64_t batch_size) {
  MLH_ASSERT(batch_size >= 1);
  // Walking `order`, a group's batch opens at its first item: batches open in the order of their
  // first items' positions, which is the reference's final sort.
  std::vector<std::vector<int32_t>> batches;
  std::vector<int64_t> open_batch;  // per group: index into batches, -1 when none is open
  for (const int32_t item : order) {
    MLH_ASSERT(item >= 0 && static_cast<size_t>(item) < group_of.size());
    const int32_t group = group_of[static_cast<size_t>(item)];
    MLH_ASSERT(group >= 0);
    if (static_cast<size_t>(group) >= open_batch.size()) open_batch.resize(static_cast<size_t>(group) + 1, -1);
    int64_t& open = open_batch[static_cast<size_t>(group)];
    if (open < 0) {
      open = static_cast<int64_t>(batches.size());
      batches.emplace_back().reserve(static_cast<size_t>(batch_size));
    }
    std::vector<int32_t>& batch = batches[static_cast<size_t>(open)];
    batch.push_back(item);
    if (static_cast<int64_t>(batch.size()) == batch_size) open = -1;
  }
  return batches;
}

std::vector<int32_t> shard_of(const std::vector<int32_t>& global_batch, int64_t shard, int64_t shards) {
  MLH_ASSERT(shards >= 1 && shard >= 0 && shard < shards);
  const auto [begin, end] = proportional_part(static_cast<int64_t>(global_batch.size()), shards, shard);
  return {global_batch.begin() + begin, global_batch.begin() + end};
}

}  // namespace mlh::maskrcnn
