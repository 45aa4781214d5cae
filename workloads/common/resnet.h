// ResNet v1 (post-activation) as LibTorch modules, shared by three workloads (spec/workloads.md):
// the ResNet-50 v1.5 classifier (§2), SSD's ResNet-34 trunk (§3) and Mask R-CNN's ResNet-50 trunk (§4).
//
// Layout and names follow torchvision (conv1, bn1, layer1..layerN, fc; blocks conv1..3, bn1..3,
// downsample.0 / .1), so torchvision state dicts map one to one. ResNet-50 v1.5 at 1000 classes has
// 25,557,032 parameters (25,559,081 at 1001); ResNet-18 11,689,512; ResNet-34 21,797,672.
//
// Initialisation (reset_parameters), after the MLPerf reference resnet_model.py (T06/T07):
//  - conv kernels: ConvInit::kTruncatedNormalFanIn by default, TF 1.x
//    `tf.variance_scaling_initializer(distribution="truncated_normal")` with its defaults scale 1.0,
//    mode fan_in: a normal of stddev sqrt(1/fan_in)/0.8796 cut at two of those stddevs, so the drawn
//    weights have std sqrt(1/fan_in) (TF 1.x documents that std as the one after truncation). That is
//    what the reference code runs; its README's "He init" (scale 2) is the default of a different
//    function, tf.contrib.layers.variance_scaling_initializer (spec §2, §9.3). v0.7 rules leave
//    truncated-normal init free.
//    ConvInit::kKaimingNormalFanOut is torchvision's (normal, std sqrt(2/fan_out)).
//    ConvInit::kKaimingUniformFanIn is maskrcnn_benchmark's (kaiming_uniform_ with a = 1: uniform in
//    +-sqrt(3/fan_in)).
//  - BN: gamma 1, beta 0; with zero_init_residual the last BN gamma of every block is 0 (the reference
//    does not do this, so it is off by default).
//  - FC: weight N(0, 0.01), bias 0 (the reference from v0.6 on; v0.5 used Glorot-uniform).
// Every BatchNorm is a SyncBatchNorm2d (harness/sync_batchnorm.h): BatchNorm2d itself, bit for bit,
// until set_batchnorm_group gives it a group of ranks whose statistics it then shares.
// Padding is PyTorch's symmetric k/2 (the reference pads strided convs the same way; its SAME max-pool
// pads one pixel on the bottom/right only, ours on all sides as torchvision does).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "harness/sync_batchnorm.h"

namespace mlh::common {

enum class ResNetBlock { kBasic, kBottleneck };
enum class ConvInit { kTruncatedNormalFanIn, kKaimingNormalFanOut, kKaimingUniformFanIn };
// kBatchNorm: every norm layer is a (SyncBatchNorm2d) BatchNorm. kFrozenBatchNorm: the same layers held
// as the fixed affine weight * (x - running_mean) / sqrt(running_var) + bias, as Mask R-CNN's
// reference (maskrcnn_benchmark's FrozenBatchNorm2d: no epsilon): eps 0, always in eval mode whatever
// train() says, weight and bias with requires_grad false. Their values come from a checkpoint (the
// identity when trained from scratch). The names and state dict stay BatchNorm's.
enum class ResNetNorm { kBatchNorm, kFrozenBatchNorm };

struct ResNetBlockOptions {
  ResNetBlockOptions(int64_t in_channels, int64_t width) : in_channels_(in_channels), width_(width) {}
  TORCH_ARG(int64_t, in_channels);
  // Basic: both 3x3 convs have `width` channels. Bottleneck: 1x1 to width, 3x3, 1x1 to 4*width.
  TORCH_ARG(int64_t, width);
  TORCH_ARG(int64_t, stride) = 1;
  // Bottleneck only. false: the stride sits on the 3x3 conv (v1.5); true: on the first 1x1 (original
  // ResNet, Caffe2/Detectron's STRIDE_IN_1X1 used by Mask R-CNN).
  TORCH_ARG(bool, stride_in_1x1) = false;
};

// 3x3 -> BN -> ReLU -> 3x3 -> BN, + shortcut, ReLU. The shortcut is a projection (1x1 conv with the
// stride, then BN) when the stride is not 1 or the channel count changes, the identity otherwise.
class BasicBlockImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;
  explicit BasicBlockImpl(const ResNetBlockOptions& options);
  torch::Tensor forward(torch::Tensor x);

