#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/resnet.h"

namespace mlh::common {
namespace {

using Sizes = std::vector<int64_t>;

int64_t count_parameters(torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

int64_t stride_of(const torch::nn::Conv2d& conv) { return (*conv->options.stride())[0]; }

BottleneckImpl& bottleneck(ResNet& model, size_t stage, size_t index) {
  return *model->stages.at(stage)->ptr<BottleneckImpl>(index);
}

BasicBlockImpl& basic(ResNet& model, size_t stage, size_t index) {
  return *model->stages.at(stage)->ptr<BasicBlockImpl>(index);
}

// Building a full ResNet-50 takes about a second on one core, so the tests that only read it share one.
ResNet& resnet50() {
  static ResNet model = [] {
    torch::manual_seed(0);
    return ResNet(ResNetOptions(50));
  }();
  return model;
}

TEST(ResNet, ResNet50ParameterCountMatchesTheSpec) {
  EXPECT_EQ(count_parameters(*resnet50()), 25557032);  // spec/workloads.md §2
  ResNet r50_1001(ResNetOptions(50).num_classes(1001));
  EXPECT_EQ(count_parameters(*r50_1001), 25557032 + 2048 + 1);  // one more FC row and bias: 25,559,081
}

TEST(ResNet, OtherDepthsMatchTorchvisionParameterCounts) {
  ResNet r18(ResNetOptions(18));
  EXPECT_EQ(count_parameters(*r18), 11689512);
  ResNet r34(ResNetOptions(34));
  EXPECT_EQ(count_parameters(*r34), 21797672);
  // Deeper nets differ only in stage lengths (torchvision: 44,549,160 and 60,192,808 parameters).
  EXPECT_EQ(ResNetOptions(101).layers(), (Sizes{3, 4, 23, 3}));
  EXPECT_EQ(ResNetOptions(152).layers(), (Sizes{3, 8, 36, 3}));
  EXPECT_EQ(ResNetOptions(152).block(), ResNetBlock::kBottleneck);
}

TEST(ResNet, ResNet50At224GivesLogitsAndStride4To32Features) {
  ResNet& model = resnet50();
  torch::NoGradGuard no_grad;
  model->eval();
  torch::Tensor x = torch::randn({2, 3, 224, 224});
  torch::Tensor logits = model->forward(x);
  model->train();
  EXPECT_EQ(logits.sizes(), (Sizes{2, 1000}));
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());

  std::vector<torch::Tensor> c = model->features(x.narrow(0, 0, 1));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].sizes(), (Sizes{1, 256, 56, 56}));
  EXPECT_EQ(c[1].sizes(), (Sizes{1, 512, 28, 28}));
  EXPECT_EQ(c[2].sizes(), (Sizes{1, 1024, 14, 14}));
  EXPECT_EQ(c[3].sizes(), (Sizes{1, 2048, 7, 7}));
}

TEST(ResNet, NarrowSmallInputResNet50TrainsOnGrayscale28x28) {
  ResNet model(ResNetOptions(50).width(0.25).in_channels(1).small_input(true).num_classes(10));
  EXPECT_EQ(model->stem_channels(), 16);
  EXPECT_EQ((*model->conv1->options.kernel_size())[0], 3);
  EXPECT_EQ(stride_of(model->conv1), 1);
  torch::Tensor x = torch::randn({2, 1, 28, 28});
  std::vector<torch::Tensor> c = model->features(x);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].sizes(), (Sizes{2, 64, 28, 28}));
  EXPECT_EQ(c[3].sizes(), (Sizes{2, 512, 4, 4}));

  torch::Tensor logits = model->forward(x);
  EXPECT_EQ(logits.sizes(), (Sizes{2, 10}));
  torch::nn::functional::cross_entropy(logits, torch::tensor({3, 7}, torch::kLong)).backward();
  EXPECT_TRUE(model->conv1->weight.grad().defined());
  EXPECT_GT(model->conv1->weight.grad().abs().sum().item<double>(), 0.0);
}

