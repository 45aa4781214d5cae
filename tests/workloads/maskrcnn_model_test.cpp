// Mask R-CNN's model (workloads/maskrcnn/): the backbone with its FPN, the whole model's parameters,
// losses and detections, and the training step's optimizer groups. Parameter counts are
// torchvision's maskrcnn_resnet50_fpn(num_classes=81) (Debian's python3-torchvision 0.14.1), whose
// layers have the MLPerf reference's shapes: its ResNet-50 body has 23,508,032 parameters with
// BatchNorm affines (23,454,912 with FrozenBatchNorm2d, which holds them as buffers), its FPN 3,344,384;
// with frozen norm layers and the stem and layer1 frozen, 23,232,512 of the body's train. Here the
// frozen affines stay parameters (requires_grad false), so the totals are the first figures.
// The whole model: 44,400,693 parameters as torchvision counts it with BatchNorm (44,347,573 with
// FrozenBatchNorm2d's buffers left out), of which 44,125,173 train, torchvision's with
// trainable_backbone_layers=3 and the reference's (FREEZE_CONV_BODY_AT = 2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/lr_schedules.h"
#include "workloads/maskrcnn/backbone_fpn.h"
#include "workloads/maskrcnn/mask_rcnn.h"
#include "workloads/maskrcnn/maskrcnn_trainer.h"

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
  EXPECT_EQ(count(trainable_parameters(*backbone)), 23232512 + 3344384);
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

