// Mask R-CNN's ROIAlign and its FPN pooler (spec/workloads.md §4), as the MLPerf reference pools
// proposals (maskrcnn_benchmark's layers/roi_align.py and csrc ROIAlign kernels, modeling/poolers.py):
// the same numbers as torchvision.ops.roi_align with aligned=False.
//
// Per ROI (batch index, x1, y1, x2, y2 in image pixels) and output bin (ph, pw):
// - the box is scaled by spatial_scale (no half-pixel offset), its width and height raised to at least
//   1, and cut into output_size x output_size bins;
// - each bin averages sampling_ratio x sampling_ratio points at its sub-bin centres, each read
//   bilinearly: a point outside [-1, H] x [-1, W] reads 0, one in [-1, 0) reads the border, one past
//   the last row or column reads that row or column.
// Coordinates and weights are computed in float32 (float64 for float64 features), in the reference's
// order of operations; the weights are those of the reference bit for bit, only the order of the sums
// differs. Written with tensor operations (one weighted gather, embedding_bag), so it runs on any
// device, and autograd gives the gradient with respect to the features (none flows to the ROIs).
// Memory: a channels-last copy of the features, and K * out^2 * 4 * sampling_ratio^2 int64 indices
// and weights besides the [K, C, out, out] result; nothing of size K * C * samples.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace mlh::maskrcnn {

// features [N, C, H, W] (floating), rois [K, 5] (batch index, x1, y1, x2, y2; any floating dtype, moved
// to the features' device; batch indices truncated to integers, each in [0, N)). Gives
// [K, C, output_size, output_size] in the features' dtype; K = 0 gives an empty result.
// sampling_ratio > 0 (the reference's adaptive sampling, <= 0, is not supported); aligned adds the
// half-pixel offset of torchvision's aligned=True and drops the at-least-1 rule.
torch::Tensor roi_align(const torch::Tensor& features, const torch::Tensor& rois, int64_t output_size,
                        double spatial_scale, int64_t sampling_ratio, bool aligned = false);

// The FPN level of each box, as the reference's LevelMapper: floor(4 + log2(sqrt(area) / 224 + 1e-6))
// with area (x2 - x1 + 1) * (y2 - y1 + 1), in float32, clamped to [k_min, k_max]; given as the index
// level - k_min (int64 [K]). boxes_ltrb [K, 4] (read as float32). A box of negative area (inverted by
// more than a pixel; the reference's proposals never are, and its level would be NaN) goes to k_min.
torch::Tensor fpn_levels(const torch::Tensor& boxes_ltrb, int64_t k_min, int64_t k_max);

// The reference's Pooler: features P_kmin.. (one [N, C, H_l, W_l] map a level, the same C and dtype),
// scales their spatial scales (1/4, 1/8, ...: powers of 1/2, halving a level), rois [K, 5] as in
// roi_align. Each ROI is pooled from its fpn_levels level (k_min = -log2(scales[0])); the result
// [K, C, output_size, output_size] keeps the ROIs' order. One map pools as roi_align does, with no
// level mapping. All levels are pooled in one gather, with no wait on the device (no nonzero, no copy
// from the host).
torch::Tensor multi_level_roi_align(const std::vector<torch::Tensor>& features, const torch::Tensor& rois,
                                    int64_t output_size, const std::vector<double>& scales, int64_t sampling_ratio);

}  // namespace mlh::maskrcnn
