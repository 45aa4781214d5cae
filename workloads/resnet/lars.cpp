#include "workloads/resnet/lars.h"

#include <torch/torch.h>

#include "compliance/user_error.h"

namespace mlh::resnet {

Lars::Lars(std::vector<torch::Tensor> adapted, std::vector<torch::Tensor> decayed_only,
           std::vector<torch::Tensor> plain, LarsOptions options)
    : options_(options) {
  MLH_ASSERT(options_.momentum >= 0 && options_.weight_decay >= 0 && options_.eta > 0 && options_.epsilon >= 0);
  groups_.push_back({std::move(adapted), {}, true, true});
  groups_.push_back({std::move(decayed_only), {}, false, true});
  groups_.push_back({std::move(plain), {}, false, false});
  for (auto& group : groups_)
    for (const auto& p : group.parameters) group.velocity.push_back(torch::zeros_like(p));
}

void Lars::zero_grad() {
  for (auto& group : groups_)
    for (auto& p : group.parameters)
      if (p.grad().defined()) p.mutable_grad().zero_();
}

void Lars::step() {
  torch::NoGradGuard no_grad;
  const double wd = options_.weight_decay;
  for (auto& group : groups_) {
    for (size_t i = 0; i < group.parameters.size(); ++i) {
      torch::Tensor& w = group.parameters[i];
      const torch::Tensor& g = w.grad();
      if (!g.defined()) continue;
      double rate = options_.learning_rate;
      if (group.adapt) {
        // Two norms, one host read: the ratio decides a scalar step size.
        const torch::Tensor norms = torch::stack({w.norm(), g.norm()}).to(torch::kDouble).cpu();
        const double w_norm = norms[0].item<double>(), g_norm = norms[1].item<double>();
        if (w_norm > 0 && g_norm > 0) rate *= options_.eta * w_norm / (g_norm + wd * w_norm + options_.epsilon);
      }
      torch::Tensor& v = group.velocity[i];
      v.mul_(options_.momentum).add_(g);
      if (group.decay && wd != 0) v.add_(w, wd);
      w.add_(v, -rate);
    }
  }
}

}  // namespace mlh::resnet
