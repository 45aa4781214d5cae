// The CPU block cache (harness/cpu_block_cache.h) as LibTorch's CPU allocator: a freed large
// tensor's block comes back for the next tensor of the same size, other sizes and small tensors do
// not take it, the cache keeps a bounded number per size and a bounded total, and tensors read and
// write as ever.
#include "harness/cpu_block_cache.h"

#include <gtest/gtest.h>
#include <torch/torch.h>
#include <c10/core/CPUAllocator.h>

#include <vector>

namespace mlh {
namespace {

constexpr int64_t kLargeFloats = (int64_t{1} << 20) / 4 * 3;  // 3 MiB of floats

TEST(CpuBlockCache, AFreedLargeBlockServesTheNextTensorOfItsSize) {
  install_cpu_block_cache();
  ASSERT_TRUE(cpu_block_cache_installed());
  const void* first = nullptr;
  {
    const torch::Tensor t = torch::ones({kLargeFloats});
    first = t.data_ptr();
  }
  const CpuBlockCacheStats before = cpu_block_cache_stats();
  const torch::Tensor again = torch::full({kLargeFloats}, 2.0f);
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(cpu_block_cache_stats().reused, before.reused + 1);
  EXPECT_EQ(again.sum().item<double>(), 2.0 * static_cast<double>(kLargeFloats));
  // Another size does not take this size's blocks; a small tensor does not reach the cache.
  const torch::Tensor other = torch::zeros({kLargeFloats + 16});
  EXPECT_NE(other.data_ptr(), first);
  const int64_t reused = cpu_block_cache_stats().reused;
  { const torch::Tensor small = torch::ones({1000}); }
  { const torch::Tensor small = torch::ones({1000}); }
  EXPECT_EQ(cpu_block_cache_stats().reused, reused);
}

// oneDNN takes raw memory through raw_allocate / raw_deallocate, small and large.
TEST(CpuBlockCache, RawAllocationsOfEitherSizeGoBack) {
  install_cpu_block_cache();
  c10::Allocator* allocator = c10::GetCPUAllocator();
  for (const std::size_t bytes : {std::size_t{256}, std::size_t{3} << 20}) {
    void* raw = allocator->raw_allocate(bytes);
    ASSERT_NE(raw, nullptr);
    static_cast<char*>(raw)[bytes - 1] = 1;
    allocator->raw_deallocate(raw);
  }
  // A convolution through oneDNN, which allocates that way.
  const torch::Tensor y = torch::conv2d(torch::ones({2, 8, 64, 64}), torch::ones({8, 8, 3, 3}));
  EXPECT_EQ(y.sizes(), (torch::IntArrayRef{2, 8, 62, 62}));
}

TEST(CpuBlockCache, KeepsAtMostEightFreeBlocksOfASize) {
  install_cpu_block_cache();
  const int64_t floats = kLargeFloats + 1024;  // a size no other test uses
  {
    std::vector<torch::Tensor> many;
    for (int i = 0; i < 12; ++i) many.push_back(torch::empty({floats}));
  }
  const CpuBlockCacheStats after = cpu_block_cache_stats();
  int64_t held_of_this_size = 0;
  {
    std::vector<torch::Tensor> again;
    const int64_t reused = after.reused;
    for (int i = 0; i < 12; ++i) again.push_back(torch::empty({floats}));
    held_of_this_size = cpu_block_cache_stats().reused - reused;
  }
  EXPECT_EQ(held_of_this_size, 8);
}

// Sizes that change with the data (Mask R-CNN's images, its proposal counts) must not pile up: past
// 1 GiB in all, the blocks cached longest ago are freed.
TEST(CpuBlockCache, HoldsAtMostAGibibyteFreeingTheOldestFirst) {
  install_cpu_block_cache();
  const int64_t base = (int64_t{4} << 20) / 4 + 7777;  // ~4 MiB of floats; sizes no other test uses
  const int kSizes = 300;                            // ~1.2 GiB if all were kept
  for (int i = 0; i < kSizes; ++i) torch::empty({base + 1024 * i});
  EXPECT_LE(cpu_block_cache_stats().cached_bytes, int64_t{1} << 30);
  EXPECT_GT(cpu_block_cache_stats().cached_bytes, (int64_t{1} << 30) - (int64_t{8} << 20));
  const int64_t reused = cpu_block_cache_stats().reused;
  torch::empty({base});  // the first size's block went first
  EXPECT_EQ(cpu_block_cache_stats().reused, reused);
  torch::empty({base + 1024 * (kSizes - 1)});  // the last one is still there
  EXPECT_EQ(cpu_block_cache_stats().reused, reused + 1);
}

}  // namespace
}  // namespace mlh
