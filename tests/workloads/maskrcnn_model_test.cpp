// Mask R-CNN's model (workloads/maskrcnn/): the backbone with its FPN. Parameter counts are
// torchvision's maskrcnn_resnet50_fpn(num_classes=81) (Debian's python3-torchvision 0.14.1), whose
// layers have the MLPerf reference's shapes: its ResNet-50 body has 23,508,032 parameters with
// BatchNorm affines (23,454,912 with FrozenBatchNorm2d, which holds them as buffers), its FPN 3,344,384;
// with frozen norm layers and the stem and layer1 frozen, 23,232,512 of the body's train. Here the
// frozen affines stay parameters (requires_grad false), so the totals are the first figures.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/lr_schedules.h"
#include "workloads/maskrcnn/backbone_fpn.h"

namespace mlh::maskrcnn {
namespace {

int64_t count(const std::vector<torch::Tensor>& tensors) {
  int64_t total = 0;
  for (const auto& t : tensors) total += t.numel();
  return total;
}

TEST(MaskRcnnBackbone, ParameterCountsAreTheReferenceModels) {
  ResNetFpn backbone(BackboneOptions{});
  EXPECT_EQ(count(backbone->body->parameters()), 23508032);
  int64_t fpn = 0;
  for (size_t level = 0; level < 4; ++level)
    fpn += count(backbone->inner_blocks[level]->parameters()) + count(backbone->layer_blocks[level]->parameters());
  EXPECT_EQ(fpn, 3344384);
  EXPECT_EQ(count(backbone->parameters()), 23508032 + 3344384);
  EXPECT_EQ(count(backbone->trainable_parameters()), 23232512 + 3344384);
}

TEST(MaskRcnnBackbone, StrideSitsOnTheFirstOneByOne) {
  ResNetFpn backbone(BackboneOptions{}.width(0.25));
  for (size_t stage = 1; stage < 4; ++stage) {
    auto* block = backbone->body->stages[stage]->children().front()->as<common::BottleneckImpl>();
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(block->conv1->options.stride()->at(0), 2);
    EXPECT_EQ(block->conv2->options.stride()->at(0), 1);
  }
}

TEST(MaskRcnnBackbone, GivesP2ToP6AtStrides4To64) {
  torch::manual_seed(0);
  ResNetFpn backbone(BackboneOptions{}.width(0.25).fpn_channels(32));
  const std::vector<torch::Tensor> p = backbone->forward(torch::randn({2, 3, 64, 96}));
  ASSERT_EQ(p.size(), 5u);
  for (size_t level = 0; level < 5; ++level) {
    const int64_t stride = fpn_strides()[level];
    EXPECT_EQ(p[level].sizes(), (std::vector<int64_t>{2, 32, 64 / stride, (96 + stride - 1) / stride})) << level;
  }
  // P6 is every other pixel of P5.
  EXPECT_TRUE(torch::equal(p[4], p[3].slice(2, 0, c10::nullopt, 2).slice(3, 0, c10::nullopt, 2)));
}

TEST(MaskRcnnBackbone, FrozenStagesAndNormLayersDoNotTrain) {
  ResNetFpn backbone(BackboneOptions{}.width(0.25));
  for (const auto& p : backbone->body->conv1->parameters()) EXPECT_FALSE(p.requires_grad());
  for (const auto& p : backbone->body->stages[0]->parameters()) EXPECT_FALSE(p.requires_grad());
  auto* block = backbone->body->stages[1]->children().front()->as<common::BottleneckImpl>();
  EXPECT_TRUE(block->conv1->weight.requires_grad());
  EXPECT_FALSE(block->bn1->weight.requires_grad());
  EXPECT_EQ(block->bn1->options.eps(), 0.0);

  // train() leaves the frozen norm layers in eval mode: the output and running statistics do not move.
  torch::manual_seed(1);
  const torch::Tensor images = torch::randn({1, 3, 64, 64});
  {
    torch::NoGradGuard no_grad;
    block->bn1->running_mean.fill_(0.5);
    block->bn1->running_var.fill_(4.0);
  }
  backbone->eval();
  const torch::Tensor in_eval = backbone->forward(images)[0];
  backbone->train();
  EXPECT_TRUE(backbone->is_training());
  EXPECT_FALSE(block->bn1->is_training());
  const torch::Tensor in_train = backbone->forward(images)[0];
  EXPECT_TRUE(torch::equal(in_eval, in_train));
  EXPECT_TRUE(torch::all(block->bn1->running_mean == 0.5).item<bool>());
}

TEST(MaskRcnnBackbone, BatchNormOptionTrainsItsNormLayers) {
  ResNetFpn backbone(BackboneOptions{}.width(0.25).norm(common::ResNetNorm::kBatchNorm).frozen_stages(0));
  backbone->train();
  auto* block = backbone->body->stages[1]->children().front()->as<common::BottleneckImpl>();
  EXPECT_TRUE(block->bn1->is_training());
  EXPECT_TRUE(block->bn1->weight.requires_grad());
  EXPECT_EQ(count(backbone->trainable_parameters()), count(backbone->parameters()));
}

TEST(MaskRcnnBackbone, RejectsOptionsOutOfRange) {
  EXPECT_THROW(ResNetFpn(BackboneOptions{}.layers({3, 4, 6})), UserError);
  EXPECT_THROW(ResNetFpn(BackboneOptions{}.fpn_channels(0)), UserError);
  EXPECT_THROW(ResNetFpn(BackboneOptions{}.frozen_stages(6)), UserError);
}

TEST(MaskRcnnSchedule, WarmsUpLinearlyFromAThirdAndDecaysAtTheScaledSteps) {
  const std::vector<int64_t> boundaries{60000, 80000};
  auto rate = [&](int64_t step) {
    return common::linear_warmup_multistep_learning_rate(step, 0.02, 500, 1.0 / 3.0, boundaries, 0.1);
  };
  // Our step 0 is the reference's iteration 1 (its scheduler steps before each iteration).
  EXPECT_DOUBLE_EQ(rate(0), 0.02 * ((1.0 / 3.0) * (1.0 - 1.0 / 500.0) + 1.0 / 500.0));
  EXPECT_DOUBLE_EQ(rate(249), 0.02 * ((1.0 / 3.0) * 0.5 + 0.5));
  EXPECT_DOUBLE_EQ(rate(499), 0.02);
  EXPECT_DOUBLE_EQ(rate(59998), 0.02);
  EXPECT_DOUBLE_EQ(rate(59999), 0.02 * 0.1);
  EXPECT_DOUBLE_EQ(rate(79999), 0.02 * 0.1 * 0.1);
}

}  // namespace
}  // namespace mlh::maskrcnn
