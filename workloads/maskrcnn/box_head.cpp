#include "workloads/maskrcnn/box_head.h"

#include "base/user_error.h"
#include "workloads/common/box_ops.h"
#include "workloads/common/nms.h"
#include "workloads/common/smooth_l1.h"
#include "workloads/maskrcnn/roi_align.h"

namespace mlh::maskrcnn {

namespace {

void check_options(const BoxHeadOptions& options) {
  MLH_ASSERT(options.num_classes >= 2 && options.in_channels > 0 && options.representation_size > 0);
  MLH_ASSERT(options.pooler_resolution > 0 && !options.pooler_scales.empty() && options.sampling_ratio > 0);
}

}  // namespace

BoxHeadImpl::BoxHeadImpl(const BoxHeadOptions& options_) : options(options_) {
  check_options(options);
  const int64_t pooled_size = options.in_channels * options.pooler_resolution * options.pooler_resolution;
  fc6 = register_module("fc6", torch::nn::Linear(pooled_size, options.representation_size));
  fc7 = register_module("fc7", torch::nn::Linear(options.representation_size, options.representation_size));
  cls_score = register_module("cls_score", torch::nn::Linear(options.representation_size, options.num_classes));
  bbox_pred = register_module("bbox_pred", torch::nn::Linear(options.representation_size, 4 * options.num_classes));
  reset_parameters();
}

void BoxHeadImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (const torch::nn::Linear& fc : {fc6, fc7}) torch::nn::init::kaiming_uniform_(fc->weight, 1.0);
  torch::nn::init::normal_(cls_score->weight, 0.0, 0.01);
  torch::nn::init::normal_(bbox_pred->weight, 0.0, 0.001);
  for (const torch::nn::Linear& fc : {fc6, fc7, cls_score, bbox_pred}) torch::nn::init::zeros_(fc->bias);
}

BoxHeadOutputs BoxHeadImpl::forward(const std::vector<torch::Tensor>& features, const torch::Tensor& rois) {
  const torch::Tensor pooled = multi_level_roi_align(features, rois, options.pooler_resolution, options.pooler_scales,
                                                     options.sampling_ratio);
  torch::Tensor x = torch::relu(fc6(pooled.flatten(1)));
  x = torch::relu(fc7(x));
  return {cls_score(x), bbox_pred(x)};
}

torch::Tensor rois_from_boxes(const std::vector<torch::Tensor>& boxes_per_image) {
  MLH_ASSERT(!boxes_per_image.empty());
  std::vector<torch::Tensor> rows;
  rows.reserve(boxes_per_image.size());
  for (size_t i = 0; i < boxes_per_image.size(); ++i) {
    const torch::Tensor& boxes = boxes_per_image[i];
    MLH_ASSERT(boxes.dim() == 2 && boxes.size(1) == 4);
    rows.push_back(torch::cat({torch::full({boxes.size(0), 1}, static_cast<double>(i), boxes.options()), boxes}, 1));
  }
  return torch::cat(rows, 0);
}

SampledProposals sample_proposals(const std::vector<torch::Tensor>& proposals, const std::vector<ImageTargets>& targets,
                                  const BoxHeadOptions& options, torch::Generator& generator) {
  MLH_ASSERT(proposals.size() == targets.size());
  const common::BoxCoder coder(options.coder_weights);
  SampledProposals sampled;
  for (size_t i = 0; i < proposals.size(); ++i) {
    MLH_ASSERT(proposals[i].dim() == 2 && proposals[i].size(1) == 4);
    const torch::Tensor truth = targets[i].boxes_ltrb.to(proposals[i].options());
    const torch::Tensor candidates = torch::cat({proposals[i].detach(), truth}, 0);
    const int64_t count = candidates.size(0);
    const auto index_options = candidates.options().dtype(torch::kLong);

    torch::Tensor matched, labels, regression_targets;
    if (truth.size(0) > 0) {
      matched = common::match_proposals(common::box_iou(truth, candidates, common::BoxExtent::kInclusivePixels),
                                        options.matcher);
      const torch::Tensor object = matched.clamp_min(0);
      labels = targets[i].labels.to(index_options).index_select(0, object);
      labels.masked_fill_(matched == common::kBelowLowThreshold, 0);
      labels.masked_fill_(matched == common::kBetweenThresholds, -1);
      regression_targets = coder.encode(truth.index_select(0, object), candidates);
    } else {
      matched = torch::full({count}, common::kBelowLowThreshold, index_options);
      labels = torch::zeros({count}, index_options);
      regression_targets = torch::zeros({count, 4}, candidates.options());
    }

    const common::SampledMasks masks = common::sample_balanced(labels, options.sampler, generator);
    const torch::Tensor kept = (masks.positive | masks.negative).nonzero().squeeze(1);
    sampled.boxes_ltrb.push_back(candidates.index_select(0, kept));
    sampled.labels.push_back(labels.index_select(0, kept));
    sampled.regression_targets.push_back(regression_targets.index_select(0, kept));
    sampled.matched_gt.push_back(matched.index_select(0, kept));
  }
  return sampled;
}

