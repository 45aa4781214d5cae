// SSD's post-processing (spec/workloads.md §3, Eval), after the MLPerf reference's
// Encoder.decode_batch / decode_single (single_stage_detector/ssd/utils.py): the heads' offsets decoded
// against the default boxes, per-class thresholds and NMS (workloads/common/nms.h), the best boxes of
// each image. The IoU and candidate selection run on the inputs' device; the greedy pass over each
// image's suppression matrix runs on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "workloads/common/box_ops.h"
#include "workloads/common/default_boxes.h"

namespace mlh::ssd {

struct DetectionOptions {
  double score_threshold = 0.05;          // a class score must exceed it
  int64_t max_candidates_per_class = 200; // the best-scoring ones go into NMS
  double nms_iou_threshold = 0.5;         // the reference's coco_eval overlap_threshold
  int64_t max_detections_per_image = 200; // nms_max_detections
  common::BoxCodingVariances variances;
};

struct ImageDetections {
  torch::Tensor boxes_ltrb;  // [K, 4] float, normalised to the image, not clamped (as the reference)
  torch::Tensor labels;      // [K] int64 class ids in 1..C-1
  torch::Tensor scores;      // [K] float softmax probabilities, descending
};

// ploc [N, 4, D] offsets and plabel [N, C, D] logits (class 0 = background) as the SSD heads give them.
// Per image: decode the boxes against the default boxes, softmax over classes; per class 1..C-1 keep
// scores > score_threshold, the best max_candidates_per_class of them, NMS at nms_iou_threshold; then
// the best max_detections_per_image over all classes. An image with no detection gets empty tensors
// (the reference skips it).
std::vector<ImageDetections> decode_detections(const torch::Tensor& ploc, const torch::Tensor& plabel,
                                               const common::DefaultBoxes& defaults, const DetectionOptions& options = {});

}  // namespace mlh::ssd
