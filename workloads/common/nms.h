// Non-maximum suppression and the SSD post-processing (spec/workloads.md §3, Eval), after the MLPerf
// reference's Encoder.decode_batch / decode_single (single_stage_detector/ssd/utils.py).
// The IoU and candidate selection run on the inputs' device; the greedy pass over the suppression
// matrix runs on the CPU (one copy of it per call, per image for decode_detections).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "workloads/common/box_ops.h"
#include "workloads/common/default_boxes.h"

namespace mlh::common {

// Greedy NMS within each class: visiting boxes by descending score (equal scores: lower index first),
// a box is kept unless a kept box of its class overlaps it with IoU >= iou_threshold (the reference
// keeps only IoU < threshold). boxes_ltrb [K, 4], scores [K], class_ids [K] (integers). Returns the kept
// indices into the inputs, int64 on the inputs' device, by descending score (ties: lower index first).
torch::Tensor batched_nms(const torch::Tensor& boxes_ltrb, const torch::Tensor& scores,
                          const torch::Tensor& class_ids, double iou_threshold);

struct DetectionOptions {
  double score_threshold = 0.05;          // a class score must exceed it
  int64_t max_candidates_per_class = 200; // the best-scoring ones go into NMS
  double nms_iou_threshold = 0.5;         // the reference's coco_eval overlap_threshold
  int64_t max_detections_per_image = 200; // nms_max_detections
  BoxCodingVariances variances;
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
                                               const DefaultBoxes& defaults, const DetectionOptions& options = {});

}  // namespace mlh::common
