// LARS (You, Gitman, Ginsburg 2017), as MLPerf ResNet-50 submissions use it from v0.6 on and as the
// reference's --enable_lars path applies it (TF LARSOptimizer semantics). For an adapted parameter w
// with gradient g:
//   g' = g + weight_decay * w
//   trust = eta * |w| / (|g| + weight_decay * |w| + epsilon), or 1 when |w| or |g| is 0
//   v = momentum * v + g'          w -= learning_rate * trust * v
// Parameters in the other two groups take plain momentum SGD: `decayed_only` (the FC bias) adds
// weight decay without the trust ratio; `plain` (BN scale and shift) takes neither.
#pragma once

#include <vector>

#include <torch/types.h>

namespace mlh::resnet {

struct LarsOptions {
  double learning_rate = 0.1;
  double momentum = 0.9;
  double weight_decay = 1e-4;
  double eta = 0.001;      // the trust coefficient (TF's eeta)
  double epsilon = 0.0;    // MLPerf v0.7 rules fix it at 0
};

class Lars {
 public:
  Lars(std::vector<torch::Tensor> adapted, std::vector<torch::Tensor> decayed_only,
       std::vector<torch::Tensor> plain, LarsOptions options);

  void set_learning_rate(double learning_rate) { options_.learning_rate = learning_rate; }
  const LarsOptions& options() const { return options_; }
  void zero_grad();
  void step();

 private:
  struct Group {
    std::vector<torch::Tensor> parameters;
    std::vector<torch::Tensor> velocity;
    bool adapt = false;
    bool decay = false;
  };
  std::vector<Group> groups_;
  LarsOptions options_;
};

}  // namespace mlh::resnet
