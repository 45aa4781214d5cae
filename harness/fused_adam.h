// Adam with torch.optim.Adam's arithmetic (no amsgrad; weight decay added to the gradient, as the
// Adam that MLPerf's PyTorch references use), done in one pass over memory per parameter: each element
// of param, grad and both moments is read once and written once, in parallel chunks. On CPU this is
// several times fewer memory passes than the op-by-op update, which is where time goes for models
// with large dense embeddings (NCF: 31.8M parameters). Float32 CPU tensors; other tensors fall back
// to the op-by-op update.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace mlh {

struct AdamOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  double weight_decay = 0.0;
};

class FusedAdam {
 public:
  FusedAdam(std::vector<torch::Tensor> parameters, AdamOptions options);

  // One update of every parameter that has a gradient.
  void step();
  // Drops the gradients (the next backward allocates fresh ones, so nothing needs zeroing).
  void zero_grad();

  void set_learning_rate(double learning_rate) { options_.learning_rate = learning_rate; }
  const AdamOptions& options() const { return options_; }
  int64_t step_count() const { return step_count_; }

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> exp_avg_;
  std::vector<torch::Tensor> exp_avg_sq_;
  AdamOptions options_;
  int64_t step_count_ = 0;
};

}  // namespace mlh