TEST(ResNet, V15PutsTheStrideOnTheBottleneck3x3) {
  ResNet& model = resnet50();
  BottleneckImpl& first = bottleneck(model, 1, 0);  // first block of stage 2 (conv3_x)
  EXPECT_EQ(stride_of(first.conv1), 1);
  EXPECT_EQ(stride_of(first.conv2), 2);
  ASSERT_TRUE(first.downsample);
  EXPECT_EQ(stride_of(first.downsample->ptr<torch::nn::Conv2dImpl>(0)), 2);
  // Later blocks of the stage keep stride 1 and the identity shortcut.
  EXPECT_EQ(stride_of(bottleneck(model, 1, 1).conv2), 1);
  EXPECT_FALSE(bottleneck(model, 1, 1).downsample);
}

TEST(ResNet, StrideIn1x1MovesTheStrideToTheFirstConv) {
  ResNet model(ResNetOptions(50).width(0.125).stride_in_1x1(true));
  BottleneckImpl& first = bottleneck(model, 1, 0);
  EXPECT_EQ(stride_of(first.conv1), 2);
  EXPECT_EQ(stride_of(first.conv2), 1);
}

TEST(ResNet, ProjectionShortcutsOnlyWhereTheShapeChanges) {
  ResNet& r50 = resnet50();
  // Stage 1 of a bottleneck net goes 64 -> 256 at stride 1: projected, stride 1.
  ASSERT_TRUE(bottleneck(r50, 0, 0).downsample);
  EXPECT_EQ(stride_of(bottleneck(r50, 0, 0).downsample->ptr<torch::nn::Conv2dImpl>(0)), 1);
  EXPECT_FALSE(bottleneck(r50, 0, 1).downsample);

  ResNet r34(ResNetOptions(34));
  EXPECT_FALSE(basic(r34, 0, 0).downsample);  // 64 -> 64, stride 1
  ASSERT_TRUE(basic(r34, 1, 0).downsample);
  EXPECT_EQ(stride_of(basic(r34, 1, 0).conv1), 2);
}

TEST(ResNet, WidthMultiplierScalesEveryConv) {
  ResNet half(ResNetOptions(50).width(0.5));
  EXPECT_EQ(half->conv1->options.out_channels(), 32);
  EXPECT_EQ(bottleneck(half, 0, 0).conv1->options.out_channels(), 32);
  EXPECT_EQ(bottleneck(half, 0, 0).conv3->options.out_channels(), 128);
  EXPECT_EQ(bottleneck(half, 3, 2).conv2->options.out_channels(), 256);
  EXPECT_EQ(half->out_channels(), 1024);
  EXPECT_EQ(half->fc->options.in_features(), 1024);

  EXPECT_EQ(ResNet(ResNetOptions(50).width(0.3))->stem_channels(), 19);  // round(19.2)
  ResNet tiny(ResNetOptions(18).width(0.001));                          // at least one channel
  EXPECT_EQ(tiny->stem_channels(), 1);
  EXPECT_EQ(tiny->out_channels(), 8);
  EXPECT_EQ(tiny->forward(torch::randn({2, 3, 64, 64})).sizes(), (Sizes{2, 1000}));
}

TEST(ResNet, BadOptionsAreUserErrors) {
  EXPECT_THROW(ResNetOptions(42), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(50).width(0.0)), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(50).width(-1.0)), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(50).width(std::nan(""))), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(50).num_classes(-1)), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(50).in_channels(0)), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(18).layers({})), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(18).layers({2, 0})), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(18).strides({1, 2})), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(18).strides({1, 2, 0, 2})), UserError);
  EXPECT_THROW(ResNet(ResNetOptions(34).stride_in_1x1(true)), UserError);
}

TEST(ResNet, InitialisationFollowsTheReference) {
  ResNet& model = resnet50();
  // TF variance_scaling (scale 1, fan_in, truncated normal): std sqrt(1/fan_in), cut at 2/0.8796 of it.
  torch::Tensor w = bottleneck(model, 3, 0).conv2->weight;  // 512 x 512 x 3 x 3
  const double std = std::sqrt(1.0 / (512 * 9));
  EXPECT_NEAR(w.std().item<double>(), std, 0.01 * std);
  EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.01 * std);
  EXPECT_LE(w.abs().max().item<double>(), 2.0 * std / 0.87962566103423978 + 1e-7);
  EXPECT_GT(w.abs().max().item<double>(), 2.0 * std);
  // The stem: fan_in 3 * 7 * 7.
  EXPECT_NEAR(model->conv1->weight.std().item<double>(), std::sqrt(1.0 / 147), 0.05 * std::sqrt(1.0 / 147));

  BottleneckImpl& block = bottleneck(model, 2, 1);
  EXPECT_TRUE(torch::all(block.bn3->weight == 1).item<bool>());
  EXPECT_TRUE(torch::all(block.bn3->bias == 0).item<bool>());
  EXPECT_NEAR(model->fc->weight.std().item<double>(), 0.01, 0.0002);
  EXPECT_TRUE(torch::all(model->fc->bias == 0).item<bool>());
}

