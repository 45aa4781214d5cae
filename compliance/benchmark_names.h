// The MLPerf training benchmarks under every name the published rounds logged them (v0.5-v0.7:
// submission_benchmark, or the benchmark field of :::MLPv0.5.0 lines), and which of them mlharness
// scores. Google's v0.6 Mask R-CNN logs name their benchmark "mask"; every other round says
// "maskrcnn". Benchmarks MLPerf ran that are not among mlharness's six (minigo, bert, dlrm, ...) are
// read, never scored: the reason says why.
#pragma once

#include <string>

namespace mlh {

// The benchmark's one name: "mask" -> "maskrcnn"; a name already canonical, or unknown, unchanged.
std::string canonical_benchmark(const std::string& logged);

// The six benchmarks mlharness trains and scores: resnet, ssd, maskrcnn, gnmt, transformer, ncf.
// Takes a canonical name.
bool is_mlharness_benchmark(const std::string& benchmark);

// One of those, or an MLPerf benchmark mlharness skips (skipped_benchmark_reason is not empty).
bool is_mlperf_benchmark(const std::string& benchmark);

// For an MLPerf benchmark outside the six mlharness trains and scores, why it is skipped
// ("reinforcement learning (Go), not one of mlharness's six workloads"); "" for the six (resnet, ssd,
// maskrcnn, gnmt, transformer, ncf) and for names MLPerf never used (scoring names those as unknown).
// Takes a canonical name.
std::string skipped_benchmark_reason(const std::string& benchmark);

}  // namespace mlh
