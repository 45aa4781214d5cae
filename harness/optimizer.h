// The one optimizer interface every training step calls (harness/train_step.h), with the three the
// MLPerf references use behind it: SGD with momentum (optionally Nesterov), LARS (harness/lars.h) and
// Adam (harness/fused_adam.h). Parameters come in groups carrying the references' per-group rules:
// weight decay (ResNet: none on batch norm), a learning-rate factor (Mask R-CNN: biases at twice the
// rate), and whether LARS scales the group's step by its trust ratio. Gradients are the step's
// business, not the optimizer's: it reads them and never clears them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "harness/training_state.h"

namespace mlh {

struct ParameterGroup {
  std::vector<torch::Tensor> parameters;
  double weight_decay = 0;           // L2 added to the gradient: g + weight_decay * w
  double learning_rate_factor = 1;   // the group steps at learning_rate * learning_rate_factor
  bool lars_adapted = false;         // LARS only: scale the step by the layer's trust ratio
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update of every parameter that has a gradient. With `found_inf` (a float [1] tensor on the
  // parameters' device, DynamicLossScaler::found_inf) nonzero, nothing changes: not the parameters,
  // not the state. On a GPU the optimizer decides that on the device, without reading found_inf back.
  virtual void step(const torch::Tensor& found_inf) = 0;
  void step() { step(torch::Tensor()); }
  // The base rate; each group steps at this times its learning_rate_factor.
  virtual void set_learning_rate(double learning_rate) = 0;
  virtual double learning_rate() const = 0;
  // The MLPerf `opt_name`: "sgd", "lars" or "adam".
  virtual std::string name() const = 0;
  // Its state (momenta, moments, step count) as "<prefix>/..." for a checkpoint, and back into an
  // optimizer built over parameters of the same shapes (UserError otherwise).
  virtual void save_state(TrainingState& state, const std::string& prefix) const = 0;
  virtual void load_state(const TrainingState& state, const std::string& prefix) = 0;
};

// torch.optim.SGD's arithmetic, op for op as LibTorch's SGD: d = g + wd * w; v = momentum * v + d
// (v = d on a parameter's first step); w -= lr * (Nesterov ? d + momentum * v : v). On CUDA each
// group's tensors take one fused update (torch.optim.SGD(fused=True), libtorch_compat.h), whose
// velocity starts at zero (momentum * 0 + d is d); on the CPU one tensor at a time.
struct SgdOptions {
  double learning_rate = 0.1;
  double momentum = 0;
  bool nesterov = false;
};

std::unique_ptr<Optimizer> make_sgd(std::vector<ParameterGroup> groups, SgdOptions options);

// Drops the parameters' gradients: the next backward allocates fresh ones, so nothing is zeroed.
void drop_gradients(const std::vector<torch::Tensor>& parameters);

// Every parameter of the groups, in group order.
std::vector<torch::Tensor> parameters_of(const std::vector<ParameterGroup>& groups);

}  // namespace mlh