TEST(ResNet, OptionalInitialisations) {
  torch::manual_seed(0);
  ResNet zero(ResNetOptions(50).width(0.25).zero_init_residual(true));
  EXPECT_TRUE(torch::all(bottleneck(zero, 2, 1).bn3->weight == 0).item<bool>());
  EXPECT_TRUE(torch::all(bottleneck(zero, 2, 1).bn2->weight == 1).item<bool>());
  EXPECT_TRUE(torch::all(bottleneck(zero, 2, 0).downsample->ptr(1)->as<torch::nn::BatchNorm2d>()->weight == 1)
                  .item<bool>());
  ResNet basic_zero(ResNetOptions(18).zero_init_residual(true));
  EXPECT_TRUE(torch::all(basic(basic_zero, 1, 1).bn2->weight == 0).item<bool>());

  ResNet kaiming(ResNetOptions(50).width(0.25).conv_init(ConvInit::kKaimingNormalFanOut));
  const double std = std::sqrt(2.0 / (128 * 9));  // fan_out of the 128 -> 128 3x3
  EXPECT_NEAR(bottleneck(kaiming, 3, 0).conv2->weight.std().item<double>(), std, 0.01 * std);
}

TEST(ResNet, SameSeedSameWeights) {
  torch::manual_seed(5);
  ResNet a(ResNetOptions(18).width(0.25));
  torch::manual_seed(5);
  ResNet b(ResNetOptions(18).width(0.25));
  auto pa = a->parameters(), pb = b->parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i]));
}

TEST(ResNet, ParameterNamesFollowTorchvision) {
  auto named = resnet50()->named_parameters();
  for (const std::string name : {"conv1.weight", "bn1.weight", "layer1.0.conv1.weight", "layer1.0.downsample.0.weight",
                                 "layer1.0.downsample.1.bias", "layer4.2.bn3.bias", "fc.weight", "fc.bias"})
    EXPECT_TRUE(named.contains(name)) << name;
  EXPECT_TRUE(resnet50()->named_buffers().contains("layer3.5.bn2.running_mean"));
}

TEST(ResNet, ChannelsLastGivesTheSameResultsAndKeepsTheFormat) {
  torch::manual_seed(1);
  ResNet model(ResNetOptions(50).width(0.125).num_classes(10));
  model->eval();
  torch::NoGradGuard no_grad;
  torch::Tensor x = torch::randn({2, 3, 64, 64});
  torch::Tensor expected = model->forward(x);

  convert_memory_format(*model, torch::MemoryFormat::ChannelsLast);
  EXPECT_TRUE(model->conv1->weight.is_contiguous(torch::MemoryFormat::ChannelsLast));
  torch::Tensor x_cl = x.contiguous(torch::MemoryFormat::ChannelsLast);
  for (const auto& c : model->features(x_cl)) EXPECT_TRUE(c.is_contiguous(torch::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(torch::allclose(model->forward(x_cl), expected, 1e-4, 1e-5));
}

TEST(ResNet, BackboneWithoutHeadAndCustomStages) {
  // SSD's trunk (spec §3): ResNet-34 conv1..layer3, layer3 at stride 1, 38x38x256 for 300x300.
  ResNet ssd(ResNetOptions(34).layers({3, 4, 6}).strides({1, 2, 1}).num_classes(0));
  EXPECT_FALSE(ssd->fc);
  torch::NoGradGuard no_grad;
  ssd->eval();
  torch::Tensor x = torch::randn({1, 3, 300, 300});
  EXPECT_EQ(ssd->features(x).back().sizes(), (Sizes{1, 256, 38, 38}));
  EXPECT_EQ(ssd->forward(x).sizes(), (Sizes{1, 256}));
}

}  // namespace
}  // namespace mlh::common
