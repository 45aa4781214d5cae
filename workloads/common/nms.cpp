#include "workloads/common/nms.h"

#include <algorithm>
#include <map>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::common {

void greedy_keep(const torch::TensorAccessor<bool, 2>& suppresses, int64_t count, int64_t offset,
                 std::vector<int64_t>& kept) {
  std::vector<char> removed(static_cast<size_t>(count), 0);
  for (int64_t i = 0; i < count; ++i) {
    if (removed[static_cast<size_t>(i)]) continue;
    kept.push_back(offset + i);
    for (int64_t j = i + 1; j < count; ++j)
      if (suppresses[i][j]) removed[static_cast<size_t>(j)] = 1;
  }
}

torch::Tensor suppression_matrix(const torch::Tensor& boxes_ltrb, double iou_threshold, BoxExtent extent) {
  return (box_iou(boxes_ltrb, boxes_ltrb, extent) < iou_threshold).logical_not().to(torch::kCPU).contiguous();
}

torch::Tensor sort_descending_stable(const torch::Tensor& values, int64_t dim) {
  return std::get<1>(values.sort(/*stable=*/true, dim, /*descending=*/true));
}

torch::Tensor batched_nms(const torch::Tensor& boxes_ltrb, const torch::Tensor& scores,
                          const torch::Tensor& class_ids, double iou_threshold, BoxExtent extent) {
  MLH_ASSERT(boxes_ltrb.dim() == 2 && boxes_ltrb.size(1) == 4);
  MLH_ASSERT(scores.dim() == 1 && scores.size(0) == boxes_ltrb.size(0));
  MLH_ASSERT(class_ids.dim() == 1 && class_ids.size(0) == boxes_ltrb.size(0));
  const torch::Device device = boxes_ltrb.device();
  const torch::Tensor order = sort_descending_stable(scores, 0);
  const torch::Tensor sorted_boxes = boxes_ltrb.index_select(0, order);
  const torch::Tensor sorted_classes = class_ids.index_select(0, order).to(torch::kCPU, torch::kLong).contiguous();

  // Positions in score order, grouped by class.
  std::map<int64_t, std::vector<int64_t>> positions_by_class;
  const auto classes = sorted_classes.accessor<int64_t, 1>();
  for (int64_t position = 0; position < classes.size(0); ++position) positions_by_class[classes[position]].push_back(position);

  std::vector<int64_t> kept_positions;
  for (const auto& entry : positions_by_class) {
    const std::vector<int64_t>& positions = entry.second;
    const torch::Tensor class_positions = torch::tensor(positions, torch::kLong).to(device);
    const torch::Tensor suppresses = suppression_matrix(sorted_boxes.index_select(0, class_positions), iou_threshold, extent);
    std::vector<int64_t> kept_in_class;
    greedy_keep(suppresses.accessor<bool, 2>(), static_cast<int64_t>(positions.size()), 0, kept_in_class);
    for (int64_t i : kept_in_class) kept_positions.push_back(positions[static_cast<size_t>(i)]);
  }
  std::sort(kept_positions.begin(), kept_positions.end());  // score order
  return order.index_select(0, torch::tensor(kept_positions, torch::kLong).to(device));
}

}  // namespace mlh::common
