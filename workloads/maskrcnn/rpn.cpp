#include "workloads/maskrcnn/rpn.h"

#include <algorithm>
#include <string>

#include "base/user_error.h"
#include "workloads/common/box_coder.h"
#include "workloads/common/box_ops.h"
#include "workloads/common/nms.h"
#include "workloads/common/smooth_l1.h"

namespace mlh::maskrcnn {
namespace {

constexpr double kBoxLossBeta = 1.0 / 9.0;

// A level's predictions [N, A * per_anchor, H, W] in anchor order: [N, H * W * A, per_anchor].
torch::Tensor in_anchor_order(const torch::Tensor& layer, int64_t per_anchor) {
  MLH_ASSERT(layer.dim() == 4 && layer.size(1) % per_anchor == 0);
  const int64_t n = layer.size(0), height = layer.size(2), width = layer.size(3);
  return layer.reshape({n, layer.size(1) / per_anchor, per_anchor, height, width})
      .permute({0, 3, 4, 1, 2})
      .reshape({n, -1, per_anchor});
}

// Every level's objectness [N, T] and box codes [N, T, 4], T the anchors of all levels.
struct FlatPredictions {
  torch::Tensor objectness;
  torch::Tensor box_codes;
};

FlatPredictions flatten(const RpnOutputs& outputs) {
  std::vector<torch::Tensor> objectness, codes;
  for (size_t l = 0; l < outputs.objectness.size(); ++l) {
    objectness.push_back(in_anchor_order(outputs.objectness[l], 1).squeeze(2));
    codes.push_back(in_anchor_order(outputs.box_codes[l], 4));
  }
  return {torch::cat(objectness, 1), torch::cat(codes, 1)};
}

void check_shapes(const RpnOutputs& outputs, const std::vector<torch::Tensor>& anchors_per_level, size_t images) {
  MLH_ASSERT(!outputs.objectness.empty());
  MLH_ASSERT(outputs.objectness.size() == outputs.box_codes.size());
  MLH_ASSERT(outputs.objectness.size() == anchors_per_level.size());
  for (size_t l = 0; l < anchors_per_level.size(); ++l) {
    const torch::Tensor& objectness = outputs.objectness[l];
    const torch::Tensor& codes = outputs.box_codes[l];
    MLH_ASSERT(objectness.dim() == 4 && codes.dim() == 4);
    MLH_ASSERT(objectness.size(0) == static_cast<int64_t>(images) && codes.size(0) == objectness.size(0));
    MLH_ASSERT(codes.size(1) == 4 * objectness.size(1));
    MLH_ASSERT(codes.size(2) == objectness.size(2) && codes.size(3) == objectness.size(3));
    MLH_ASSERT(anchors_per_level[l].dim() == 2 && anchors_per_level[l].size(1) == 4);
    MLH_ASSERT(anchors_per_level[l].size(0) == objectness.size(1) * objectness.size(2) * objectness.size(3));
  }
}

void require_at_least_one(int64_t value, const char* key) {
  if (value < 1)
    throw UserError(std::string("RPN option '") + key + "' is " + std::to_string(value) + "; it must be at least 1");
}

// Boxes [K, 4] clamped to the image: x to [0, width - 1], y to [0, height - 1].
torch::Tensor clipped_to(const torch::Tensor& boxes, ImageSize image) {
  const double right = static_cast<double>(image.width - 1), bottom = static_cast<double>(image.height - 1);
  return torch::stack({boxes.select(1, 0).clamp(0.0, right), boxes.select(1, 1).clamp(0.0, bottom),
                       boxes.select(1, 2).clamp(0.0, right), boxes.select(1, 3).clamp(0.0, bottom)},
                      1);
}

RpnProposals rows_of(const RpnProposals& proposals, const torch::Tensor& indices) {
  return {proposals.boxes_ltrb.index_select(0, indices), proposals.objectness.index_select(0, indices)};
}

}  // namespace

RpnHeadImpl::RpnHeadImpl(int64_t in_channels, int64_t anchors_per_location) {
  if (in_channels < 1)
    throw UserError("the RPN head needs at least one input channel, not " + std::to_string(in_channels));
  if (anchors_per_location < 1)
    throw UserError("the RPN head needs at least one anchor per location, not " + std::to_string(anchors_per_location));
  namespace nn = torch::nn;
  conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(in_channels, in_channels, 3).padding(1)));
  cls_logits = register_module("cls_logits", nn::Conv2d(nn::Conv2dOptions(in_channels, anchors_per_location, 1)));
  bbox_pred = register_module("bbox_pred", nn::Conv2d(nn::Conv2dOptions(in_channels, 4 * anchors_per_location, 1)));
  reset_parameters();
}

void RpnHeadImpl::reset_parameters() {
  for (const torch::nn::Conv2d& layer : {conv, cls_logits, bbox_pred}) {
    torch::nn::init::normal_(layer->weight, 0.0, 0.01);
    torch::nn::init::zeros_(layer->bias);
  }
}

