// What Mask R-CNN's parts (spec/workloads.md §4) pass each other about the images of a batch: each
// image's size once resized (the model reads the padded batch, whose extra rows and columns are
// zeros outside every image), and its ground truth in the resized image's pixels.
//
// Boxes are ltrb with the reference's inclusive pixel convention (maskrcnn_benchmark's BoxList,
// TO_REMOVE = 1): a COCO box [x, y, w, h] is (x, y, x + w - 1, y + h - 1) before resizing, its width
// right - left + 1 (common::BoxExtent::kInclusivePixels).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "datasets/coco/annotations.h"

namespace mlh::maskrcnn {

// An image's size after resizing and before padding, pixels.
struct ImageSize {
  int64_t height = 0;
  int64_t width = 0;
};

// One training image's ground truth (crowd objects already dropped, as the reference drops them).
struct ImageTargets {
  torch::Tensor boxes_ltrb;  // [G, 4] float32 on the model's device, pixels of the resized image
  torch::Tensor labels;      // [G] int64 on the model's device, contiguous classes 1..C-1
  std::vector<coco::Segmentation> masks;  // G objects' polygons, pixels of the resized image (flipped
                                          // with the image); on the host
};

}  // namespace mlh::maskrcnn
