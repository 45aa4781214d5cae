// LARS (You, Gitman, Ginsburg 2017), as MLPerf ResNet-50 submissions use it from v0.6 on and as the
// reference's --enable_lars path applies it (TF LARSOptimizer semantics). For a parameter w of a
// group with weight decay wd and gradient g:
//   trust = eta * |w| / (|g| + wd * |w| + epsilon) in a lars_adapted group (1 when |w| or |g| is 0),
//           1 otherwise
//   v = momentum * v + g + wd * w          w -= learning_rate * factor * trust * v
// ResNet's groups: conv and FC weights (decayed, adapted), the FC bias (decayed only), batch norm
// (neither).
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

std::unique_ptr<Optimizer> make_lars(std::vector<ParameterGroup> groups, LarsOptions options);

}  // namespace mlh
