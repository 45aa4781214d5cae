// Adam with torch.optim.Adam's arithmetic (no amsgrad; each group's weight decay added to the
// gradient, as the Adam that MLPerf's PyTorch references use), behind the Optimizer interface
// (harness/optimizer.h), done in one pass over memory per parameter: each element of param, grad
// and both moments is read once and written once, in parallel chunks, by the vectorised loop of
// harness/adam_kernel.h. On CPU this is several times fewer memory passes than the op-by-op update,
// which is where time goes for models with large dense embeddings (NCF: 31.8M parameters). Float32
// CPU tensors; CUDA tensors go through LibTorch's fused CUDA Adam kernel (the arithmetic of
// torch.optim.Adam(fused=True)), one launch per group and dtype, which takes found_inf and keeps the
// step count on the device, so a skipped step reads nothing back; other tensors fall back to the
// op-by-op update. The moments have their parameter's strides (a channels-last parameter has
// channels-last moments), as the fused kernel needs param, grad and moments alike.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/optimizer.h"

namespace mlh {

struct AdamOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

class FusedAdam final : public Optimizer {
 public:
  FusedAdam(std::vector<ParameterGroup> groups, AdamOptions options);

  using Optimizer::step;
  void step(const torch::Tensor& found_inf) override;
  void set_learning_rate(double learning_rate) override { options_.learning_rate = learning_rate; }
  double learning_rate() const override { return options_.learning_rate; }
  std::string name() const override { return "adam"; }
  void save_state(TrainingState& state, const std::string& prefix) const override;
  void load_state(const TrainingState& state, const std::string& prefix) override;
  const AdamOptions& options() const { return options_; }
  int64_t step_count() const;  // steps taken; reads the device on CUDA
  // The moments of parameter `index` of group `group`.
  const torch::Tensor& exp_avg(size_t group, size_t index) const { return exp_avg_.at(group).at(index); }
  const torch::Tensor& exp_avg_sq(size_t group, size_t index) const { return exp_avg_sq_.at(group).at(index); }

 private:
  std::vector<ParameterGroup> groups_;
  std::vector<std::vector<torch::Tensor>> exp_avg_;
  std::vector<std::vector<torch::Tensor>> exp_avg_sq_;
  AdamOptions options_;
  int64_t step_count_ = 0;   // the CPU's
  torch::Tensor cuda_step_;  // float, on the GPU: the steps taken, for LibTorch's fused CUDA kernel
  void step_on_cuda(const torch::Tensor& found_inf);
};

std::unique_ptr<Optimizer> make_adam(std::vector<ParameterGroup> groups, AdamOptions options);

}  // namespace mlh
