// LibTorch's CPU allocator with a cache of large blocks by exact size, as CUDA's caching allocator
// keeps GPU memory: a tensor of 1 MiB or more that a training step frees goes back to the cache,
// and the next allocation of the same size takes that block, warm, at the same address. A step
// allocates the same sizes every time (NCF mini: 8.4, 16.8 and 33.5 MB blocks, thousands per
// epoch), so after the first step the large blocks never reach malloc again: no page faults for
// fresh memory, and no splitting of freed blocks by other sizes (the evaluation's, small objects),
// which otherwise fragments the heap and grows the resident memory epoch after epoch while the heap
// in use stays flat. Smaller blocks go to LibTorch's default CPU allocator.
//
// Each size keeps at most `blocks_per_size` free blocks (the most a step holds at once of one size
// is what it reuses), and all sizes together at most `max_cached_bytes`: past it, the blocks cached
// longest ago are freed. Without that bound a step whose sizes change with its data (Mask R-CNN's
// images and proposal counts) would keep blocks of thousands of sizes never asked for again (the
// mini grew to 7 GB). What the cache holds stays allocated, so it counts as heap in use. Contents of
// a reused block are whatever the last tensor left (as torch::empty promises nothing). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlh {

struct CpuBlockCacheStats {
  int64_t cached_blocks = 0;      // free blocks held now
  int64_t cached_bytes = 0;
  int64_t reused = 0;             // allocations served from the cache
  int64_t allocated = 0;          // large allocations that went to malloc
};

// Makes the cache LibTorch's CPU allocator (c10::SetCPUAllocator, at a priority above the default),
// once per process; later calls do nothing.
void install_cpu_block_cache(std::size_t min_block_bytes = std::size_t{1} << 20, int blocks_per_size = 8,
                             std::size_t max_cached_bytes = std::size_t{1} << 30);
bool cpu_block_cache_installed();
CpuBlockCacheStats cpu_block_cache_stats();

}  // namespace mlh
