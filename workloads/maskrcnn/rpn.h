// Mask R-CNN's Region Proposal Network (spec/workloads.md §4), as the MLPerf v0.7 reference's RPN with
// FPN (maskrcnn_benchmark/modeling/rpn/: rpn.py, loss.py, inference.py, utils.py):
//  - RpnHead: one 3x3 conv + ReLU shared by every level, then per location A objectness logits and A
//    box codes (4 each);
//  - rpn_loss: anchors matched to ground truth, 256 sampled per image, BCE + smooth-L1 (beta 1/9);
//  - select_proposals: per level the top anchors decoded, clipped, filtered and NMSed, then the best
//    over all levels (across the whole batch when training).
//
// Predictions against anchors: the anchors of level l are grid_anchors(...)[l] ([H * W * A, 4], row
// (y * W + x) * A + a). A level's objectness [N, A, H, W] and box codes [N, 4A, H, W] (channel a * 4 + c
// for anchor a's code c) are read in that order, as the reference's concat_box_prediction_layers does,
// and the levels are concatenated in order. Boxes are ltrb in the inclusive pixel convention of
// image_targets.h, codes those of common::BoxCoder with kRpnBoxCoderWeights.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/common/balanced_sampler.h"
#include "workloads/common/proposal_matcher.h"
#include "workloads/maskrcnn/anchors.h"
#include "workloads/maskrcnn/image_targets.h"

namespace mlh::maskrcnn {

// The head's predictions, one tensor per FPN level.
struct RpnOutputs {
  std::vector<torch::Tensor> objectness;  // [N, A, H, W] logits
  std::vector<torch::Tensor> box_codes;   // [N, 4A, H, W]
};

// The reference's SingleConvRPNHead; parameter names as the reference's (conv, cls_logits, bbox_pred).
// Weights are drawn from N(0, 0.01^2) with LibTorch's default generator, biases are 0. At 256 channels
// and A = 3 it has 593,935 parameters.
class RpnHeadImpl : public torch::nn::Module {
 public:
  RpnHeadImpl(int64_t in_channels, int64_t anchors_per_location);

  // features: one [N, in_channels, H_l, W_l] map per level.
  RpnOutputs forward(const std::vector<torch::Tensor>& features);
  void reset_parameters();

  torch::nn::Conv2d conv{nullptr};        // 3x3, padding 1, in_channels -> in_channels
  torch::nn::Conv2d cls_logits{nullptr};  // 1x1, in_channels -> A
  torch::nn::Conv2d bbox_pred{nullptr};   // 1x1, in_channels -> 4A
};
TORCH_MODULE(RpnHead);

// The reference's MODEL.RPN settings of e2e_mask_rcnn_R_50_FPN_1x.yaml (over defaults.py).
struct RpnOptions {
  AnchorOptions anchors;
  common::ProposalMatcherOptions matcher = common::kRpnMatcherOptions;
  common::BalancedSamplerOptions sampler = common::kRpnSamplerOptions;
  // Per level and image: the best-scored anchors decoded, and the proposals NMS keeps.
  int64_t pre_nms_top_n_train = 2000;
  int64_t post_nms_top_n_train = 2000;
  int64_t pre_nms_top_n_test = 1000;
  int64_t post_nms_top_n_test = 1000;
  // Over all levels: when training, across the whole batch (the rules' num_image_candidates; the
  // reference's per-batch behaviour); when testing, per image.
  int64_t fpn_post_nms_top_n_train = 2000;
  int64_t fpn_post_nms_top_n_test = 1000;
  // NMS IoU threshold; <= 0 turns NMS off, and with it the post_nms_top_n cut (as the reference).
  double nms_threshold = 0.7;
  // Proposals narrower or lower than this (inclusive pixels, after clipping) are dropped.
  double min_size = 0.0;
};

// Throws UserError for anchor options validate() rejects, top-N counts below 1, a negative min_size,
// or matcher thresholds out of order.
void validate(const RpnOptions& options);

struct RpnLosses {
  torch::Tensor objectness;      // 0-d, mean BCE-with-logits over the sampled anchors
  torch::Tensor box_regression;  // 0-d, smooth-L1 (beta 1/9) summed over the sampled positives / #sampled
};

// The reference's RPNLossComputation. Per image i, over the anchors of all levels:
//  - quality box_iou(gt, anchors) (inclusive pixels), matched with options.matcher;
//  - label 1 for a matched anchor, 0 below the low threshold, -1 (ignored) between the thresholds and
//    for anchors not visible_anchors(anchors, image_sizes[i], straddle_threshold);
//  - common::sample_balanced(labels, options.sampler, generator), images in order;
//  - regression targets BoxCoder(kRpnBoxCoderWeights).encode(matched gt, anchors).
// Both losses are divided by the number of sampled anchors of the whole batch. An image without ground
// truth has only negatives. Runs on the outputs' device with no host synchronisation; differentiable
// in the outputs. anchors_per_level as grid_anchors gives them for the outputs' grids; image_sizes and
// targets one per image; generator of the outputs' device type (see balanced_sampler.h).
RpnLosses rpn_loss(const RpnOutputs& outputs, const std::vector<torch::Tensor>& anchors_per_level,
                   const std::vector<ImageSize>& image_sizes, const std::vector<ImageTargets>& targets,
                   const RpnOptions& options, torch::Generator& generator);

// One image's proposals, detached from the graph, on the outputs' device.
struct RpnProposals {
  torch::Tensor boxes_ltrb;  // [K, 4]
  torch::Tensor objectness;  // [K], sigmoid of the logit
};

// The reference's RPNPostProcessor. Per level and image:
//  - the top pre_nms_top_n anchors by objectness (sigmoid of the logit), decoded with
//    BoxCoder(kRpnBoxCoderWeights);
//  - clipped to the image: x to [0, width - 1], y to [0, height - 1];
//  - boxes narrower or lower than min_size dropped;
//  - common::batched_nms at nms_threshold (inclusive pixels, one class), keeping the first
//    post_nms_top_n by descending objectness.
// Then, with more than one level, the levels' proposals are concatenated per image (level order, each
// by descending objectness) and
//  - training: the fpn_post_nms_top_n_train best of the whole batch are kept, each image keeping its
//    chosen ones in that order (an image may keep none);
//  - testing: each image keeps its fpn_post_nms_top_n_test best, by descending objectness.
// Ground truth is not added here (the box head adds it). Host synchronisation: the filtering and NMS
// need the counts on the host.
std::vector<RpnProposals> select_proposals(const RpnOutputs& outputs,
                                           const std::vector<torch::Tensor>& anchors_per_level,
                                           const std::vector<ImageSize>& image_sizes, const RpnOptions& options,
                                           bool training);

}  // namespace mlh::maskrcnn
