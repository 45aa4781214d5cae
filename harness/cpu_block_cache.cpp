#include "harness/cpu_block_cache.h"

#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include "harness/libtorch_compat.h"

namespace mlh {
namespace {

constexpr std::size_t kAlignment = 64;  // LibTorch's CPU alignment

class CpuBlockCache final : public c10::Allocator {
 public:
  CpuBlockCache(std::size_t min_block_bytes, int blocks_per_size, std::size_t max_cached_bytes)
      : default_(c10::GetDefaultCPUAllocator()),
        min_block_bytes_(min_block_bytes),
        blocks_per_size_(blocks_per_size),
        max_cached_bytes_(max_cached_bytes) {}

  c10::DataPtr allocate(std::size_t bytes) MLH_LIBTORCH_ALLOCATE_CONST override {
    if (bytes < min_block_bytes_) return default_->allocate(bytes);
    void* block = take(bytes);
    if (block == nullptr) {
      if (posix_memalign(&block, kAlignment, bytes) != 0) throw std::bad_alloc();
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.allocated;
      sizes_[block] = bytes;
    }
    return {block, block, &give_back, c10::Device(c10::DeviceType::CPU)};
  }

  // raw_allocate / raw_deallocate (oneDNN's scratch memory): a block from either side.
  c10::DeleterFnPtr raw_deleter() const override { return &give_back; }

#if MLH_LIBTORCH_ALLOCATOR_HAS_COPY_DATA
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
#endif

  CpuBlockCacheStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  static void give_back(void* block);

  void* take(std::size_t bytes) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto free = free_.find(bytes);
    if (free == free_.end() || free->second.empty()) return nullptr;
    const auto entry = free->second.back();
    free->second.pop_back();
    void* block = entry->block;
    cached_order_.erase(entry);
    --stats_.cached_blocks;
    stats_.cached_bytes -= static_cast<int64_t>(bytes);
    ++stats_.reused;
    return block;
  }

  void keep_or_free(void* block) {
    std::vector<void*> released;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto known = sizes_.find(block);
      if (known == sizes_.end()) {  // a small block, the default allocator's (through raw_deallocate)
        lock.unlock();
        default_->raw_deleter()(block);
        return;
      }
      const std::size_t bytes = known->second;
      auto& free = free_[bytes];
      if (static_cast<int>(free.size()) >= blocks_per_size_ || bytes > max_cached_bytes_) {
        sizes_.erase(known);
        released.push_back(block);
      } else {
        free.push_back(cached_order_.insert(cached_order_.end(), Cached{bytes, block}));
        ++stats_.cached_blocks;
        stats_.cached_bytes += static_cast<int64_t>(bytes);
        // Over the cap: the blocks cached longest ago go (each the oldest of its size).
        while (static_cast<std::size_t>(stats_.cached_bytes) > max_cached_bytes_) {
          const Cached oldest = cached_order_.front();
          auto& same_size = free_[oldest.bytes];
          same_size.erase(same_size.begin());
          cached_order_.pop_front();
          --stats_.cached_blocks;
          stats_.cached_bytes -= static_cast<int64_t>(oldest.bytes);
          sizes_.erase(oldest.block);
          released.push_back(oldest.block);
        }
      }
    }
    for (void* unused : released) std::free(unused);
  }

  c10::Allocator* const default_;
  const std::size_t min_block_bytes_;
  const int blocks_per_size_;
  const std::size_t max_cached_bytes_;
  struct Cached {
    std::size_t bytes;
    void* block;
  };
  mutable std::mutex mutex_;
  mutable std::list<Cached> cached_order_;  // every free block held, oldest first
  // By exact size, oldest first: positions in cached_order_.
  mutable std::unordered_map<std::size_t, std::vector<std::list<Cached>::iterator>> free_;
  mutable std::unordered_map<void*, std::size_t> sizes_;              // every large block out or kept
  mutable CpuBlockCacheStats stats_;
};

CpuBlockCache* g_cache = nullptr;  // never destroyed: tensors may outlive static destruction

void CpuBlockCache::give_back(void* block) { g_cache->keep_or_free(block); }

}  // namespace

void install_cpu_block_cache(std::size_t min_block_bytes, int blocks_per_size, std::size_t max_cached_bytes) {
  static std::once_flag once;
  std::call_once(once, [&] {
    g_cache = new CpuBlockCache(min_block_bytes, blocks_per_size, max_cached_bytes);
    c10::SetCPUAllocator(g_cache, /*priority=*/1);
  });
}

bool cpu_block_cache_installed() { return g_cache != nullptr; }

CpuBlockCacheStats cpu_block_cache_stats() { return g_cache ? g_cache->stats() : CpuBlockCacheStats{}; }

}  // namespace mlh