RpnOutputs RpnHeadImpl::forward(const std::vector<torch::Tensor>& features) {
  RpnOutputs outputs;
  outputs.objectness.reserve(features.size());
  outputs.box_codes.reserve(features.size());
  for (const torch::Tensor& feature : features) {
    const torch::Tensor shared = torch::relu(conv->forward(feature));
    outputs.objectness.push_back(cls_logits->forward(shared));
    outputs.box_codes.push_back(bbox_pred->forward(shared));
  }
  return outputs;
}

void validate(const RpnOptions& options) {
  validate(options.anchors);
  require_at_least_one(options.pre_nms_top_n_train, "pre_nms_top_n_train");
  require_at_least_one(options.post_nms_top_n_train, "post_nms_top_n_train");
  require_at_least_one(options.pre_nms_top_n_test, "pre_nms_top_n_test");
  require_at_least_one(options.post_nms_top_n_test, "post_nms_top_n_test");
  require_at_least_one(options.fpn_post_nms_top_n_train, "fpn_post_nms_top_n_train");
  require_at_least_one(options.fpn_post_nms_top_n_test, "fpn_post_nms_top_n_test");
  if (!(options.min_size >= 0.0))
    throw UserError("RPN option 'min_size' is " + std::to_string(options.min_size) + "; it must be at least 0");
  if (!(options.matcher.low_threshold <= options.matcher.high_threshold))
    throw UserError("the RPN matcher's low IoU threshold (" + std::to_string(options.matcher.low_threshold) +
                    ") is above its high one (" + std::to_string(options.matcher.high_threshold) + ")");
  if (options.sampler.batch_size_per_image < 0 || !(options.sampler.positive_fraction >= 0.0) ||
      options.sampler.positive_fraction > 1.0)
    throw UserError("the RPN sampler needs a batch size per image >= 0 and a positive fraction in [0, 1]");
}

RpnLosses rpn_loss(const RpnOutputs& outputs, const std::vector<torch::Tensor>& anchors_per_level,
                   const std::vector<ImageSize>& image_sizes, const std::vector<ImageTargets>& targets,
                   const RpnOptions& options, torch::Generator& generator) {
  validate(options);
  MLH_ASSERT(!image_sizes.empty() && image_sizes.size() == targets.size());
  check_shapes(outputs, anchors_per_level, image_sizes.size());
  const FlatPredictions predictions = flatten(outputs);
  const torch::Tensor anchors = torch::cat(anchors_per_level, 0).to(predictions.box_codes.device());
  const common::BoxCoder coder(common::kRpnBoxCoderWeights);

  std::vector<torch::Tensor> labels, regression_targets;
  for (size_t i = 0; i < image_sizes.size(); ++i) {
    const torch::Tensor truth = targets[i].boxes_ltrb.to(anchors.device(), anchors.scalar_type());
    const torch::Tensor matches =
        common::match_proposals(common::box_iou(truth, anchors, common::BoxExtent::kInclusivePixels), options.matcher);
    const torch::Tensor visible = visible_anchors(anchors, image_sizes[i], options.anchors.straddle_threshold);
    const torch::Tensor ignored = (matches == common::kBetweenThresholds) | visible.logical_not();
    labels.push_back((matches >= 0).to(torch::kFloat).masked_fill(ignored, -1.0));
    // Every anchor's code against its match (ground truth 0 for the unmatched, as the reference), read
    // only at the positives.
    regression_targets.push_back(truth.size(0) == 0
                                     ? torch::zeros_like(anchors)
                                     : coder.encode(truth.index_select(0, matches.clamp_min(0)), anchors));
  }
  const std::vector<common::SampledMasks> samples = common::sample_balanced(labels, options.sampler, generator);
  std::vector<torch::Tensor> positives, negatives;
  for (const common::SampledMasks& sample : samples) {
    positives.push_back(sample.positive);
    negatives.push_back(sample.negative);
  }
  const torch::Tensor positive = torch::stack(positives);  // [N, T]
  const torch::Tensor sampled = positive | torch::stack(negatives);
  const torch::Tensor objectness = predictions.objectness;
  const torch::Tensor sampled_count = sampled.sum().to(objectness.scalar_type());
  const torch::Tensor zero = torch::zeros({}, objectness.options());

  RpnLosses losses;
  const torch::Tensor cross_entropy = torch::binary_cross_entropy_with_logits(
      objectness, positive.to(objectness.scalar_type()), /*weight=*/{}, /*pos_weight=*/{}, at::Reduction::None);
  losses.objectness = torch::where(sampled, cross_entropy, zero).sum() / sampled_count;
  const torch::Tensor positive_rows = positive.unsqueeze(2);
  const torch::Tensor zero_code = torch::zeros({}, predictions.box_codes.options());
  const torch::Tensor codes = torch::where(positive_rows, predictions.box_codes, zero_code);
  const torch::Tensor wanted =
      torch::where(positive_rows, torch::stack(regression_targets).to(codes.scalar_type()), zero_code);
  losses.box_regression = common::smooth_l1_loss_sum(codes, wanted, kBoxLossBeta) / sampled_count;
  return losses;
}

