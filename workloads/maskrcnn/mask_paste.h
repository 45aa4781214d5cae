// Mask R-CNN's predicted masks pasted into the image (spec/workloads.md §4, Inference), as the MLPerf
// reference's Masker does (maskrcnn_benchmark's expand_masks, expand_boxes, paste_mask_in_image), each
// then run-length encoded as COCO's segm evaluation reads it.
//
// Per detection, with M the mask's side and `padding` p:
// - the M x M probabilities sit inside a zero border p wide; the box (x1, y1, x2, y2, image pixels)
//   grows about its centre by (M + 2p) / M, in float32, and is cast to int32 (towards zero);
// - the padded mask is resized bilinearly (align_corners false, float32) to the int box's
//   (x2 - x1 + 1) x (y2 - y1 + 1) pixels, at least 1 x 1, and thresholded (> threshold);
// - the part inside the image is the pasted mask; the rest of the image is 0. A box that is wholly
//   outside the image pastes nothing (the reference, whose detections are clipped to the image first,
//   never meets one: its slicing there would wrap or fail).
// Memory: one detection at a time, its resized box (the reference's own) and its RLE; no image-sized
// buffer.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "datasets/coco/rle.h"

namespace mlh::maskrcnn {

struct PasteOptions {
  float threshold = 0.5f;  // MODEL.ROI_MASK_HEAD.POSTPROCESS_MASKS_THRESHOLD; >= 0
  int64_t padding = 1;     // pixels of zeros around the mask (the reference's Masker uses 1); >= 1
};

// The boxes the masks are resized to: [N, 4] int32 (x1, y1, x2, y2), inclusive pixel bounds, from
// boxes [N, 4] (any floating dtype, read as float32) for masks of side `mask_size`.
torch::Tensor paste_boxes(const torch::Tensor& boxes_ltrb, int64_t mask_size, const PasteOptions& options = {});

// Masks [N, M, M] or [N, 1, M, M] (probabilities, any floating dtype and device) pasted into a
// height x width image at their boxes [N, 4]: one RLE per detection, in order. Throws UserError for an
// image of 2^32 pixels or more (the RLE's limit).
std::vector<coco::RunLengthMask> paste_masks(const torch::Tensor& masks, const torch::Tensor& boxes_ltrb,
                                             int64_t image_height, int64_t image_width,
                                             const PasteOptions& options = {});

}  // namespace mlh::maskrcnn
