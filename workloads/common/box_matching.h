// SSD ground-truth matching (spec/workloads.md §3), as the MLPerf reference's Encoder.encode
// (single_stage_detector/ssd/utils.py):
//  - IoU of every ground-truth box with every default box (both ltrb);
//  - each default box takes its best ground truth (ties: the lowest gt index);
//  - each ground truth's best default box (ties: the lowest default-box index) is forced to that ground
//    truth with IoU 2.0; when several ground truths share a best default box, the last of them wins
//    (the reference's index assignment on the CPU);
//  - a default box is positive when its IoU > iou_threshold; its target is then its ground truth,
//    otherwise the default box itself with label 0 (background).
// Runs on the device of the inputs (default boxes are moved there); no host synchronisation.
#pragma once

#include <vector>

#include <torch/types.h>

#include "workloads/common/default_boxes.h"

namespace mlh::common {

struct MatchedTargets {
  torch::Tensor boxes_xywh;  // [D, 4] (batched: [N, D, 4]) float; pass through encode_boxes for the loss
  torch::Tensor labels;      // [D] (batched: [N, D]) int64, 0 = background
};

// gt_boxes_ltrb [G, 4] normalised like the default boxes; gt_labels [G] int64 (> 0). G may be 0: all
// default boxes are then background.
MatchedTargets match_targets(const torch::Tensor& gt_boxes_ltrb, const torch::Tensor& gt_labels,
                             const DefaultBoxes& defaults, double iou_threshold = 0.5);

// match_targets per image, stacked.
MatchedTargets match_targets_batch(const std::vector<torch::Tensor>& gt_boxes_ltrb,
                                   const std::vector<torch::Tensor>& gt_labels, const DefaultBoxes& defaults,
                                   double iou_threshold = 0.5);

}  // namespace mlh::common
