// Mask R-CNN's mask targets (spec/workloads.md §4), as the MLPerf reference builds them for the mask
// loss (maskrcnn_benchmark's project_masks_on_boxes: SegmentationMask.crop, resize, convert("mask")):
// a ground-truth object's polygons cropped to a proposal box and rasterised M x M inside it.
//
// - Arithmetic in float32, step for step: the coordinates are held as float32; the box's width and
//   height (x2 - x1, y2 - y1) are raised to at least 1; each coordinate is shifted by the box's corner,
//   then multiplied by M / width (M / height for y), that ratio taken in double and rounded to
//   float32. The box is not clamped to the image: a box partly outside it crops the same way.
// - Rasterisation as pycocotools' frPyObjects, merge and decode on an M x M image
//   (mlh::coco::polygons_to_mask): parts of the polygons outside the box fall away.
// - Ground truth must be polygons: the reference drops crowd objects (COCO's only RLE ones) before
//   training and has no crop for bitmasks; an RLE segmentation is a UserError. An object whose
//   polygons were all dropped (Segmentation::Kind::kNone) gives an empty target.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "datasets/coco/annotations.h"

namespace mlh::maskrcnn {

constexpr int64_t kMaskSize = 28;  // M: MODEL.ROI_MASK_HEAD.RESOLUTION of the reference's config

// The M x M target of one object and one proposal box (x1, y1, x2, y2 in image pixels), row by row
// (row y, column x at y * M + x), 0 or 1 a byte.
std::vector<uint8_t> mask_target(const coco::Segmentation& object, const std::array<float, 4>& proposal_ltrb,
                                 int64_t mask_size = kMaskSize);

// The targets of N (object, proposal) pairs: proposal i [N, 4] (any floating dtype, read as float32)
// with objects[object_index[i]] (int64 [N]). Gives [N, M, M] float32 (0 or 1) on the proposals'
// device; N = 0 gives [0, M, M]. Pairs are rasterised in parallel on the CPU.
torch::Tensor mask_targets(const std::vector<coco::Segmentation>& objects, const torch::Tensor& object_index,
                           const torch::Tensor& proposals_ltrb, int64_t mask_size = kMaskSize);

}  // namespace mlh::maskrcnn
