// SSD300 with a ResNet-34 backbone, the MLPerf v0.7 reference model (spec/workloads.md §3,
// `ssd300.py`, `base_model.py`), as a LibTorch module.
//
// - Backbone: torchvision's ResNet-34 (workloads/common/resnet.h, its names, so a torchvision state
//   dict loads one to one) cut after layer3 (conv4_x), whose first block has stride 1: a 38x38x256 map
//   for a 300x300 input.
// - Extra blocks, one per further map: 1x1 conv to `mid` channels + ReLU, then 3x3 conv to `out`
//   channels + ReLU, both with biases, no BN (v0.7's code). mid [256,256,128,128,128], out
//   [512,512,256,256,256]; the 3x3 conv has stride 2 and padding 1, or stride 1 and padding 0, as
//   extra_strides says ({2,2,2,1,1}: maps 19, 10, 5, 3, 1).
// - Heads: per map a 3x3 (pad 1) location conv to nd*4 channels and class conv to nd*num_classes,
//   nd = boxes_per_location[k] ([4,6,6,6,4,4]). Outputs are viewed as [N, 4, nd*H*W] and
//   [N, C, nd*H*W] and concatenated over the maps: box index outer, positions (row-major) inner, the
//   order of the default boxes (workloads/common/default_boxes.h).
// - Init: Xavier-uniform on every weight of more than one dimension in the extras and heads, PyTorch's
//   default biases; the backbone as torchvision initialises it (Kaiming normal, fan out) unless a
//   checkpoint replaces it.
// At 300x300 and 81 classes: 19,972,534 parameters (backbone 8,170,304, extras 3,574,400, heads
// 8,227,830), the spec's computed count. The mini config scales the input size and every width
// through the same code.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "workloads/common/resnet.h"
#include "workloads/common/resnet_checkpoint.h"

namespace mlh::ssd {

struct Ssd300Options {
  TORCH_ARG(int64_t, num_classes) = 81;  // with the background, label 0
  // Channel multiplier of the backbone, the extras and the heads' inputs (1.0 = the reference).
  TORCH_ARG(double, width) = 1.0;
  TORCH_ARG(int64_t, image_size) = 300;
  // One per extra block, 2 (pad 1) or 1 (pad 0); at most 5 blocks.
  TORCH_ARG(std::vector<int64_t>, extra_strides) = std::vector<int64_t>{2, 2, 2, 1, 1};
  // Default boxes per location on each map, backbone map first: one more entry than extra_strides.
  TORCH_ARG(std::vector<int64_t>, boxes_per_location) = std::vector<int64_t>{4, 6, 6, 6, 4, 4};
};

class Ssd300Impl : public torch::nn::Module {
 public:
  // Throws UserError for options no SSD can have: more than 5 extra blocks, a stride other than 1 or
  // 2, boxes_per_location of the wrong length, or an image size whose maps shrink below 1x1.
  explicit Ssd300Impl(const Ssd300Options& options);

  // images [N, 3, S, S] -> {locations [N, 4, D], class scores [N, C, D]} (D = default boxes).
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor images);

  // The side of each map for image_size, backbone first (38, 19, 10, 5, 3, 1 at 300).
  const std::vector<int64_t>& feature_sizes() const { return feature_sizes_; }
  int64_t num_default_boxes() const;  // sum of boxes_per_location[k] * feature_sizes[k]^2

  // The extras' and heads' Xavier-uniform weights (the backbone keeps its own init).
  void reset_head_parameters();

  Ssd300Options options;
  common::ResNet backbone{nullptr};
  std::vector<torch::nn::Sequential> extras;                   // registered as additional_blocks.<k>
  std::vector<torch::nn::Conv2d> location_heads, class_heads;  // loc.<k>, conf.<k>

 private:
  std::vector<int64_t> feature_sizes_;
};
TORCH_MODULE(Ssd300);

// The backbone's options: ResNet-34 stages 1-3 with strides {1, 2, 1}, no classifier, scaled by width.
common::ResNetOptions ssd_backbone_options(double width);

// Copies the backbone's tensors from a torchvision `resnet34` state dict saved as a plain dict with
// torch.save(dict(torchvision.models.resnet34(weights="IMAGENET1K_V1").state_dict()), path) (LibTorch
// cannot read the OrderedDict that state_dict() returns); layer4 and fc are ignored. Every backbone parameter and BN buffer must be there with its shape.
// Throws UserError naming the file and the first missing or mis-shaped key. Returns the tensors copied.
inline int64_t load_backbone_checkpoint(common::ResNet& backbone, const std::string& path) {
  return common::load_torchvision_resnet(backbone, path, "resnet34");
}

}  // namespace mlh::ssd
