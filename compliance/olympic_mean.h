// MLPerf's olympic mean (result_summarizer._compute_olympic_average, training_rules "Benchmark
// Results"): sort the run times, drop `drop` fastest and `drop` slowest, average the rest. A run
// that did not converge (nullopt) counts as one of the dropped slowest; more of them than `drop`
// make the result invalid (nullopt), as do fewer than 2 * drop + 1 runs.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace mlh {

inline std::optional<double> olympic_mean(const std::vector<std::optional<double>>& times, int drop = 1) {
  std::vector<double> converged;
  for (const auto& t : times)
    if (t) converged.push_back(*t);
  const int failed = static_cast<int>(times.size() - converged.size());
  if (failed > drop || static_cast<int>(times.size()) < 2 * drop + 1) return std::nullopt;
  std::sort(converged.begin(), converged.end());
  const auto first = converged.begin() + drop;
  const auto last = converged.end() - (drop - failed);
  if (first >= last) return std::nullopt;
  double sum = 0;
  for (auto it = first; it != last; ++it) sum += *it;
  return sum / static_cast<double>(last - first);
}

}  // namespace mlh
