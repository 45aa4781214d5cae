#include "workloads/ncf/neumf.h"

#include <cmath>

#include "base/user_error.h"

namespace mlh::ncf {

NeuMFImpl::NeuMFImpl(const NeuMFOptions& options_) : options(options_) {
  const auto& layers = options.mlp_layer_sizes();
  if (layers.size() < 2 || layers[0] % 2 != 0)
    throw UserError("key 'mlp_layer_sizes' needs at least two sizes and an even first size");
  if (options.mf_dim() < 1) throw UserError("key 'mf_dim' must be positive");
  mf_user = register_module("mf_user", torch::nn::Embedding(options.num_users(), options.mf_dim()));
  mf_item = register_module("mf_item", torch::nn::Embedding(options.num_items(), options.mf_dim()));
  mlp_user = register_module("mlp_user", torch::nn::Embedding(options.num_users(), layers[0] / 2));
  mlp_item = register_module("mlp_item", torch::nn::Embedding(options.num_items(), layers[0] / 2));
  mlp = register_module("mlp", torch::nn::ModuleList());
  for (size_t i = 1; i < layers.size(); ++i) mlp->push_back(torch::nn::Linear(layers[i - 1], layers[i]));
  final_layer = register_module("final", torch::nn::Linear(options.mf_dim() + layers.back(), 1));
  reset_parameters();
}

void NeuMFImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (auto* table : {&mf_user, &mf_item, &mlp_user, &mlp_item}) (*table)->weight.normal_(0.0, 0.01);
  for (const auto& layer : *mlp) {
    auto* linear = layer->as<torch::nn::Linear>();
    linear->reset_parameters();  // PyTorch's default bias
    torch::nn::init::xavier_uniform_(linear->weight);
  }
  final_layer->reset_parameters();
  const double bound = std::sqrt(3.0 / static_cast<double>(final_layer->weight.size(1)));
  final_layer->weight.uniform_(-bound, bound);
}

torch::Tensor NeuMFImpl::forward(const torch::Tensor& user, const torch::Tensor& item) {
  torch::Tensor gmf = mf_user(user) * mf_item(item);
  torch::Tensor hidden = torch::cat({mlp_user(user), mlp_item(item)}, 1);
  for (const auto& layer : *mlp) hidden = torch::relu(layer->as<torch::nn::Linear>()->forward(hidden));
  return final_layer(torch::cat({gmf, hidden}, 1)).squeeze(1);
}

int64_t count_parameters(torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

}  // namespace mlh::ncf
