#include "compliance/benchmark_names.h"

#include <map>
#include <set>

namespace mlh {

std::string canonical_benchmark(const std::string& logged) {
  static const std::map<std::string, std::string> aliases = {
      {"mask", "maskrcnn"},  // Google, v0.6
  };
  const auto found = aliases.find(logged);
  return found == aliases.end() ? logged : found->second;
}

std::string skipped_benchmark_reason(const std::string& benchmark) {
  static const std::map<std::string, std::string> reasons = {
      {"minigo", "reinforcement learning (Go), not one of mlharness's six workloads"},
      {"bert", "BERT (v0.7 and later), not one of mlharness's six workloads"},
      {"dlrm", "DLRM (v0.7 and later; replaced NCF), not one of mlharness's six workloads"},
      {"rnnt", "RNN-T (v1.0 and later), not one of mlharness's six workloads"},
      {"unet3d", "3D U-Net (v1.0 and later), not one of mlharness's six workloads"},
  };
  const auto found = reasons.find(benchmark);
  return found == reasons.end() ? "" : found->second;
}

bool is_mlharness_benchmark(const std::string& benchmark) {
  static const std::set<std::string> six = {"resnet", "ssd", "maskrcnn", "gnmt", "transformer", "ncf"};
  return six.count(benchmark) > 0;
}

bool is_mlperf_benchmark(const std::string& benchmark) {
  return is_mlharness_benchmark(benchmark) || !skipped_benchmark_reason(benchmark).empty();
}

}  // namespace mlh
