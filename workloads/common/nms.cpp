#include "workloads/common/nms.h"

#include <algorithm>
#include <map>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::common {

namespace {

// Greedy pass over the first `count` candidates (sorted by descending score): candidate i is kept
// unless an earlier kept candidate suppresses it. Appends `offset + i` for each kept i.
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

// [..., k, k] bool on the CPU: IoU >= threshold, written as !(IoU < threshold) so that NaN suppresses
// as in the reference.
torch::Tensor suppression_matrix(const torch::Tensor& boxes_ltrb, double iou_threshold) {
  return (box_iou(boxes_ltrb, boxes_ltrb) < iou_threshold).logical_not().to(torch::kCPU).contiguous();
}

torch::Tensor sort_descending_stable(const torch::Tensor& values, int64_t dim) {
  return std::get<1>(values.sort(/*stable=*/true, dim, /*descending=*/true));
}

}  // namespace

torch::Tensor batched_nms(const torch::Tensor& boxes_ltrb, const torch::Tensor& scores,
                          const torch::Tensor& class_ids, double iou_threshold) {
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
    const torch::Tensor suppresses = suppression_matrix(sorted_boxes.index_select(0, class_positions), iou_threshold);
    std::vector<int64_t> kept_in_class;
    greedy_keep(suppresses.accessor<bool, 2>(), static_cast<int64_t>(positions.size()), 0, kept_in_class);
    for (int64_t i : kept_in_class) kept_positions.push_back(positions[static_cast<size_t>(i)]);
  }
  std::sort(kept_positions.begin(), kept_positions.end());  // score order
  return order.index_select(0, torch::tensor(kept_positions, torch::kLong).to(device));
}

std::vector<ImageDetections> decode_detections(const torch::Tensor& ploc, const torch::Tensor& plabel,
                                               const DefaultBoxes& defaults, const DetectionOptions& options) {
  MLH_ASSERT(ploc.dim() == 3 && ploc.size(1) == 4 && plabel.dim() == 3);
  MLH_ASSERT(plabel.size(0) == ploc.size(0) && plabel.size(2) == ploc.size(2) && plabel.size(1) >= 2);
  MLH_ASSERT(defaults.count() == ploc.size(2));
  MLH_ASSERT(options.max_candidates_per_class >= 1 && options.max_detections_per_image >= 0);
  torch::NoGradGuard no_grad;
  const torch::Device device = ploc.device();
  const torch::Tensor offsets = ploc.to(torch::kFloat).permute({0, 2, 1});
  const torch::Tensor all_boxes = xywh_to_ltrb(decode_boxes(offsets, defaults.xywh.to(device), options.variances));  // [N, D, 4]
  const torch::Tensor all_probabilities = torch::softmax(plabel.to(torch::kFloat), 1);                      // [N, C, D]
  const int64_t object_classes = plabel.size(1) - 1;
  const int64_t candidates = std::min(options.max_candidates_per_class, ploc.size(2));

  std::vector<ImageDetections> detections;
  for (int64_t image = 0; image < ploc.size(0); ++image) {
    const torch::Tensor class_scores = all_probabilities[image].narrow(0, 1, object_classes);  // [C-1, D]
    const torch::Tensor best = sort_descending_stable(class_scores, 1).narrow(1, 0, candidates);
    const torch::Tensor best_scores = class_scores.gather(1, best);                             // [C-1, k]
    const torch::Tensor best_boxes = all_boxes[image].index_select(0, best.flatten()).view({object_classes, candidates, 4});
    const torch::Tensor above_threshold = (best_scores > options.score_threshold).sum(1).to(torch::kCPU).contiguous();
    const torch::Tensor suppresses = suppression_matrix(best_boxes, options.nms_iou_threshold);

    std::vector<int64_t> kept;  // flat positions c * k + p into [C-1, k]
    const auto counts = above_threshold.accessor<int64_t, 1>();
    const auto suppresses_by_class = suppresses.accessor<bool, 3>();
    for (int64_t c = 0; c < object_classes; ++c) greedy_keep(suppresses_by_class[c], counts[c], c * candidates, kept);

    const torch::Tensor kept_flat = torch::tensor(kept, torch::kLong).to(device);
    const torch::Tensor scores = best_scores.flatten().index_select(0, kept_flat);
    const torch::Tensor order =
        sort_descending_stable(scores, 0).narrow(0, 0, std::min<int64_t>(options.max_detections_per_image, scores.size(0)));
    const torch::Tensor chosen = kept_flat.index_select(0, order);
    detections.push_back({best_boxes.view({-1, 4}).index_select(0, chosen),
                          torch::div(chosen, candidates, /*rounding_mode=*/"floor") + 1, scores.index_select(0, order)});
  }
  return detections;
}

}  // namespace mlh::common
