// Mask R-CNN's RPN anchors (spec/workloads.md §4), as the MLPerf v0.7 reference's AnchorGenerator
// (maskrcnn_benchmark/modeling/rpn/anchor_generator.py) with FPN: one anchor size per level.
//
// Boxes are ltrb in the inclusive pixel convention of image_targets.h. A level's cell anchors are
// Detectron's generate_anchors for one size: from the window (0, 0, stride - 1, stride - 1), for each
// aspect ratio r (height / width) in order, the width round(sqrt(stride^2 / r)) and the height
// round(width * r) (round half to even, as numpy), both then scaled by size / stride, centred on the
// window's centre ((stride - 1) / 2): corners centre -/+ (extent - 1) / 2. Computed in float64, given
// as float32.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "workloads/maskrcnn/image_targets.h"

namespace mlh::maskrcnn {

// The reference's MODEL.RPN settings of the R-50-FPN config: level l (P2..P6) has stride strides[l]
// and anchors of size sizes[l] at every aspect ratio.
struct AnchorOptions {
  std::vector<double> sizes{32, 64, 128, 256, 512};
  std::vector<double> strides{4, 8, 16, 32, 64};
  std::vector<double> aspect_ratios{0.5, 1.0, 2.0};
  // An anchor counts as visible when it reaches at most this many pixels past the image (negative:
  // every anchor is visible). Invisible anchors are left out of the RPN loss.
  double straddle_threshold = 0.0;
};

// Throws UserError unless sizes and strides have one positive entry per level (at least one level)
// and there is at least one aspect ratio, all positive.
void validate(const AnchorOptions& options);

// The anchors at every location of a level: the number of aspect ratios.
int64_t anchors_per_location(const AnchorOptions& options);

// One level's cell anchors: [A, 4] float32 on the CPU, one row per aspect ratio in order.
torch::Tensor cell_anchors(double stride, double size, const std::vector<double>& aspect_ratios);

// The (H, W) of each feature map [N, C, H, W].
std::vector<std::array<int64_t, 2>> grid_sizes(const std::vector<torch::Tensor>& feature_maps);

// Every level's anchors over its feature grid, float32 on `device`: level l gives [H * W * A, 4], the
// cell anchors shifted by (x * stride, y * stride) for the locations in row-major order (y outer, x
// inner), A anchors per location in cell-anchor order: row (y * W + x) * A + a. grid_sizes has one
// (H, W) per level (UserError otherwise).
std::vector<torch::Tensor> grid_anchors(const AnchorOptions& options,
                                        const std::vector<std::array<int64_t, 2>>& grid_sizes,
                                        torch::Device device);

// Which anchors [K, 4] lie within `image` (its size before padding) up to straddle_threshold pixels:
// left >= -t, top >= -t, right < width + t, bottom < height + t. [K] bool on the anchors' device; all
// true for a negative threshold.
torch::Tensor visible_anchors(const torch::Tensor& anchors, ImageSize image, double straddle_threshold);

}  // namespace mlh::maskrcnn
