// LARS (You, Gitman, Ginsburg 2017), as MLPerf ResNet-50 submissions use it from v0.6 on and as the
// reference's --enable_lars path applies it (TF LARSOptimizer semantics). For a parameter w of a
// group with weight decay wd and gradient g:
//   trust = eta * |w| / (|g| + wd * |w| + epsilon) in a lars_adapted group (1 when |w| or |g| is 0),
//           1 otherwise
//   v = momentum * v + g + wd * w          w -= learning_rate * factor * trust * v
// ResNet's groups: conv and FC weights (decayed, adapted), the FC bias (decayed only), batch norm
// (neither). On the CPU the trust ratio is computed on the host in double; on a GPU, or when a step
// is given found_inf, on the device (lars_trust_ratio, the same double arithmetic) so that a step
// reads nothing back, and the update takes the ratio as a tensor.
#pragma once

#include <memory>
#include <vector>

#include "harness/optimizer.h"

namespace mlh {

struct LarsOptions {
  double learning_rate = 0.1;
  double momentum = 0.9;
  double eta = 0.001;      // the trust coefficient (TF's eeta)
  double epsilon = 0.0;    // MLPerf v0.7 rules fix it at 0
};

// The trust ratio of a lars_adapted parameter from its norms (0-dim tensors on any device, any
// floating type): eta * |w| / (|g| + wd * |w| + epsilon) in double, 1 when either norm is 0.
torch::Tensor lars_trust_ratio(const torch::Tensor& weight_norm, const torch::Tensor& grad_norm, double weight_decay,
                               const LarsOptions& options);

std::unique_ptr<Optimizer> make_lars(std::vector<ParameterGroup> groups, LarsOptions options);

}  // namespace mlh
