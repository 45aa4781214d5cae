// Mask R-CNN's box head (spec/workloads.md §4, ROI heads), as the MLPerf v0.7 reference's ROIBoxHead
// with FPN2MLPFeatureExtractor and FPNPredictor (maskrcnn_benchmark's modeling/roi_heads/box_head/).
//
// - Features: each ROI pooled 7x7 from P2..P5 (multi_level_roi_align, sampling ratio 2), flattened
//   (channel, row, column), then fc6 and fc7 of 1024 with ReLU. fc6/fc7 weights are Kaiming-uniform
//   with a = 1 (the reference's make_fc), biases 0.
// - Predictor: cls_score (class logits, weights normal std 0.01) and bbox_pred (class-specific codes,
//   4 a class, normal std 0.001), biases 0. At 256 x 7 x 7 inputs and 81 classes: 13,895,680 parameters
//   in fc6/fc7 and 415,125 in the predictor.
// - Training: sample_proposals picks the ROIs and their targets, box_head_loss gives the two losses.
// - Inference: detect_boxes turns the outputs into each image's detections.
// Boxes are ltrb in the resized image's pixels, inclusive (image_targets.h).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/common/balanced_sampler.h"
#include "workloads/common/box_coder.h"
#include "workloads/common/proposal_matcher.h"
#include "workloads/maskrcnn/image_targets.h"

namespace mlh::maskrcnn {

struct BoxHeadOptions {
  int64_t num_classes = 81;  // with the background, class 0
  int64_t in_channels = 256;
  int64_t representation_size = 1024;
  int64_t pooler_resolution = 7;
  std::vector<double> pooler_scales{0.25, 0.125, 0.0625, 0.03125};
  int64_t sampling_ratio = 2;
  common::ProposalMatcherOptions matcher = common::kRoiHeadsMatcherOptions;
  common::BalancedSamplerOptions sampler = common::kRoiHeadsSamplerOptions;
  common::BoxCoderWeights coder_weights = common::kRoiBoxCoderWeights;
  double score_threshold = 0.05;
  double nms_threshold = 0.5;
  int64_t detections_per_image = 100;  // <= 0: no cap
};

struct BoxHeadOutputs {
  torch::Tensor class_logits;  // [K, C]
  torch::Tensor box_codes;     // [K, 4C], class c's codes in columns 4c..4c+3
};

class BoxHeadImpl : public torch::nn::Module {
 public:
  explicit BoxHeadImpl(const BoxHeadOptions& options = {});

  // features P2..P5 ([N, in_channels, H_l, W_l], one a scale of options.pooler_scales), rois [K, 5]
  // (batch index, ltrb; rois_from_boxes). K = 0 gives [0, C] and [0, 4C].
  BoxHeadOutputs forward(const std::vector<torch::Tensor>& features, const torch::Tensor& rois);

  // The reference's initialisation (above); the constructor calls it.
  void reset_parameters();

  BoxHeadOptions options;
  torch::nn::Linear fc6{nullptr}, fc7{nullptr}, cls_score{nullptr}, bbox_pred{nullptr};
};
TORCH_MODULE(BoxHead);

// The ROIs of per-image boxes [B_i, 4]: [sum B_i, 5], image i's rows (i, ltrb) in order, in the boxes'
// dtype and on their device (the reference's Pooler.convert_to_roi_format). At least one image.
torch::Tensor rois_from_boxes(const std::vector<torch::Tensor>& boxes_per_image);

// The ROIs chosen for the losses, per image, in the order of the proposals they come from (the
// image's proposals, then its ground-truth boxes).
struct SampledProposals {
  std::vector<torch::Tensor> boxes_ltrb;          // [S_i, 4], detached
  std::vector<torch::Tensor> labels;              // [S_i] int64: the matched class, 0 = background
  std::vector<torch::Tensor> regression_targets;  // [S_i, 4]: the matched box's codes (any for background)
  std::vector<torch::Tensor> matched_gt;          // [S_i] int64: index into the image's targets for
                                                  // positives, common::kBelowLowThreshold for background
};

// The reference's training-time selection (RPNPostProcessor.add_gt_proposals, then
// FastRCNNLossComputation.subsample), per image:
// - the ground-truth boxes are appended after the proposals [P_i, 4] (detached), so every object has a
//   candidate of IoU 1;
// - each candidate is matched (box_iou with inclusive pixels, options.matcher: >= 0.5 takes the best
//   object's class, < 0.5 background);
// - options.sampler picks at most 512, at most 25% positive (common::sample_balanced, one draw from
//   `generator` an image, in order); the picked candidates keep their order.
// An image without ground truth gives only background (the reference raises). Waits on the device
// (the sampled counts are data-dependent), as the reference's nonzero does.
SampledProposals sample_proposals(const std::vector<torch::Tensor>& proposals, const std::vector<ImageTargets>& targets,
                                  const BoxHeadOptions& options, torch::Generator& generator);

// The positives (label >= 1) of each image, in order (the reference's keep_only_positive_boxes): the
// ROIs the mask head trains on.
SampledProposals positive_proposals(const SampledProposals& sampled);

struct BoxHeadLosses {
  torch::Tensor classification;  // 0-d
  torch::Tensor box_regression;  // 0-d
};

// outputs for the ROIs of rois_from_boxes(sampled.boxes_ltrb), in that order. As the reference's
// FastRCNNLossComputation: classification = cross entropy averaged over all sampled ROIs of the batch;
// box_regression = smooth L1 (beta 1) summed over the positives' four codes of their own class,
// divided by the number of sampled ROIs. No wait on the device.
BoxHeadLosses box_head_loss(const BoxHeadOutputs& outputs, const SampledProposals& sampled);

struct ImageDetections {
  torch::Tensor boxes_ltrb;  // [D, 4]
  torch::Tensor scores;      // [D]
  torch::Tensor labels;      // [D] int64, 1..C-1
};

// The reference's PostProcessor, per image (outputs for rois_from_boxes(proposals), image i's
// proposals [P_i, 4] resized to image_sizes[i]):
// - class probabilities by softmax; each proposal decoded once per class (options.coder_weights) and
//   clipped to [0, width - 1] x [0, height - 1];
// - for each class c >= 1, the (proposal, c) pairs with probability > score_threshold go through NMS
//   at nms_threshold (inclusive pixels; equal scores: the lower proposal first);
// - when more than detections_per_image survive, those scoring at least the detections_per_image-th
//   highest score are kept (the reference's kthvalue rule: ties at that score are all kept, so there
//   may be more).
// Order, the reference's: by class, then by proposal index (its NMS returns the kept boxes in input
// order, not by score). Waits on the device (data-dependent counts).
std::vector<ImageDetections> detect_boxes(const BoxHeadOutputs& outputs, const std::vector<torch::Tensor>& proposals,
                                          const std::vector<ImageSize>& image_sizes, const BoxHeadOptions& options);

}  // namespace mlh::maskrcnn
