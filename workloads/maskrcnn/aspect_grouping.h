// Mask R-CNN's aspect-ratio grouping (spec/workloads.md §4; the reference's GroupedBatchSampler with
// DATALOADER.ASPECT_RATIO_GROUPING): every batch holds images of one group, landscape or the rest, so
// padding to the batch's largest sides wastes little.
//
// The reference groups each rank's own share of the epoch (after its DistributedSampler) into that
// rank's batches, so one step's images differ with the rank count, and ranks may step on different
// groups. Here the epoch's global order (the same on every rank) is grouped into global batches, each
// of one group, and each global batch is then cut into rank shares (proportional parts, as
// datasets/sharded_sampler.h cuts): a global batch holds the same images whatever the world size, as
// everywhere else in the harness. The order rules within the global order are the reference's.
#pragma once

#include <cstdint>
#include <vector>

namespace mlh::maskrcnn {

// The reference's group of an image (aspect ratio height / width quantised by bins [1]):
// 0 when height < width, 1 otherwise.
int aspect_group(int64_t width, int64_t height);

// Batches of `batch_size` items of `order` (image indices), each of one group (group_of[image]),
// as GroupedBatchSampler(drop_uneven=False) forms them: each group's items in their order in `order`,
// cut into runs of batch_size (a group's last run may be short); the batches sorted by where their
// first item stands in `order`. Every item of `order` lands in exactly one batch. Batches: at most
// ceil(n / batch_size) + (groups - 1).
std::vector<std::vector<int32_t>> group_batches(const std::vector<int32_t>& order,
                                                const std::vector<int32_t>& group_of, int64_t batch_size);

// Gradient shard `shard` of a global batch: part `shard` of `shards` proportional parts, in order (empty
// when the batch holds fewer images than there are shards).
std::vector<int32_t> shard_of(const std::vector<int32_t>& global_batch, int64_t shard, int64_t shards);

}  // namespace mlh::maskrcnn
