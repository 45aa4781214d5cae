// SSD default boxes (spec/workloads.md §3), laid out as the MLPerf reference's DefaultBoxes
// (single_stage_detector/ssd/utils.py, the same in T05, T06 and T07):
//   for each feature map k (in the order given),
//     for each box size of map k: (s, s), (s', s'), then per aspect ratio a (s√a, s/√a), (s/√a, s√a),
//       with s = scale[k] / figure and s' = √(scale[k] scale[k+1]) / figure,
//       for each position (i row, j column), row-major: centre ((j + .5) step[k], (i + .5) step[k]) / figure.
// Sizes are outside positions: this is the order the reference's heads produce, since each head's
// [nd*4, H, W] output is viewed as [4, nd*H*W]. Each of cx, cy, w, h is clamped to [0, 1] (with `clamp`)
// in float after the values are computed in double, as the reference builds a float tensor and clamps it.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace mlh::common {

struct DefaultBoxesOptions {
  double figure_size_px = 0;
  std::vector<int64_t> feature_sizes;                // map k is feature_sizes[k] x feature_sizes[k]
  std::vector<double> steps_px;                      // one per map
  std::vector<double> scales_px;                     // one per map, plus one
  std::vector<std::vector<double>> aspect_ratios;    // per map, each ratio > 0
  bool clamp = true;
};

// The reference's dboxes300_coco: figure 300, maps [38,19,10,5,3,1], steps [8,16,32,64,100,300],
// scales [21,45,99,153,207,261,315], ratios [[2],[2,3],[2,3],[2,3],[2],[2]]: 8732 boxes.
DefaultBoxesOptions dboxes300_coco();

// Boxes per position on map k: 2 + 2 x (number of ratios of map k).
int64_t default_boxes_per_position(const DefaultBoxesOptions& options, size_t map);

// The default boxes in both formats, normalised to the figure, float, on the CPU (move them with
// to(device) once). ltrb is computed from the clamped xywh, so it may stick out of [0, 1].
struct DefaultBoxes {
  torch::Tensor xywh;  // [D, 4]
  torch::Tensor ltrb;  // [D, 4]

  int64_t count() const { return xywh.size(0); }
  DefaultBoxes to(const torch::Device& device) const;
  // Any [D, 4] float xywh boxes (tests, other layouts).
  static DefaultBoxes from_xywh(const torch::Tensor& xywh);
};

// UserError naming the field when the options are inconsistent (list lengths, sizes or steps < 1).
DefaultBoxes make_default_boxes(const DefaultBoxesOptions& options);

}  // namespace mlh::common
