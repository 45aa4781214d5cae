#include "workloads/maskrcnn/mask_rcnn.h"

#include <utility>

#include "base/user_error.h"

namespace mlh::maskrcnn {
namespace {

std::vector<torch::Tensor> pooled_levels(const std::vector<torch::Tensor>& features) {
  return {features.begin(), features.begin() + 4};  // P2..P5: P6 is the RPN's only
}

std::vector<torch::Tensor> proposal_boxes(const std::vector<RpnProposals>& proposals) {
  std::vector<torch::Tensor> boxes;
  boxes.reserve(proposals.size());
  for (const RpnProposals& p : proposals) boxes.push_back(p.boxes_ltrb);
  return boxes;
}

MaskRcnnOptions resolved(MaskRcnnOptions options) {
  validate(options.rpn);
  if (options.num_classes < 2)
    throw UserError("Mask R-CNN needs at least one object class besides the background (num_classes " +
                    std::to_string(options.num_classes) + ")");
  options.box_head.num_classes = options.num_classes;
  options.box_head.in_channels = options.backbone.fpn_channels();
  options.mask_head.num_classes = options.num_classes;
  options.mask_head.in_channels = options.backbone.fpn_channels();
  return options;
}

}  // namespace

MaskRcnnImpl::MaskRcnnImpl(MaskRcnnOptions options) : options_(resolved(std::move(options))) {
  backbone = register_module("backbone", ResNetFpn(options_.backbone));
  rpn = register_module("rpn", RpnHead(options_.backbone.fpn_channels(), anchors_per_location(options_.rpn.anchors)));
  box_head = register_module("box_head", BoxHead(options_.box_head));
  mask_head = register_module("mask_head", MaskHead(options_.mask_head));
}

const std::vector<torch::Tensor>& MaskRcnnImpl::anchors_for(const std::vector<torch::Tensor>& features) {
  std::vector<std::array<int64_t, 2>> sizes = grid_sizes(features);
  const torch::Device device = features.front().device();
  if (sizes != anchor_grid_sizes_ || anchors_.empty() || anchors_.front().device() != device) {
    anchors_ = grid_anchors(options_.rpn.anchors, sizes, device);
    anchor_grid_sizes_ = std::move(sizes);
  }
  return anchors_;
}

MaskRcnnLosses MaskRcnnImpl::losses(const torch::Tensor& images, const std::vector<ImageSize>& image_sizes,
                                    const std::vector<ImageTargets>& targets, torch::Generator& generator) {
  MLH_ASSERT(static_cast<int64_t>(image_sizes.size()) == images.size(0) && targets.size() == image_sizes.size());
  const std::vector<torch::Tensor> features = backbone->forward(images);
  const std::vector<torch::Tensor>& anchors = anchors_for(features);
  const RpnOutputs rpn_outputs = rpn->forward(features);
  MaskRcnnLosses losses;
  {
    const RpnLosses rpn_losses = rpn_loss(rpn_outputs, anchors, image_sizes, targets, options_.rpn, generator);
    losses.rpn_objectness = rpn_losses.objectness;
    losses.rpn_box_regression = rpn_losses.box_regression;
  }
  const std::vector<torch::Tensor> proposals =
      proposal_boxes(select_proposals(rpn_outputs, anchors, image_sizes, options_.rpn, /*training=*/true));
  const std::vector<torch::Tensor> pooled = pooled_levels(features);
  const SampledProposals sampled = sample_proposals(proposals, targets, options_.box_head, generator);
  const BoxHeadOutputs box_outputs = box_head->forward(pooled, rois_from_boxes(sampled.boxes_ltrb));
  const BoxHeadLosses box_losses = box_head_loss(box_outputs, sampled);
  losses.box_classification = box_losses.classification;
  losses.box_regression = box_losses.box_regression;

  const SampledProposals positive = positive_proposals(sampled);
  const torch::Tensor mask_logits = mask_head->forward(pooled, rois_from_boxes(positive.boxes_ltrb));
  losses.mask = mask_head_loss(mask_logits, positive.boxes_ltrb, positive.labels, positive.matched_gt, targets);
  return losses;
}

std::vector<MaskedDetections> MaskRcnnImpl::detect(const torch::Tensor& images,
                                                   const std::vector<ImageSize>& image_sizes) {
  MLH_ASSERT(static_cast<int64_t>(image_sizes.size()) == images.size(0));
  const std::vector<torch::Tensor> features = backbone->forward(images);
  const std::vector<torch::Tensor>& anchors = anchors_for(features);
  const std::vector<torch::Tensor> proposals =
      proposal_boxes(select_proposals(rpn->forward(features), anchors, image_sizes, options_.rpn, /*training=*/false));
  const std::vector<torch::Tensor> pooled = pooled_levels(features);
  const std::vector<ImageDetections> found =
      detect_boxes(box_head->forward(pooled, rois_from_boxes(proposals)), proposals, image_sizes, options_.box_head);
  std::vector<torch::Tensor> boxes, labels;
  for (const ImageDetections& d : found) {
    boxes.push_back(d.boxes_ltrb);
    labels.push_back(d.labels);
  }
  const torch::Tensor masks = mask_probabilities(mask_head->forward(pooled, rois_from_boxes(boxes)), torch::cat(labels));
  std::vector<MaskedDetections> out;
  int64_t first = 0;
  for (const ImageDetections& d : found) {
    const int64_t count = d.boxes_ltrb.size(0);
    out.push_back({d.boxes_ltrb, d.scores, d.labels, masks.narrow(0, first, count)});
    first += count;
  }
  return out;
}

}  // namespace mlh::maskrcnn
