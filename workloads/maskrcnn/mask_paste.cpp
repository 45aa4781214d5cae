#include "workloads/maskrcnn/mask_paste.h"

#include <algorithm>
#include <array>
#include <string>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::maskrcnn {
namespace {

// The reference's expand_boxes on one box, in float32, then the int32 cast (towards zero).
std::array<int32_t, 4> expanded_int_box(const float* box_ltrb, float scale) {
  const float half_width = (box_ltrb[2] - box_ltrb[0]) * 0.5f;
  const float half_height = (box_ltrb[3] - box_ltrb[1]) * 0.5f;
  const float centre_x = (box_ltrb[2] + box_ltrb[0]) * 0.5f;
  const float centre_y = (box_ltrb[3] + box_ltrb[1]) * 0.5f;
  const float scaled_half_width = half_width * scale;
  const float scaled_half_height = half_height * scale;
  return {static_cast<int32_t>(centre_x - scaled_half_width), static_cast<int32_t>(centre_y - scaled_half_height),
          static_cast<int32_t>(centre_x + scaled_half_width), static_cast<int32_t>(centre_y + scaled_half_height)};
}

// (M + 2p) / M in double, as a float32 factor (the reference multiplies float32 boxes by it).
float expansion(int64_t mask_size, int64_t padding) {
  return static_cast<float>(static_cast<double>(mask_size + 2 * padding) / static_cast<double>(mask_size));
}

}  // namespace

torch::Tensor paste_boxes(const torch::Tensor& boxes_ltrb, int64_t mask_size, const PasteOptions& options) {
  MLH_ASSERT(boxes_ltrb.dim() == 2 && boxes_ltrb.size(1) == 4);
  MLH_ASSERT(mask_size > 0 && options.padding >= 1);
  const torch::Tensor boxes = boxes_ltrb.to(torch::kCPU, torch::kFloat).contiguous();
  const float scale = expansion(mask_size, options.padding);
  torch::Tensor int_boxes = torch::empty({boxes.size(0), 4}, torch::kInt);
  const float* box_values = boxes.data_ptr<float>();
  int32_t* int_values = int_boxes.data_ptr<int32_t>();
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    const std::array<int32_t, 4> box = expanded_int_box(box_values + 4 * i, scale);
    std::copy(box.begin(), box.end(), int_values + 4 * i);
  }
  return int_boxes;
}

std::vector<coco::RunLengthMask> paste_masks(const torch::Tensor& masks, const torch::Tensor& boxes_ltrb,
                                             int64_t image_height, int64_t image_width, const PasteOptions& options) {
  MLH_ASSERT(masks.dim() == 3 || (masks.dim() == 4 && masks.size(1) == 1));
  MLH_ASSERT(masks.size(-1) == masks.size(-2) && masks.size(-1) > 0);
  MLH_ASSERT(boxes_ltrb.dim() == 2 && boxes_ltrb.size(0) == masks.size(0));
  MLH_ASSERT(options.threshold >= 0 && options.padding >= 1);
  MLH_ASSERT(image_height > 0 && image_width > 0);
  const uint64_t image_pixels = static_cast<uint64_t>(image_height) * static_cast<uint64_t>(image_width);
  if (image_pixels >> 32)
    throw UserError("Mask R-CNN mask paste: an image of " + std::to_string(image_height) + " x " + std::to_string(image_width) +
                    " pixels is beyond the 2^32 pixels a COCO RLE can count");

  const int64_t count = masks.size(0), mask_size = masks.size(-1), padding = options.padding;
  const int64_t padded_size = mask_size + 2 * padding;
  torch::Tensor padded = torch::zeros({count, 1, padded_size, padded_size}, torch::kFloat);
  padded.narrow(2, padding, mask_size).narrow(3, padding, mask_size)
      .copy_(masks.reshape({count, 1, mask_size, mask_size}).to(torch::kCPU, torch::kFloat));
  const torch::Tensor int_boxes = paste_boxes(boxes_ltrb, mask_size, options);
  const auto boxes = int_boxes.accessor<int32_t, 2>();

  std::vector<coco::RunLengthMask> pasted;
  pasted.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t x1 = boxes[i][0], y1 = boxes[i][1], x2 = boxes[i][2], y2 = boxes[i][3];
    const int64_t left = std::max<int64_t>(x1, 0), right = std::min<int64_t>(x2 + 1, image_width);
    const int64_t top = std::max<int64_t>(y1, 0), bottom = std::min<int64_t>(y2 + 1, image_height);
    coco::RunLengthWriter runs;
    if (left < right && top < bottom) {
      const int64_t width = std::max<int64_t>(x2 - x1 + 1, 1), height = std::max<int64_t>(y2 - y1 + 1, 1);
      const torch::Tensor resized = torch::nn::functional::interpolate(
          padded.narrow(0, i, 1), torch::nn::functional::InterpolateFuncOptions()
                                      .size(std::vector<int64_t>{height, width})
                                      .mode(torch::kBilinear)
                                      .align_corners(false));
      // The visible part, column by column (the RLE's order).
      const torch::Tensor columns = resized[0][0]
                                        .narrow(0, top - y1, bottom - top)
                                        .narrow(1, left - x1, right - left)
                                        .gt(options.threshold)
                                        .t()
                                        .contiguous()
                                        .to(torch::kUInt8);
      const uint8_t* column = columns.data_ptr<uint8_t>();
      const int64_t rows = bottom - top;
      runs.add(0, static_cast<uint64_t>(left * image_height));
      for (int64_t x = left; x < right; ++x, column += rows) {
        runs.add(0, static_cast<uint64_t>(top));
        for (int64_t y = 0; y < rows; ++y) runs.add(column[y] != 0, 1);
        runs.add(0, static_cast<uint64_t>(image_height - bottom));
      }
      runs.add(0, static_cast<uint64_t>((image_width - right) * image_height));
    } else {
      runs.add(0, image_pixels);
    }
    pasted.push_back(coco::RunLengthMask{image_height, image_width, runs.finish()});
  }
  return pasted;
}

}  // namespace mlh::maskrcnn
