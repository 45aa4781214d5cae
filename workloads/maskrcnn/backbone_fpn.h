// Mask R-CNN's backbone (spec/workloads.md §4): the common ResNet-50 trunk (workloads/common/resnet.h)
// as the MLPerf v0.7 reference builds it (maskrcnn_benchmark's modeling/backbone/resnet.py and
// fpn.py, config e2e_mask_rcnn_R_50_FPN_1x.yaml), and the feature pyramid on top of it.
//
// - Trunk: bottleneck stages [3, 4, 6, 3], the stride on each stage's first 1x1 (STRIDE_IN_1X1, as the
//   reference's MSRA weights; stride_in_1x1(false) puts it on the 3x3, as torchvision's weights),
//   frozen BatchNorm (ResNetNorm::kFrozenBatchNorm) by default, and the stem and res2 (layer1) frozen:
//   their weights have requires_grad false (FREEZE_CONV_BODY_AT = 2). No classifier.
// - FPN: C2..C5 each through a 1x1 lateral conv (fpn_inner1..4) to `fpn_channels`; from the top down,
//   each level is its lateral plus the level above upsampled x2 (nearest); each sum through a 3x3
//   output conv (fpn_layer1..4) is P2..P5; P6 is P5 max-pooled with kernel 1, stride 2 (the RPN's
//   only). Convs have biases; kaiming-uniform(a = 1) weights, zero biases, as the reference's
//   conv_with_kaiming_uniform. No ReLU.
// The input's height and width must be multiples of 32 (the loader pads batches so), or the
// top-down sums would not line up.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/common/resnet.h"

namespace mlh::maskrcnn {

struct BackboneOptions {
  TORCH_ARG(double, width) = 1.0;                 // the trunk's channel multiplier (common::ResNetOptions)
  TORCH_ARG(std::vector<int64_t>, layers) = std::vector<int64_t>{3, 4, 6, 3};  // blocks per stage
  TORCH_ARG(int64_t, fpn_channels) = 256;
  TORCH_ARG(bool, stride_in_1x1) = true;  // the reference's; false: on the 3x3 (torchvision's resnet50)
  TORCH_ARG(common::ResNetNorm, norm) = common::ResNetNorm::kFrozenBatchNorm;
  // 0: nothing frozen; 1: the stem; 2: the stem and layer1 (the reference); k: the stem and layer1..k-1.
  TORCH_ARG(int64_t, frozen_stages) = 2;
};

class ResNetFpnImpl : public torch::nn::Module {
 public:
  // Throws UserError for options out of range (fewer or more than 4 stages, fpn_channels < 1,
  // frozen_stages outside [0, 5]).
  explicit ResNetFpnImpl(const BackboneOptions& options);

  // images [N, 3, H, W] (H, W multiples of 32) -> {P2, P3, P4, P5, P6}: [N, fpn_channels, H / s, W / s]
  // for s = 4, 8, 16, 32, 64.
  std::vector<torch::Tensor> forward(const torch::Tensor& images);

  BackboneOptions options;
  common::ResNet body{nullptr};  // torchvision's names: conv1, bn1, layer1..layer4
  std::vector<torch::nn::Conv2d> inner_blocks, layer_blocks;  // fpn_inner1..4, fpn_layer1..4 (C2 first)
};
TORCH_MODULE(ResNetFpn);

// The parameters of `module` that train (requires_grad): for the backbone, every one but the frozen
// stages' and the frozen norm layers'.
std::vector<torch::Tensor> trainable_parameters(torch::nn::Module& module);

// The feature strides of P2..P6.
inline const std::vector<int64_t>& fpn_strides() {
  static const std::vector<int64_t> strides{4, 8, 16, 32, 64};
  return strides;
}

}  // namespace mlh::maskrcnn
