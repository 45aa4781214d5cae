// Mask R-CNN R50-FPN (spec/workloads.md §4) as the MLPerf v0.7 reference composes it
// (maskrcnn_benchmark's GeneralizedRCNN, CombinedROIHeads): the backbone with its FPN
// (backbone_fpn.h), the region proposal network (anchors.h, rpn.h) and the ROI heads (box_head.h,
// mask_head.h). One module, the parts under the reference's names: backbone, rpn, box_head, mask_head.
//
// Training (losses): features; RPN outputs, its losses and the proposals (from the outputs detached:
// the reference's proposals carry no gradient); proposals sampled against the ground truth (gt boxes
// added), pooled from P2..P5 and through the box head; the positive samples' 14 x 14 pools through the
// mask head, scored on the label's channel against the ground truth's polygons cropped to them.
// Inference (detect): the test-time proposals, the box head's per-class detections, then the mask
// head on the detected boxes; each detection's mask is its class's 28 x 28 probabilities.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/maskrcnn/backbone_fpn.h"
#include "workloads/maskrcnn/box_head.h"
#include "workloads/maskrcnn/image_targets.h"
#include "workloads/maskrcnn/mask_head.h"
#include "workloads/maskrcnn/rpn.h"

namespace mlh::maskrcnn {

struct MaskRcnnOptions {
  int64_t num_classes = 81;  // object classes + background; overrides the heads' own
  BackboneOptions backbone;  // its fpn_channels are the heads' in_channels
  RpnOptions rpn;
  BoxHeadOptions box_head;
  MaskHeadOptions mask_head;
};

// The five losses of one batch, each the reference's (means over that batch's samples).
struct MaskRcnnLosses {
  torch::Tensor rpn_objectness, rpn_box_regression, box_classification, box_regression, mask;
  torch::Tensor total() const {
    return rpn_objectness + rpn_box_regression + box_classification + box_regression + mask;
  }
};

// One image's detections, in the resized image's pixels (boxes inclusive ltrb).
struct MaskedDetections {
  torch::Tensor boxes_ltrb;  // [D, 4]
  torch::Tensor scores;      // [D]
  torch::Tensor labels;      // [D] int64, 1..num_classes-1
  torch::Tensor masks;       // [D, 1, M, M] probabilities of each detection's class
};

class MaskRcnnImpl : public torch::nn::Module {
 public:
  explicit MaskRcnnImpl(MaskRcnnOptions options);

  // images [N, 3, H, W] (H, W multiples of 32, zero beyond each image's size), one size and one
  // target per image. Sampling draws from `generator` (a CPU generator for a CPU model).
  MaskRcnnLosses losses(const torch::Tensor& images, const std::vector<ImageSize>& image_sizes,
                        const std::vector<ImageTargets>& targets, torch::Generator& generator);

  // Detections of each image (call in eval mode, under NoGradGuard).
  std::vector<MaskedDetections> detect(const torch::Tensor& images, const std::vector<ImageSize>& image_sizes);

  const MaskRcnnOptions& options() const { return options_; }

  ResNetFpn backbone{nullptr};
  RpnHead rpn{nullptr};
  BoxHead box_head{nullptr};
  MaskHead mask_head{nullptr};

 private:
  // The anchors of each level for the features' sizes (cached for the last sizes seen).
  const std::vector<torch::Tensor>& anchors_for(const std::vector<torch::Tensor>& features);

  MaskRcnnOptions options_;
  std::vector<std::array<int64_t, 2>> anchor_grid_sizes_;
  std::vector<torch::Tensor> anchors_;
};
TORCH_MODULE(MaskRcnn);

}  // namespace mlh::maskrcnn
