// Non-maximum suppression as the MLPerf detection references do it (greedy, per class). The IoU and
// candidate selection run on the inputs' device; the greedy pass over the suppression matrix runs on
// the CPU (one copy of it per call).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "workloads/common/box_ops.h"

namespace mlh::common {

// Greedy NMS within each class: visiting boxes by descending score (equal scores: lower index first),
// a box is kept unless a kept box of its class overlaps it with IoU >= iou_threshold (the reference
// keeps only IoU < threshold). boxes_ltrb [K, 4], scores [K], class_ids [K] (integers). Returns the kept
// indices into the inputs, int64 on the inputs' device, by descending score (ties: lower index first).
// `extent` is how box_iou reads the boxes (Mask R-CNN's pixel boxes: kInclusivePixels).
torch::Tensor batched_nms(const torch::Tensor& boxes_ltrb, const torch::Tensor& scores,
                          const torch::Tensor& class_ids, double iou_threshold,
                          BoxExtent extent = BoxExtent::kContinuous);

// The blocks of batched_nms, for a detector's own post-processing (SSD's decode_detections):
// [..., k, k] bool on the CPU, whether box i suppresses box j: IoU >= iou_threshold, written as
// !(IoU < threshold) so that NaN suppresses as in the reference.
torch::Tensor suppression_matrix(const torch::Tensor& boxes_ltrb, double iou_threshold,
                                 BoxExtent extent = BoxExtent::kContinuous);
// The greedy pass over the first `count` candidates (sorted by descending score): candidate i is kept
// unless an earlier kept one suppresses it. Appends `offset + i` for each kept i.
void greedy_keep(const torch::TensorAccessor<bool, 2>& suppresses, int64_t count, int64_t offset,
                 std::vector<int64_t>& kept);
// The indices that sort `values` along `dim` by descending value, equal values in index order.
torch::Tensor sort_descending_stable(const torch::Tensor& values, int64_t dim);

}  // namespace mlh::common
