#include "workloads/maskrcnn/mask_targets.h"

#include <string>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "base/user_error.h"
#include "datasets/coco/rle.h"

namespace mlh::maskrcnn {
namespace {

// M / extent as the reference's resize takes it: the quotient in double, used as a float32 factor.
float scale_to_mask(float extent_px, int64_t mask_size) {
  return static_cast<float>(static_cast<double>(mask_size) / static_cast<double>(extent_px));
}

// Python's max(extent, 1): the extent unless 1 is larger (a NaN extent stays).
float at_least_one_px(float extent_px) { return 1.0f > extent_px ? 1.0f : extent_px; }

void check_polygons(const coco::Segmentation& object) {
  if (object.kind == coco::Segmentation::Kind::kRle)
    throw UserError("Mask R-CNN mask target: the object's segmentation is RLE; its targets need polygons "
                    "(leave crowd objects, COCO's RLE ones, out of training as the reference does)");
}

void write_target(const coco::Segmentation& object, const std::array<float, 4>& proposal_ltrb, int64_t mask_size,
                  uint8_t* target_rows) {
  const float left = proposal_ltrb[0], top = proposal_ltrb[1];
  const float x_scale = scale_to_mask(at_least_one_px(proposal_ltrb[2] - left), mask_size);
  const float y_scale = scale_to_mask(at_least_one_px(proposal_ltrb[3] - top), mask_size);
  std::vector<std::vector<double>> in_mask = object.polygons;  // empty for Kind::kNone
  for (std::vector<double>& polygon : in_mask)
    for (size_t i = 0; i < polygon.size(); ++i) {
      const float shifted = static_cast<float>(polygon[i]) - (i % 2 == 0 ? left : top);
      polygon[i] = static_cast<double>(shifted * (i % 2 == 0 ? x_scale : y_scale));
    }
  const std::vector<uint8_t> columns =
      coco::decode_to_column_major(coco::polygons_to_mask(in_mask, mask_size, mask_size));
  for (int64_t y = 0; y < mask_size; ++y)
    for (int64_t x = 0; x < mask_size; ++x) target_rows[y * mask_size + x] = columns[static_cast<size_t>(x * mask_size + y)];
}

}  // namespace

std::vector<uint8_t> mask_target(const coco::Segmentation& object, const std::array<float, 4>& proposal_ltrb,
                                 int64_t mask_size) {
  MLH_ASSERT(mask_size > 0);
  check_polygons(object);
  std::vector<uint8_t> target(static_cast<size_t>(mask_size * mask_size));
  write_target(object, proposal_ltrb, mask_size, target.data());
  return target;
}

torch::Tensor mask_targets(const std::vector<coco::Segmentation>& objects, const torch::Tensor& object_index,
                           const torch::Tensor& proposals_ltrb, int64_t mask_size) {
  MLH_ASSERT(mask_size > 0);
  MLH_ASSERT(proposals_ltrb.dim() == 2 && proposals_ltrb.size(1) == 4);
  MLH_ASSERT(object_index.dim() == 1 && object_index.size(0) == proposals_ltrb.size(0));
  const int64_t count = proposals_ltrb.size(0);
  const torch::Tensor boxes = proposals_ltrb.to(torch::kCPU, torch::kFloat).contiguous();
  const torch::Tensor indices = object_index.to(torch::kCPU, torch::kLong).contiguous();
  const float* box_values = boxes.data_ptr<float>();
  const int64_t* index_values = indices.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    MLH_ASSERT(index_values[i] >= 0 && index_values[i] < static_cast<int64_t>(objects.size()));
    check_polygons(objects[static_cast<size_t>(index_values[i])]);
  }

  torch::Tensor targets = torch::empty({count, mask_size, mask_size}, torch::kUInt8);
  uint8_t* target_values = targets.data_ptr<uint8_t>();
  at::parallel_for(0, count, 8, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const std::array<float, 4> box{box_values[4 * i], box_values[4 * i + 1], box_values[4 * i + 2], box_values[4 * i + 3]};
      write_target(objects[static_cast<size_t>(index_values[i])], box, mask_size, target_values + i * mask_size * mask_size);
    }
  });
  return targets.to(proposals_ltrb.device(), torch::kFloat);
}

}  // namespace mlh::maskrcnn
