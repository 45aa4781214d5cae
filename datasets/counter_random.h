// Counter-based random numbers (SplitMix64 over a mixed key): draw `index` of stream `stream` under
// `seed` is a pure function of the three, with no state. That is what lets ranks, loader threads and
// shards draw exactly the numbers one process would, in any order. Header-only: these are a few
// multiplies and every data pipeline calls them per sample.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mlh {

constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

inline uint64_t splitmix64_finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The key of one stream; draws of a stream are keyed_random(key, 0), keyed_random(key, 1), ...
inline uint64_t stream_key(uint64_t seed, uint64_t stream) {
  return splitmix64_finalize(splitmix64_finalize(seed + kGoldenGamma) ^
                             splitmix64_finalize(stream * kGoldenGamma + 0x632be59bd9b4e019ULL));
}

inline uint64_t keyed_random(uint64_t key, uint64_t index) {
  return splitmix64_finalize(key + (index + 1) * kGoldenGamma);
}

inline uint64_t counter_random(uint64_t seed, uint64_t stream, uint64_t index) {
  return keyed_random(stream_key(seed, stream), index);
}

// A uniform draw in [0, bound) from the stream `key`, starting at draw `draw` and advancing it past
// the draws used (rejection sampling, so unbiased).
inline uint64_t keyed_uniform_below(uint64_t key, uint64_t& draw, uint64_t bound) {
  const uint64_t rejection_threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t value = keyed_random(key, draw++);
    if (value >= rejection_threshold) return value % bound;
  }
}

// Fisher-Yates shuffle of `items` with the draws of the stream `key`.
template <class T>
void keyed_shuffle(std::vector<T>& items, uint64_t key) {
  uint64_t draw = 0;
  for (std::size_t i = items.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(keyed_uniform_below(key, draw, i));
    std::swap(items[i - 1], items[j]);
  }
}

// The top 53 bits of `bits` as a double in [0, 1).
inline double unit_interval(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace mlh