  ResNetBlockOptions options;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  SyncBatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Sequential downsample{nullptr};  // null for the identity shortcut
};
TORCH_MODULE(BasicBlock);

// 1x1 -> BN -> ReLU -> 3x3 -> BN -> ReLU -> 1x1 (4x) -> BN, + shortcut, ReLU; shortcut as BasicBlock's.
class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;
  explicit BottleneckImpl(const ResNetBlockOptions& options);
  torch::Tensor forward(torch::Tensor x);

  ResNetBlockOptions options;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  SyncBatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

struct ResNetOptions {
  // Sets block and layers for depth 18, 34 (basic; [2,2,2,2], [3,4,6,3]) or 50, 101, 152 (bottleneck;
  // [3,4,6,3], [3,4,23,3], [3,8,36,3]). Any other depth is a UserError. Override block/layers after
  // for another stage list.
  explicit ResNetOptions(int64_t depth = 50);
  TORCH_ARG(ResNetBlock, block);
  TORCH_ARG(std::vector<int64_t>, layers);  // blocks per stage, one or more stages
  // Stride of each stage's first block; empty means 1 for the first stage and 2 for the rest.
  // SSD's trunk is layers {3,4,6} with strides {1,2,1}.
  TORCH_ARG(std::vector<int64_t>, strides) = {};
  // 0: no FC; forward() then returns the pooled features [N, C].
  TORCH_ARG(int64_t, num_classes) = 1000;
  // Channel multiplier: the stem has max(1, round(64*width)) channels and stage i 2^i times that
  // (times 4 at a bottleneck's output).
  TORCH_ARG(double, width) = 1.0;
  TORCH_ARG(int64_t, in_channels) = 3;
  // Stem for tiny images (28x28): 3x3 stride-1 conv and no max-pool, instead of 7x7/2 + 3x3/2 max-pool.
  TORCH_ARG(bool, small_input) = false;
  TORCH_ARG(bool, stride_in_1x1) = false;  // see ResNetBlockOptions; bottleneck only
  TORCH_ARG(bool, zero_init_residual) = false;
  TORCH_ARG(ConvInit, conv_init) = ConvInit::kTruncatedNormalFanIn;
  TORCH_ARG(ResNetNorm, norm) = ResNetNorm::kBatchNorm;
};

class ResNetImpl : public torch::nn::Module {
 public:
  // Throws UserError for options no ResNet can have (empty or non-positive layers, strides of the wrong
  // length, width <= 0, ...). Initialises with LibTorch's default generator.
  explicit ResNetImpl(const ResNetOptions& options);

  // x: [N, in_channels, H, W], contiguous or channels-last. Returns logits [N, num_classes].
  torch::Tensor forward(torch::Tensor x);
  // The output of every stage (C2..C5 for four stages; strides 4, 8, 16, 32 with the full stem and
  // default strides), in the memory format of x.
  std::vector<torch::Tensor> features(torch::Tensor x);
  void reset_parameters();
  // Module::train, except that frozen norm layers (ResNetNorm::kFrozenBatchNorm) stay in eval mode.
  void train(bool on = true) override;

  int64_t stem_channels() const { return stem_channels_; }
  int64_t out_channels() const { return out_channels_; }  // channels of the last stage

  ResNetOptions options;
  torch::nn::Conv2d conv1{nullptr};
  SyncBatchNorm2d bn1{nullptr};
  std::vector<torch::nn::Sequential> stages;  // registered as layer1, layer2, ...
  torch::nn::Linear fc{nullptr};              // null when num_classes is 0

 private:
  int64_t stem_channels_ = 0;
  int64_t out_channels_ = 0;
};
TORCH_MODULE(ResNet);

// LibTorch's Module::to has no memory-format overload: this converts every 4-D parameter and buffer of
// `module` in place (e.g. to torch::MemoryFormat::ChannelsLast), keeping the Parameter objects, so an
// optimizer built before or after still holds them.
void convert_memory_format(torch::nn::Module& module, torch::MemoryFormat format);

}  // namespace mlh::common