TEST(MaskRcnnBackbone, TorchvisionsStrideSitsOnTheThreeByThree) {
  ResNetFpn backbone(BackboneOptions{}.width(0.25).stride_in_1x1(false));
  for (size_t stage = 1; stage < 4; ++stage) {
    auto* block = backbone->body->stages[stage]->children().front()->as<common::BottleneckImpl>();
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(block->conv1->options.stride()->at(0), 1);
    EXPECT_EQ(block->conv2->options.stride()->at(0), 2);
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
  EXPECT_EQ(count(trainable_parameters(*backbone)), count(backbone->parameters()));
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

TEST(MaskRcnnModel, ParameterCountIsTheReferenceModels) {
  MaskRcnn model(MaskRcnnOptions{});
  EXPECT_EQ(count(model->parameters()), 44400693);
  EXPECT_EQ(count(trainable_parameters(*model)), 44125173);
  EXPECT_EQ(count(model->rpn->parameters()), 593935);
  EXPECT_EQ(count(model->box_head->parameters()), 13895680 + 415125);
  EXPECT_EQ(count(model->mask_head->parameters()), 2360320 + 283217);
}

// A small model: the same code at a quarter width, 32 FPN channels, smaller heads and counts.
MaskRcnnOptions small_options(int64_t classes) {
  MaskRcnnOptions o;
  o.num_classes = classes;
  o.backbone.width(0.25).fpn_channels(32).norm(common::ResNetNorm::kBatchNorm).frozen_stages(0);
  o.rpn.pre_nms_top_n_train = o.rpn.post_nms_top_n_train = 200;
  o.rpn.fpn_post_nms_top_n_train = 300;
  o.rpn.pre_nms_top_n_test = o.rpn.post_nms_top_n_test = o.rpn.fpn_post_nms_top_n_test = 100;
  o.box_head.representation_size = 64;
  o.box_head.sampler.batch_size_per_image = 64;
  o.mask_head.conv_layers = {32, 32};
  return o;
}

// Two images of different sizes in a 96 x 128 batch, each with a box and its rectangle polygon.
struct SmallBatch {
  torch::Tensor images = torch::zeros({2, 3, 96, 128});
  std::vector<ImageSize> sizes{{96, 128}, {80, 100}};
  std::vector<ImageTargets> targets;
  SmallBatch() {
    torch::manual_seed(3);
    images.slice(2, 0, 96).slice(3, 0, 128).normal_();
    images[1].slice(1, 80).zero_();
    images[1].slice(2, 100).zero_();
    auto object = [](float x1, float y1, float x2, float y2) {
      coco::Segmentation s;
      s.kind = coco::Segmentation::Kind::kPolygons;
      s.polygons = {{x1, y1, x2, y1, x2, y2, x1, y2}};
      return s;
    };
    targets.push_back({torch::tensor({{10.f, 12.f, 60.f, 70.f}, {70.f, 20.f, 120.f, 50.f}}), torch::tensor({1, 2}),
                       {object(10, 12, 60, 70), object(70, 20, 120, 50)}});
    targets.push_back({torch::tensor({{20.f, 10.f, 90.f, 60.f}}), torch::tensor({2}), {object(20, 10, 90, 60)}});
  }
};

TEST(MaskRcnnModel, LossesAreFiniteAndEveryTrainableParameterGetsAGradient) {
  torch::manual_seed(0);
  MaskRcnn model(small_options(3));
  model->train();
  SmallBatch batch;
  torch::Generator generator = sampling_generator(torch::kCPU, 7);
  const MaskRcnnLosses losses = model->losses(batch.images, batch.sizes, batch.targets, generator);
  for (const torch::Tensor& loss : {losses.rpn_objectness, losses.rpn_box_regression, losses.box_classification,
                                    losses.box_regression, losses.mask}) {
    ASSERT_EQ(loss.dim(), 0);
    EXPECT_TRUE(std::isfinite(loss.item<double>()));
    EXPECT_GE(loss.item<double>(), 0.0);
  }
  // At initialisation (logits of std 0.01) the objectness and class losses are about ln 2 and ln 3.
  EXPECT_NEAR(losses.rpn_objectness.item<double>(), std::log(2.0), 0.1);
  EXPECT_NEAR(losses.box_classification.item<double>(), std::log(3.0), 0.2);
  losses.total().backward();
  for (const auto& item : model->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    EXPECT_TRUE(item.value().grad().defined()) << item.key();
  }
}

TEST(MaskRcnnModel, SamplingDrawsFromTheGeneratorAlone) {
  torch::manual_seed(0);
  MaskRcnn model(small_options(3));
  model->train();
  SmallBatch batch;
  auto total = [&](uint64_t seed) {
    torch::Generator generator = sampling_generator(torch::kCPU, seed);
    torch::NoGradGuard no_grad;
    return model->losses(batch.images, batch.sizes, batch.targets, generator).total().item<double>();
  };
  torch::manual_seed(100);
  const double first = total(7);
  torch::manual_seed(200);  // the global generator does not matter
  EXPECT_EQ(total(7), first);
}

TEST(MaskRcnnModel, DetectsAtMostTheCapWithOneMaskPerDetection) {
  torch::manual_seed(0);
  MaskRcnnOptions options = small_options(3);
  options.box_head.detections_per_image = 5;
  options.box_head.score_threshold = 0.0;
  MaskRcnn model(options);
  model->eval();
  SmallBatch batch;
  torch::NoGradGuard no_grad;
  const std::vector<MaskedDetections> found = model->detect(batch.images, batch.sizes);
  ASSERT_EQ(found.size(), 2u);
  for (size_t i = 0; i < found.size(); ++i) {
    const MaskedDetections& d = found[i];
    const int64_t n = d.boxes_ltrb.size(0);
    EXPECT_GT(n, 0);
    EXPECT_LE(n, 5 + 2);  // the cap keeps ties at the last score
    EXPECT_EQ(d.masks.sizes(), (std::vector<int64_t>{n, 1, 28, 28}));
    EXPECT_TRUE(torch::all(d.masks >= 0).item<bool>() && torch::all(d.masks <= 1).item<bool>());
    EXPECT_TRUE(torch::all(d.labels >= 1).item<bool>() && torch::all(d.labels <= 2).item<bool>());
    EXPECT_TRUE(torch::all(d.boxes_ltrb.select(1, 2) <= batch.sizes[i].width - 1).item<bool>());
    EXPECT_TRUE(torch::all(d.boxes_ltrb.select(1, 3) <= batch.sizes[i].height - 1).item<bool>());
  }
}

TEST(MaskRcnnTrainer, SgdDoublesTheBiasRateWithoutDecayAndSkipsFrozenParameters) {
  MaskRcnn model(small_options(3));
  model->backbone->body->conv1->weight.requires_grad_(false);
  const std::unique_ptr<Optimizer> sgd = make_maskrcnn_sgd(model, MaskRcnnSgdOptions{});
  // One step at rate 0.02 on a gradient of ones, from zero velocity: weights move by 0.02 (1 + 1e-4 w),
  // biases by 0.04; a frozen weight does not move.
  std::vector<torch::Tensor> before;
  for (auto& p : model->parameters()) {
    before.push_back(p.detach().clone());
    if (p.requires_grad()) p.mutable_grad() = torch::ones_like(p);
  }
  sgd->step();
  size_t i = 0;
  for (const auto& item : model->named_parameters()) {
    const torch::Tensor moved = before[i++] - item.value().detach();
    const std::string& name = item.key();
    if (!item.value().requires_grad()) {
      EXPECT_TRUE(torch::equal(moved, torch::zeros_like(moved))) << name;
    } else if (name.size() > 4 && name.substr(name.size() - 4) == "bias") {
      EXPECT_TRUE(torch::allclose(moved, torch::full_like(moved, 0.04), 1e-6, 1e-7)) << name;
    } else {
      EXPECT_TRUE(torch::allclose(moved, 0.02 * (1 + 1e-4 * (moved * 0 + before[i - 1])), 1e-5, 1e-7)) << name;
    }
  }
}

}  // namespace
}  // namespace mlh::maskrcnn
