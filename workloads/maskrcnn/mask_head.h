// Mask R-CNN's mask head (spec/workloads.md §4, ROI heads), as the MLPerf v0.7 reference's ROIMaskHead
// with MaskRCNNFPNFeatureExtractor and MaskRCNNC4Predictor (maskrcnn_benchmark's
// modeling/roi_heads/mask_head/), its box features not shared with the box head.
//
// - Features: each ROI pooled 14x14 from P2..P5 (multi_level_roi_align, sampling ratio 2), then
//   mask_fcn1..4: 3x3 convolutions (padding 1) of 256 channels, each followed by ReLU.
// - Predictor: conv5_mask, a 2x2 stride-2 transposed convolution to 256 channels + ReLU (14 -> 28), and
//   mask_fcn_logits, a 1x1 convolution to one 28x28 logit map a class.
// - Init: every weight Kaiming-normal (fan out, ReLU gain; for the transposed convolution PyTorch's
//   fan out of its [in, out, 2, 2] weight, as the reference), biases 0.
// At 256 channels and 81 classes: 2,360,320 parameters in mask_fcn1..4 and 283,217 in the predictor.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/maskrcnn/image_targets.h"

namespace mlh::maskrcnn {

struct MaskHeadOptions {
  int64_t num_classes = 81;  // with the background, class 0
  int64_t in_channels = 256;
  std::vector<int64_t> conv_layers{256, 256, 256, 256};  // mask_fcn1.. output channels; at least one
  int64_t pooler_resolution = 14;
  std::vector<double> pooler_scales{0.25, 0.125, 0.0625, 0.03125};
  int64_t sampling_ratio = 2;
  int64_t resolution = 28;  // = 2 * pooler_resolution: the transposed convolution doubles the side
};

class MaskHeadImpl : public torch::nn::Module {
 public:
  explicit MaskHeadImpl(const MaskHeadOptions& options = {});

  // features P2..P5 ([N, in_channels, H_l, W_l]), rois [K, 5] (batch index, ltrb; rois_from_boxes in
  // box_head.h) -> mask logits [K, C, resolution, resolution].
  torch::Tensor forward(const std::vector<torch::Tensor>& features, const torch::Tensor& rois);

  // The reference's initialisation (above); the constructor calls it.
  void reset_parameters();

  MaskHeadOptions options;
  std::vector<torch::nn::Conv2d> convs;  // registered as mask_fcn1, mask_fcn2, ...
  torch::nn::ConvTranspose2d conv5_mask{nullptr};
  torch::nn::Conv2d mask_fcn_logits{nullptr};
};
TORCH_MODULE(MaskHead);

// The reference's MaskRCNNLossComputation. mask_logits [P, C, M, M] of the positive ROIs, image after
// image in the order of positive_boxes [P_i, 4] (positive_proposals in box_head.h), positive_labels
// [P_i] (>= 1) and positive_matched_gt [P_i] (indices into targets[i].masks). Each ROI's target is its
// object's polygons cropped to its box and rasterised M x M (mask_targets); the loss is the binary
// cross entropy with logits of its label's channel, averaged over every pixel of every positive.
// No positive in the batch gives mask_logits.sum() * 0 (a zero that keeps the graph), as the reference.
torch::Tensor mask_head_loss(const torch::Tensor& mask_logits, const std::vector<torch::Tensor>& positive_boxes,
                             const std::vector<torch::Tensor>& positive_labels,
                             const std::vector<torch::Tensor>& positive_matched_gt,
                             const std::vector<ImageTargets>& targets);

// Inference (the reference's MaskPostProcessor before pasting): the sigmoid of each detection's own
// class channel. mask_logits [D, C, M, M], labels [D] (integers in [0, C)) -> [D, 1, M, M].
torch::Tensor mask_probabilities(const torch::Tensor& mask_logits, const torch::Tensor& labels);

}  // namespace mlh::maskrcnn
