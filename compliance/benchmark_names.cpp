#include "compliance/benchmark_names.h"

#include <map>

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

}  // namespace mlh
