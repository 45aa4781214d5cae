#include "workloads/ssd/ssd_detections.h"

#include <algorithm>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/nms.h"

namespace mlh::ssd {

std::vector<ImageDetections> decode_detections(const torch::Tensor& ploc, const torch::Tensor& plabel,
                                               const common::DefaultBoxes& defaults, const DetectionOptions& options) {
  MLH_ASSERT(ploc.dim() == 3 && ploc.size(1) == 4 && plabel.dim() == 3);
  MLH_ASSERT(plabel.size(0) == ploc.size(0) && plabel.size(2) == ploc.size(2) && plabel.size(1) >= 2);
  MLH_ASSERT(defaults.count() == ploc.size(2));
  MLH_ASSERT(options.max_candidates_per_class >= 1 && options.max_detections_per_image >= 0);
  torch::NoGradGuard no_grad;
  const torch::Device device = ploc.device();
  const torch::Tensor offsets = ploc.to(torch::kFloat).permute({0, 2, 1});
  const torch::Tensor all_boxes = common::xywh_to_ltrb(common::decode_boxes(offsets, defaults.xywh.to(device), options.variances));  // [N, D, 4]
  const torch::Tensor all_probabilities = torch::softmax(plabel.to(torch::kFloat), 1);                      // [N, C, D]
  const int64_t object_classes = plabel.size(1) - 1;
  const int64_t candidates = std::min(options.max_candidates_per_class, ploc.size(2));

  std::vector<ImageDetections> detections;
  for (int64_t image = 0; image < ploc.size(0); ++image) {
    const torch::Tensor class_scores = all_probabilities[image].narrow(0, 1, object_classes);  // [C-1, D]
    const torch::Tensor best = common::sort_descending_stable(class_scores, 1).narrow(1, 0, candidates);
    const torch::Tensor best_scores = class_scores.gather(1, best);                             // [C-1, k]
    const torch::Tensor best_boxes = all_boxes[image].index_select(0, best.flatten()).view({object_classes, candidates, 4});
    const torch::Tensor above_threshold = (best_scores > options.score_threshold).sum(1).to(torch::kCPU).contiguous();
    const torch::Tensor suppresses = common::suppression_matrix(best_boxes, options.nms_iou_threshold);

    std::vector<int64_t> kept;  // flat positions c * k + p into [C-1, k]
    const auto counts = above_threshold.accessor<int64_t, 1>();
    const auto suppresses_by_class = suppresses.accessor<bool, 3>();
    for (int64_t c = 0; c < object_classes; ++c) common::greedy_keep(suppresses_by_class[c], counts[c], c * candidates, kept);

    const torch::Tensor kept_flat = torch::tensor(kept, torch::kLong).to(device);
    const torch::Tensor scores = best_scores.flatten().index_select(0, kept_flat);
    const torch::Tensor order =
        common::sort_descending_stable(scores, 0).narrow(0, 0, std::min<int64_t>(options.max_detections_per_image, scores.size(0)));
    const torch::Tensor chosen = kept_flat.index_select(0, order);
    detections.push_back({best_boxes.view({-1, 4}).index_select(0, chosen),
                          torch::div(chosen, candidates, /*rounding_mode=*/"floor") + 1, scores.index_select(0, order)});
  }
  return detections;
}

}  // namespace mlh::ssd