std::vector<RpnProposals> select_proposals(const RpnOutputs& outputs,
                                           const std::vector<torch::Tensor>& anchors_per_level,
                                           const std::vector<ImageSize>& image_sizes, const RpnOptions& options,
                                           bool training) {
  validate(options);
  check_shapes(outputs, anchors_per_level, image_sizes.size());
  torch::NoGradGuard no_grad;
  const int64_t images = static_cast<int64_t>(image_sizes.size());
  const int64_t pre_nms_top_n = training ? options.pre_nms_top_n_train : options.pre_nms_top_n_test;
  const int64_t post_nms_top_n = training ? options.post_nms_top_n_train : options.post_nms_top_n_test;
  const common::BoxCoder coder(common::kRpnBoxCoderWeights);

  std::vector<std::vector<RpnProposals>> per_image(image_sizes.size());  // [image][level]
  for (size_t l = 0; l < anchors_per_level.size(); ++l) {
    const torch::Tensor objectness = in_anchor_order(outputs.objectness[l].detach(), 1).squeeze(2).sigmoid();
    const torch::Tensor codes = in_anchor_order(outputs.box_codes[l].detach(), 4);
    const int64_t candidates = std::min(pre_nms_top_n, objectness.size(1));
    const auto [scores, chosen] = objectness.topk(candidates, 1, /*largest=*/true, /*sorted=*/true);
    const torch::Tensor chosen_codes = codes.gather(1, chosen.unsqueeze(2).expand({images, candidates, 4}));
    const torch::Tensor chosen_anchors = anchors_per_level[l]
                                             .to(codes.device(), codes.scalar_type())
                                             .index_select(0, chosen.reshape({-1}))
                                             .view({images, candidates, 4});
    const torch::Tensor boxes = coder.decode(chosen_codes, chosen_anchors);
    for (int64_t i = 0; i < images; ++i) {
      RpnProposals level{clipped_to(boxes[i], image_sizes[static_cast<size_t>(i)]), scores[i]};
      const torch::Tensor& b = level.boxes_ltrb;
      const torch::Tensor large_enough = (b.select(1, 2) - b.select(1, 0) + 1 >= options.min_size) &
                                         (b.select(1, 3) - b.select(1, 1) + 1 >= options.min_size);
      level = rows_of(level, large_enough.nonzero().squeeze(1));
      if (options.nms_threshold > 0.0) {
        const torch::Tensor kept =
            common::batched_nms(level.boxes_ltrb, level.objectness, torch::zeros_like(level.objectness, torch::kLong),
                                options.nms_threshold, common::BoxExtent::kInclusivePixels);
        level = rows_of(level, kept.slice(0, 0, post_nms_top_n));
      }
      per_image[static_cast<size_t>(i)].push_back(std::move(level));
    }
  }

  std::vector<RpnProposals> proposals;
  for (const std::vector<RpnProposals>& levels : per_image) {
    std::vector<torch::Tensor> boxes, scores;
    for (const RpnProposals& level : levels) {
      boxes.push_back(level.boxes_ltrb);
      scores.push_back(level.objectness);
    }
    proposals.push_back({torch::cat(boxes, 0), torch::cat(scores, 0)});
  }
  // The reference selects over the levels only with FPN (more than one level).
  if (anchors_per_level.size() == 1 || images == 0) return proposals;

  if (training) {
    std::vector<torch::Tensor> scores;
    std::vector<int64_t> counts;
    for (const RpnProposals& image : proposals) {
      scores.push_back(image.objectness);
      counts.push_back(image.objectness.size(0));
    }
    const torch::Tensor all_scores = torch::cat(scores, 0);
    const int64_t kept_count = std::min(options.fpn_post_nms_top_n_train, all_scores.size(0));
    const torch::Tensor best = std::get<1>(all_scores.topk(kept_count, 0, /*largest=*/true, /*sorted=*/true));
    const std::vector<torch::Tensor> chosen =
        torch::zeros_like(all_scores, torch::kBool).index_fill_(0, best, true).split_with_sizes(counts);
    for (size_t i = 0; i < proposals.size(); ++i) proposals[i] = rows_of(proposals[i], chosen[i].nonzero().squeeze(1));
  } else {
    for (RpnProposals& image : proposals) {
      const int64_t kept_count = std::min(options.fpn_post_nms_top_n_test, image.objectness.size(0));
      image = rows_of(image, std::get<1>(image.objectness.topk(kept_count, 0, /*largest=*/true, /*sorted=*/true)));
    }
  }
  return proposals;
}

}  // namespace mlh::maskrcnn
