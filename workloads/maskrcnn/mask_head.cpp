#include "workloads/maskrcnn/mask_head.h"

#include <string>

#include "base/user_error.h"
#include "workloads/maskrcnn/mask_targets.h"
#include "workloads/maskrcnn/roi_align.h"

namespace mlh::maskrcnn {

namespace {

// The rows of `logits` [P, C, M, M] at each one's own channel labels[p]: [P, M, M].
torch::Tensor own_class_channel(const torch::Tensor& logits, const torch::Tensor& labels) {
  MLH_ASSERT(logits.dim() == 4 && labels.dim() == 1 && labels.size(0) == logits.size(0));
  const torch::Tensor rows = torch::arange(logits.size(0), labels.options().dtype(torch::kLong));
  return logits.index({rows, labels.to(torch::kLong)});
}

}  // namespace

MaskHeadImpl::MaskHeadImpl(const MaskHeadOptions& options_) : options(options_) {
  MLH_ASSERT(options.num_classes >= 2 && options.in_channels > 0 && !options.conv_layers.empty());
  MLH_ASSERT(options.pooler_resolution > 0 && !options.pooler_scales.empty() && options.sampling_ratio > 0);
  MLH_ASSERT(options.resolution == 2 * options.pooler_resolution);
  int64_t channels = options.in_channels;
  for (size_t i = 0; i < options.conv_layers.size(); ++i) {
    const int64_t out = options.conv_layers[i];
    convs.push_back(register_module("mask_fcn" + std::to_string(i + 1),
                                    torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, out, 3).padding(1))));
    channels = out;
  }
  conv5_mask = register_module(
      "conv5_mask", torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(channels, channels, 2).stride(2)));
  mask_fcn_logits =
      register_module("mask_fcn_logits", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, options.num_classes, 1)));
  reset_parameters();
}

void MaskHeadImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> layers;
  for (const torch::nn::Conv2d& conv : convs) layers.emplace_back(conv->weight, conv->bias);
  layers.emplace_back(conv5_mask->weight, conv5_mask->bias);
  layers.emplace_back(mask_fcn_logits->weight, mask_fcn_logits->bias);
  for (auto& [weight, bias] : layers) {
    torch::nn::init::kaiming_normal_(weight, 0.0, torch::kFanOut, torch::kReLU);
    torch::nn::init::zeros_(bias);
  }
}

torch::Tensor MaskHeadImpl::forward(const std::vector<torch::Tensor>& features, const torch::Tensor& rois) {
  torch::Tensor x = multi_level_roi_align(features, rois, options.pooler_resolution, options.pooler_scales,
                                          options.sampling_ratio);
  for (torch::nn::Conv2d& conv : convs) x = torch::relu(conv(x));
  return mask_fcn_logits(torch::relu(conv5_mask(x)));
}

torch::Tensor mask_head_loss(const torch::Tensor& mask_logits, const std::vector<torch::Tensor>& positive_boxes,
                             const std::vector<torch::Tensor>& positive_labels,
                             const std::vector<torch::Tensor>& positive_matched_gt,
                             const std::vector<ImageTargets>& targets) {
  MLH_ASSERT(positive_boxes.size() == targets.size() && positive_labels.size() == targets.size() &&
             positive_matched_gt.size() == targets.size());
  MLH_ASSERT(mask_logits.dim() == 4 && mask_logits.size(2) == mask_logits.size(3));
  if (mask_logits.size(0) == 0) return mask_logits.sum() * 0;

  const int64_t mask_size = mask_logits.size(3);
  std::vector<torch::Tensor> mask_targets_per_image;
  for (size_t i = 0; i < targets.size(); ++i)
    mask_targets_per_image.push_back(
        mask_targets(targets[i].masks, positive_matched_gt[i], positive_boxes[i], mask_size));
  const torch::Tensor target = torch::cat(mask_targets_per_image, 0).to(mask_logits.device(), mask_logits.scalar_type());
  const torch::Tensor labels = torch::cat(positive_labels, 0).to(mask_logits.device());
  MLH_ASSERT(target.size(0) == mask_logits.size(0));
  return torch::nn::functional::binary_cross_entropy_with_logits(own_class_channel(mask_logits, labels), target);
}

torch::Tensor mask_probabilities(const torch::Tensor& mask_logits, const torch::Tensor& labels) {
  return own_class_channel(mask_logits, labels.to(mask_logits.device())).sigmoid().unsqueeze(1);
}

}  // namespace mlh::maskrcnn
