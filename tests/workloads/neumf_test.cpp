#include <gtest/gtest.h>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/ncf/neumf.h"

namespace mlh::ncf {
namespace {

TEST(NeuMF, ParameterCountAtMovieLens20mSizesMatchesTheReference) {
  NeuMF model(NeuMFOptions(138493, 26744));
  EXPECT_EQ(count_parameters(*model), 31832577);  // spec/workloads.md §7, the v0.5 log
}

TEST(NeuMF, LayerShapesFollowTheReference) {
  NeuMF model(NeuMFOptions(100, 50).mf_dim(8).mlp_layer_sizes({32, 16, 8}));
  EXPECT_EQ(model->mf_user->weight.sizes(), (std::vector<int64_t>{100, 8}));
  EXPECT_EQ(model->mlp_item->weight.sizes(), (std::vector<int64_t>{50, 16}));
  ASSERT_EQ(model->mlp->size(), 2u);
  EXPECT_EQ(model->final_layer->weight.sizes(), (std::vector<int64_t>{1, 16}));
}

TEST(NeuMF, ForwardGivesOneLogitPerPair) {
  NeuMF model(NeuMFOptions(100, 50).mf_dim(8).mlp_layer_sizes({32, 16, 8}));
  torch::Tensor logits = model->forward(torch::tensor({0, 5, 99}, torch::kLong), torch::tensor({1, 2, 49}, torch::kLong));
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
}

TEST(NeuMF, InitialisationFollowsTheReference) {
  torch::manual_seed(0);
  NeuMF model(NeuMFOptions(20000, 20000).mf_dim(64).mlp_layer_sizes({256, 256, 128, 64}));
  EXPECT_NEAR(model->mf_user->weight.std().item<double>(), 0.01, 0.0005);
  EXPECT_NEAR(model->mlp_item->weight.mean().item<double>(), 0.0, 0.0005);
  // Glorot-uniform 256x256: bound sqrt(6 / 512).
  auto* first = model->mlp->ptr(0)->as<torch::nn::Linear>();
  EXPECT_LE(first->weight.abs().max().item<double>(), std::sqrt(6.0 / 512) + 1e-6);
  EXPECT_GT(first->weight.abs().max().item<double>(), 0.9 * std::sqrt(6.0 / 512));
  // LeCun-uniform on the output: bound sqrt(3 / 128).
  EXPECT_LE(model->final_layer->weight.abs().max().item<double>(), std::sqrt(3.0 / 128) + 1e-6);
}

TEST(NeuMF, SameSeedSameWeights) {
  torch::manual_seed(5);
  NeuMF a(NeuMFOptions(30, 20).mf_dim(4).mlp_layer_sizes({8, 4}));
  torch::manual_seed(5);
  NeuMF b(NeuMFOptions(30, 20).mf_dim(4).mlp_layer_sizes({8, 4}));
  for (size_t i = 0; i < a->parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(a->parameters()[i], b->parameters()[i]));
}

TEST(NeuMF, BadLayerSizesAreUserErrors) {
  EXPECT_THROW(NeuMF(NeuMFOptions(10, 10).mlp_layer_sizes({7, 4})), UserError);
  EXPECT_THROW(NeuMF(NeuMFOptions(10, 10).mlp_layer_sizes({8})), UserError);
}

}  // namespace
}  // namespace mlh::ncf