SampledProposals positive_proposals(const SampledProposals& sampled) {
  SampledProposals positives;
  for (size_t i = 0; i < sampled.labels.size(); ++i) {
    const torch::Tensor kept = (sampled.labels[i] > 0).nonzero().squeeze(1);
    positives.boxes_ltrb.push_back(sampled.boxes_ltrb[i].index_select(0, kept));
    positives.labels.push_back(sampled.labels[i].index_select(0, kept));
    positives.regression_targets.push_back(sampled.regression_targets[i].index_select(0, kept));
    positives.matched_gt.push_back(sampled.matched_gt[i].index_select(0, kept));
  }
  return positives;
}

BoxHeadLosses box_head_loss(const BoxHeadOutputs& outputs, const SampledProposals& sampled) {
  const torch::Tensor labels = torch::cat(sampled.labels, 0);
  const torch::Tensor regression_targets = torch::cat(sampled.regression_targets, 0);
  MLH_ASSERT(outputs.class_logits.dim() == 2 && outputs.class_logits.size(0) == labels.size(0));
  MLH_ASSERT(outputs.box_codes.dim() == 2 && outputs.box_codes.size(1) == 4 * outputs.class_logits.size(1));

  BoxHeadLosses losses;
  losses.classification = torch::nn::functional::cross_entropy(outputs.class_logits, labels);

  // Each ROI's codes of its own class; background rows (and their targets) count as zeros, which is
  // the reference's selection of the positives without a data-dependent shape.
  const torch::Tensor columns =
      4 * labels.clamp_min(0).unsqueeze(1) + torch::arange(4, labels.options()).unsqueeze(0);
  const torch::Tensor positive = (labels > 0).unsqueeze(1);
  const torch::Tensor codes = outputs.box_codes.gather(1, columns);
  const torch::Tensor zero = torch::zeros({}, codes.options());
  losses.box_regression =
      common::smooth_l1_loss_sum(torch::where(positive, codes, zero),
                         torch::where(positive, regression_targets.to(codes.dtype()), zero), 1.0) /
      static_cast<double>(labels.size(0));
  return losses;
}

std::vector<ImageDetections> detect_boxes(const BoxHeadOutputs& outputs, const std::vector<torch::Tensor>& proposals,
                                          const std::vector<ImageSize>& image_sizes, const BoxHeadOptions& options) {
  MLH_ASSERT(proposals.size() == image_sizes.size() && !proposals.empty());
  const int64_t num_classes = outputs.class_logits.size(1);
  const torch::Tensor probabilities = torch::softmax(outputs.class_logits, -1);
  const torch::Tensor decoded = common::BoxCoder(options.coder_weights)
                                    .decode(outputs.box_codes, torch::cat(proposals, 0))
                                    .view({-1, num_classes, 4});
  MLH_ASSERT(decoded.size(0) == probabilities.size(0));

  std::vector<ImageDetections> detections;
  int64_t start = 0;
  for (size_t i = 0; i < proposals.size(); ++i) {
    const int64_t count = proposals[i].size(0);
    const ImageSize size = image_sizes[i];
    // [C - 1, P_i, ...]: class-major, so that candidate indices run by class, then proposal.
    const torch::Tensor scores = probabilities.narrow(0, start, count).narrow(1, 1, num_classes - 1).t();
    torch::Tensor boxes = decoded.narrow(0, start, count).narrow(1, 1, num_classes - 1).transpose(0, 1).clone();
    start += count;
    boxes.select(2, 0).clamp_(0, size.width - 1);
    boxes.select(2, 1).clamp_(0, size.height - 1);
    boxes.select(2, 2).clamp_(0, size.width - 1);
    boxes.select(2, 3).clamp_(0, size.height - 1);

    const torch::Tensor candidates = (scores > options.score_threshold).flatten().nonzero().squeeze(1);
    const torch::Tensor candidate_scores = scores.flatten().index_select(0, candidates);
    const torch::Tensor candidate_boxes = boxes.reshape({-1, 4}).index_select(0, candidates);
    const torch::Tensor candidate_labels = torch::div(candidates, count, "floor") + 1;
    torch::Tensor kept = common::batched_nms(candidate_boxes, candidate_scores, candidate_labels,
                                             options.nms_threshold, common::BoxExtent::kInclusivePixels);
    kept = std::get<0>(kept.sort());  // the reference's order: by class, then by proposal

    const int64_t survivors = kept.size(0);
    if (options.detections_per_image > 0 && survivors > options.detections_per_image) {
      const torch::Tensor kept_scores = candidate_scores.index_select(0, kept);
      const torch::Tensor threshold =
          std::get<0>(kept_scores.to(torch::kCPU).kthvalue(survivors - options.detections_per_image + 1));
      kept = kept.index_select(0, (kept_scores >= threshold.to(kept_scores.device())).nonzero().squeeze(1));
    }
    detections.push_back({candidate_boxes.index_select(0, kept), candidate_scores.index_select(0, kept),
                          candidate_labels.index_select(0, kept)});
  }
  MLH_ASSERT(start == probabilities.size(0));
  return detections;
}

}  // namespace mlh::maskrcnn
