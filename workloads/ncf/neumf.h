// NeuMF, the MLPerf NCF model (spec/workloads.md §7, reference neumf.py): a GMF branch (user and item
// embeddings of mf_dim, multiplied elementwise) and an MLP branch (user and item embeddings of
// mlp_layer_sizes[0]/2 each, concatenated, then Linear+ReLU down the layer sizes), concatenated into
// one Linear to a logit. At MovieLens-20M sizes (138,493 users, 26,744 items, mf_dim 64, layers
// 256-256-128-64) it has 31,832,577 parameters.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace mlh::ncf {

struct NeuMFOptions {
  NeuMFOptions(int64_t num_users, int64_t num_items) : num_users_(num_users), num_items_(num_items) {}
  TORCH_ARG(int64_t, num_users);
  TORCH_ARG(int64_t, num_items);
  TORCH_ARG(int64_t, mf_dim) = 64;
  TORCH_ARG(std::vector<int64_t>, mlp_layer_sizes) = std::vector<int64_t>{256, 256, 128, 64};
};

class NeuMFImpl : public torch::nn::Module {
 public:
  explicit NeuMFImpl(const NeuMFOptions& options);

  // user, item: int64 [N]. Returns logits [N].
  torch::Tensor forward(const torch::Tensor& user, const torch::Tensor& item);
  // The reference initialisation: embeddings N(0, 0.01), MLP weights Glorot-uniform, the output
  // weight LeCun-uniform, biases as PyTorch's default. Draws from LibTorch's default generator.
  void reset_parameters();

  NeuMFOptions options;
  torch::nn::Embedding mf_user{nullptr}, mf_item{nullptr}, mlp_user{nullptr}, mlp_item{nullptr};
  torch::nn::ModuleList mlp{nullptr};
  torch::nn::Linear final_layer{nullptr};
};
TORCH_MODULE(NeuMF);

int64_t count_parameters(torch::nn::Module& module);

}  // namespace mlh::ncf
