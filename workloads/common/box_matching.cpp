#include "workloads/common/box_matching.h"

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/box_ops.h"

namespace mlh::common {

MatchedTargets match_targets(const torch::Tensor& gt_boxes_ltrb, const torch::Tensor& gt_labels,
                             const DefaultBoxes& defaults, double iou_threshold) {
  MLH_ASSERT(gt_boxes_ltrb.dim() == 2 && gt_boxes_ltrb.size(1) == 4);
  MLH_ASSERT(gt_labels.dim() == 1 && gt_labels.size(0) == gt_boxes_ltrb.size(0));
  const torch::Device device = gt_boxes_ltrb.device();
  const torch::Tensor defaults_ltrb = defaults.ltrb.to(device);
  const int64_t default_count = defaults_ltrb.size(0);
  const int64_t gt_count = gt_boxes_ltrb.size(0);
  torch::Tensor boxes_ltrb = defaults_ltrb.clone();
  torch::Tensor labels = torch::zeros({default_count}, gt_labels.options().dtype(torch::kLong));
  if (gt_count == 0) return {ltrb_to_xywh(boxes_ltrb), labels};

  const torch::Tensor ious = box_iou(gt_boxes_ltrb.to(defaults_ltrb.scalar_type()), defaults_ltrb);  // [G, D]
  torch::Tensor best_iou_per_default = std::get<0>(ious.max(0));                                      // [D]
  torch::Tensor best_gt_per_default = first_argmax(ious, best_iou_per_default, 0);
  const torch::Tensor best_default_per_gt = first_argmax(ious, std::get<0>(ious.max(1)), 1);          // [G]

  // forced_gt[d]: the last gt whose best default box is d, or -1.
  const torch::Tensor gt_numbers = torch::arange(1, gt_count + 1, best_default_per_gt.options()).unsqueeze(1);
  const torch::Tensor is_best = best_default_per_gt.unsqueeze(1) == torch::arange(default_count, best_default_per_gt.options());
  const torch::Tensor forced_gt = (is_best.to(torch::kLong) * gt_numbers).amax(0) - 1;
  const torch::Tensor forced = forced_gt >= 0;
  best_gt_per_default = torch::where(forced, forced_gt, best_gt_per_default);
  best_iou_per_default = best_iou_per_default.masked_fill(forced, 2.0);

  const torch::Tensor positive = best_iou_per_default > iou_threshold;
  labels = torch::where(positive, gt_labels.to(torch::kLong).index_select(0, best_gt_per_default), labels);
  const torch::Tensor matched_ltrb = gt_boxes_ltrb.to(boxes_ltrb.scalar_type()).index_select(0, best_gt_per_default);
  boxes_ltrb = torch::where(positive.unsqueeze(1), matched_ltrb, boxes_ltrb);
  return {ltrb_to_xywh(boxes_ltrb), labels};
}

MatchedTargets match_targets_batch(const std::vector<torch::Tensor>& gt_boxes_ltrb,
                                   const std::vector<torch::Tensor>& gt_labels, const DefaultBoxes& defaults,
                                   double iou_threshold) {
  MLH_ASSERT(gt_boxes_ltrb.size() == gt_labels.size() && !gt_boxes_ltrb.empty());
  std::vector<torch::Tensor> boxes, labels;
  for (size_t image = 0; image < gt_boxes_ltrb.size(); ++image) {
    MatchedTargets targets = match_targets(gt_boxes_ltrb[image], gt_labels[image], defaults, iou_threshold);
    boxes.push_back(std::move(targets.boxes_xywh));
    labels.push_back(std::move(targets.labels));
  }
  return {torch::stack(boxes), torch::stack(labels)};
}

}  // namespace mlh::common
