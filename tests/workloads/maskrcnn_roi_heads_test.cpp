// Mask R-CNN's ROI heads (workloads/maskrcnn/box_head.h, mask_head.h) against the MLPerf v0.7
// reference's roi_heads/box_head and mask_head: layer shapes and parameter counts (torchvision's
// maskrcnn_resnet50_fpn has the same layers: 13,895,680 + 415,125 in the box head, 2,360,320 + 283,217
// in the mask head), initialisation, the training-time sampling, the losses on hand-built cases whose
// values are worked out in the comments, and the inference post-processing.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "datasets/coco/annotations.h"
#include "workloads/common/box_coder.h"
#include "workloads/common/proposal_matcher.h"
#include "workloads/maskrcnn/box_head.h"
#include "workloads/maskrcnn/mask_head.h"
#include "workloads/maskrcnn/mask_targets.h"
#include "workloads/maskrcnn/roi_align.h"

namespace mlh::maskrcnn {
namespace {

torch::Generator generator_of(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

torch::Tensor rows(const std::vector<std::vector<double>>& values, torch::Dtype dtype = torch::kFloat) {
  std::vector<double> flat;
  for (const auto& row : values) flat.insert(flat.end(), row.begin(), row.end());
  return torch::tensor(flat, torch::kDouble)
      .view({static_cast<int64_t>(values.size()), static_cast<int64_t>(values.front().size())})
      .to(dtype);
}

std::vector<int64_t> as_vector(const torch::Tensor& t) {
  const torch::Tensor v = t.to(torch::kLong).contiguous();
  return {v.data_ptr<int64_t>(), v.data_ptr<int64_t>() + v.numel()};
}

int64_t parameters_under(const torch::nn::Module& module, const std::vector<std::string>& prefixes) {
  int64_t count = 0;
  for (const auto& item : module.named_parameters())
    for (const std::string& prefix : prefixes)
      if (item.key().rfind(prefix + ".", 0) == 0) count += item.value().numel();
  return count;
}

coco::Segmentation polygons_object(const std::vector<std::vector<double>>& polygons) {
  coco::Segmentation object;
  object.kind = coco::Segmentation::Kind::kPolygons;
  object.polygons = polygons;
  return object;
}

std::vector<double> rectangle(double x1, double y1, double x2, double y2) { return {x1, y1, x2, y1, x2, y2, x1, y2}; }

ImageTargets image_targets(const std::vector<std::vector<double>>& boxes, const std::vector<int64_t>& labels) {
  ImageTargets targets;
  targets.boxes_ltrb = boxes.empty() ? torch::zeros({0, 4}) : rows(boxes);
  targets.labels = torch::tensor(labels, torch::kLong);
  for (const auto& box : boxes) targets.masks.push_back(polygons_object({rectangle(box[0], box[1], box[2], box[3])}));
  return targets;
}

// P2..P5 of a 64 x 64 image: 16, 8, 4, 2 pixels a side.
std::vector<torch::Tensor> small_features(int64_t images, int64_t channels) {
  std::vector<torch::Tensor> features;
  for (int64_t side : {16, 8, 4, 2}) features.push_back(torch::randn({images, channels, side, side}));
  return features;
}

// ---- Modules -------------------------------------------------------------------------------------

TEST(MaskRcnnBoxHead, HasTheReferenceLayersAndParameterCounts) {
  const BoxHead head;
  EXPECT_EQ(parameters_under(*head, {"fc6", "fc7"}), 13'895'680);  // 12544*1024+1024 + 1024*1024+1024
  EXPECT_EQ(parameters_under(*head, {"cls_score", "bbox_pred"}), 415'125);  // 1024*81+81 + 1024*324+324
  EXPECT_EQ(head->named_parameters().size(), 8u);
  EXPECT_EQ(head->fc6->weight.sizes(), (std::vector<int64_t>{1024, 256 * 7 * 7}));
  EXPECT_EQ(head->bbox_pred->weight.sizes(), (std::vector<int64_t>{4 * 81, 1024}));
}

TEST(MaskRcnnBoxHead, InitialisesAsTheReference) {
  torch::manual_seed(0);
  const BoxHead head;
  for (const auto& item : head->named_parameters())
    if (item.key().find("bias") != std::string::npos) {
      EXPECT_EQ(item.value().abs().max().item<float>(), 0.0f) << item.key();
    }
  // make_fc: Kaiming uniform with a = 1 (gain 1): U(-sqrt(3 / fan_in), sqrt(3 / fan_in)).
  const double fc6_bound = std::sqrt(3.0 / (256 * 7 * 7));
  EXPECT_LE(head->fc6->weight.abs().max().item<double>(), fc6_bound);
  EXPECT_GT(head->fc6->weight.abs().max().item<double>(), 0.99 * fc6_bound);
  EXPECT_NEAR(head->fc7->weight.std().item<double>(), std::sqrt(3.0 / 1024) / std::sqrt(3.0), 1e-4);
  EXPECT_NEAR(head->cls_score->weight.std().item<double>(), 0.01, 2e-4);
  EXPECT_NEAR(head->bbox_pred->weight.std().item<double>(), 0.001, 2e-5);
}

TEST(MaskRcnnMaskHead, HasTheReferenceLayersAndParameterCounts) {
  const MaskHead head;
  EXPECT_EQ(parameters_under(*head, {"mask_fcn1", "mask_fcn2", "mask_fcn3", "mask_fcn4"}), 2'360'320);  // 4*(256*256*9+256)
  EXPECT_EQ(parameters_under(*head, {"conv5_mask", "mask_fcn_logits"}), 283'217);  // 256*256*4+256 + 256*81+81
  EXPECT_EQ(head->named_parameters().size(), 12u);
  EXPECT_EQ(head->conv5_mask->weight.sizes(), (std::vector<int64_t>{256, 256, 2, 2}));
  EXPECT_EQ(head->mask_fcn_logits->weight.sizes(), (std::vector<int64_t>{81, 256, 1, 1}));
}

TEST(MaskRcnnMaskHead, InitialisesKaimingNormalFanOut) {
  torch::manual_seed(0);
  const MaskHead head;
  for (const auto& item : head->named_parameters())
    if (item.key().find("bias") != std::string::npos) {
      EXPECT_EQ(item.value().abs().max().item<float>(), 0.0f) << item.key();
    }
  // std sqrt(2 / fan_out), fan_out = weight.size(0) * kernel area.
  EXPECT_NEAR(head->convs[0]->weight.std().item<double>(), std::sqrt(2.0 / (256 * 9)), 3e-4);
  EXPECT_NEAR(head->conv5_mask->weight.std().item<double>(), std::sqrt(2.0 / (256 * 4)), 5e-4);
  EXPECT_NEAR(head->mask_fcn_logits->weight.std().item<double>(), std::sqrt(2.0 / 81), 3e-3);
}

TEST(MaskRcnnRoiHeads, ForwardShapesAndTheBoxHeadsLayers) {
  torch::manual_seed(1);
  BoxHeadOptions box_options;
  box_options.num_classes = 3;
  box_options.in_channels = 4;
  box_options.representation_size = 8;
  BoxHead box_head(box_options);
  MaskHeadOptions mask_options;
  mask_options.num_classes = 3;
  mask_options.in_channels = 4;
  mask_options.conv_layers = {6, 5};
  MaskHead mask_head(mask_options);

  const std::vector<torch::Tensor> features = small_features(2, 4);
  const torch::Tensor rois = rois_from_boxes({rows({{0, 0, 20, 30}, {8, 8, 60, 60}}), rows({{4, 4, 40, 12}})});
  EXPECT_TRUE(torch::equal(rois.select(1, 0), torch::tensor({0.0f, 0.0f, 1.0f})));
  EXPECT_TRUE(torch::equal(rois.slice(1, 1), rows({{0, 0, 20, 30}, {8, 8, 60, 60}, {4, 4, 40, 12}})));

  const BoxHeadOutputs outputs = box_head(features, rois);
  EXPECT_EQ(outputs.class_logits.sizes(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(outputs.box_codes.sizes(), (std::vector<int64_t>{3, 12}));
  // fc6 reads the pooled features flattened channel, row, column.
  const torch::Tensor pooled = multi_level_roi_align(features, rois, 7, box_options.pooler_scales, 2).flatten(1);
  const torch::Tensor hidden = torch::relu(box_head->fc7(torch::relu(box_head->fc6(pooled))));
  EXPECT_TRUE(torch::allclose(outputs.class_logits, box_head->cls_score(hidden)));
  EXPECT_TRUE(torch::allclose(outputs.box_codes, box_head->bbox_pred(hidden)));

  EXPECT_EQ(mask_head(features, rois).sizes(), (std::vector<int64_t>{3, 3, 28, 28}));
  const torch::Tensor no_rois = torch::zeros({0, 5});
  EXPECT_EQ(box_head(features, no_rois).box_codes.sizes(), (std::vector<int64_t>{0, 12}));
  EXPECT_EQ(mask_head(features, no_rois).sizes(), (std::vector<int64_t>{0, 3, 28, 28}));
}

// ---- sample_proposals ----------------------------------------------------------------------------

// The row of `candidates` equal to `box`, or -1.
int64_t row_of(const torch::Tensor& candidates, const torch::Tensor& box) {
  const torch::Tensor equal = (candidates == box.unsqueeze(0)).all(1).nonzero();
  return equal.size(0) == 0 ? -1 : equal[0][0].item<int64_t>();
}

// 10x10 boxes at distinct places far from (200..299, 200..299), where the objects are.
torch::Tensor background_proposals(int64_t count) {
  std::vector<std::vector<double>> boxes;
  for (int64_t k = 0; k < count; ++k) {
    const double x = 12.0 * static_cast<double>(k % 15), y = 12.0 * static_cast<double>(k / 15);
    boxes.push_back({x, y, x + 9, y + 9});
  }
  return rows(boxes);
}

TEST(MaskRcnnSampleProposals, TakesAtMost512AQuarterPositiveInProposalOrder) {
  // 400 background proposals and 300 proposals over object 1 (shifted by 0..2 pixels: IoU >= 0.94).
  std::vector<std::vector<double>> over_object;
  for (int64_t k = 0; k < 300; ++k) {
    const double shift = static_cast<double>(k % 3), grow = static_cast<double>(k / 3 + 1) * 1e-3;
    over_object.push_back({200 + shift, 200, 299 + shift + grow, 299});
  }
  const torch::Tensor proposals = torch::cat({background_proposals(400), rows(over_object)}, 0);
  const ImageTargets targets = image_targets({{500, 500, 549, 549}, {200, 200, 299, 299}}, {7, 3});
  torch::Generator generator = generator_of(3);
  const SampledProposals sampled = sample_proposals({proposals}, {targets}, BoxHeadOptions{}, generator);

  ASSERT_EQ(sampled.labels.size(), 1u);
  const torch::Tensor labels = sampled.labels[0];
  EXPECT_EQ(labels.size(0), 512);
  EXPECT_EQ((labels > 0).sum().item<int64_t>(), 128);  // 302 candidates, floor(512 * 0.25) taken
  EXPECT_EQ((labels == 0).sum().item<int64_t>(), 384);
  const torch::Tensor candidates = torch::cat({proposals, targets.boxes_ltrb}, 0);
  int64_t previous = -1;
  for (int64_t s = 0; s < 512; ++s) {
    const torch::Tensor box = sampled.boxes_ltrb[0][s];
    const int64_t row = row_of(candidates, box);
    ASSERT_GT(row, previous) << "sampled ROIs keep the candidates' order";
    previous = row;
    const int64_t label = labels[s].item<int64_t>();
    const int64_t matched = sampled.matched_gt[0][s].item<int64_t>();
    if (row >= 400) {
      EXPECT_EQ(label, row == 700 ? 7 : 3);
      EXPECT_EQ(matched, row == 700 ? 0 : 1);
      const torch::Tensor expected = common::BoxCoder(common::kRoiBoxCoderWeights)
                                         .encode(targets.boxes_ltrb[matched].unsqueeze(0), box.unsqueeze(0));
      EXPECT_TRUE(torch::allclose(sampled.regression_targets[0][s], expected[0]));
    } else {
      EXPECT_EQ(label, 0);
      EXPECT_EQ(matched, common::kBelowLowThreshold);
    }
  }
}

TEST(MaskRcnnSampleProposals, AddsTheGroundTruthSoEveryObjectIsAPositive) {
  // No proposal overlaps the objects: the positives are the two appended ground-truth boxes, each
  // matched to itself with regression targets 0.
  const torch::Tensor proposals = background_proposals(600);
  const ImageTargets targets = image_targets({{500, 500, 549, 549}, {200, 200, 299, 299}}, {7, 3});
  torch::Generator generator = generator_of(4);
  const SampledProposals sampled = sample_proposals({proposals}, {targets}, BoxHeadOptions{}, generator);
  EXPECT_EQ(sampled.labels[0].size(0), 512);  // 2 positives + 510 of the 600 negatives
  const SampledProposals positives = positive_proposals(sampled);
  EXPECT_TRUE(torch::equal(positives.boxes_ltrb[0], targets.boxes_ltrb));
  EXPECT_EQ(as_vector(positives.labels[0]), (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(as_vector(positives.matched_gt[0]), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(torch::equal(positives.regression_targets[0], torch::zeros({2, 4})));
}

TEST(MaskRcnnSampleProposals, MatchesAtIoUHalfWithInclusivePixels) {
  // Object (0, 0, 19, 9): 20 x 10 pixels. Proposal (0, 0, 9, 9): 100 / 200 = 0.5, a positive (with
  // continuous extents it would be 81 / 171 < 0.5). Proposal (0, 0, 8, 9): 90 / 200 = 0.45, background.
  const torch::Tensor proposals = rows({{0, 0, 8, 9}, {0, 0, 9, 9}});
  const ImageTargets targets = image_targets({{0, 0, 19, 9}}, {5});
  torch::Generator generator = generator_of(5);
  const SampledProposals sampled = sample_proposals({proposals}, {targets}, BoxHeadOptions{}, generator);
  EXPECT_EQ(as_vector(sampled.labels[0]), (std::vector<int64_t>{0, 5, 5}));
  EXPECT_EQ(as_vector(sampled.matched_gt[0]), (std::vector<int64_t>{common::kBelowLowThreshold, 0, 0}));
}

TEST(MaskRcnnSampleProposals, ImagesWithoutObjectsAreAllBackgroundAndDrawsRepeat) {
  const torch::Tensor proposals = background_proposals(600);
  const std::vector<ImageTargets> targets{image_targets({}, {}), image_targets({{200, 200, 299, 299}}, {2})};
  torch::Generator first = generator_of(9), again = generator_of(9);
  const SampledProposals a = sample_proposals({proposals, proposals}, targets, BoxHeadOptions{}, first);
  const SampledProposals b = sample_proposals({proposals, proposals}, targets, BoxHeadOptions{}, again);
  EXPECT_EQ(a.labels[0].size(0), 512);
  EXPECT_EQ((a.labels[0] > 0).sum().item<int64_t>(), 0);
  EXPECT_EQ((a.labels[1] > 0).sum().item<int64_t>(), 1);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(torch::equal(a.boxes_ltrb[i], b.boxes_ltrb[i]));
  EXPECT_FALSE(torch::equal(a.boxes_ltrb[0], a.boxes_ltrb[1].narrow(0, 0, 512)));  // one draw an image
}

// ---- box_head_loss ------------------------------------------------------------------------------

TEST(MaskRcnnBoxHeadLoss, CrossEntropyAndSmoothL1OverThePositivesOwnClass) {
  // Three sampled ROIs over two images, 3 classes: labels 1 | 0, 2.
  SampledProposals sampled;
  sampled.labels = {torch::tensor({1}, torch::kLong), torch::tensor({0, 2}, torch::kLong)};
  const double nan = std::nan("");
  sampled.regression_targets = {rows({{0, 0, 0, 0.25}}), rows({{nan, nan, nan, nan}, {0, 0, 0, 0}})};
  BoxHeadOutputs outputs;
  // Cross entropy logsumexp(row) - row[label]: ln 3; ln 4 - ln 2 = ln 2; ln 4 - ln 2 = ln 2.
  outputs.class_logits = rows({{0, 0, 0}, {std::log(2.0), 0, 0}, {0, 0, std::log(2.0)}}).requires_grad_(true);
  // ROI 0, class 1 (columns 4..7): |d| = 0.5, 2, 1, 0.25 -> 0.125 + 1.5 + 0.5 + 0.03125 = 2.15625.
  // ROI 2, class 2 (columns 8..11): |d| = 1.5, 0, 0, 0 -> 1. The other columns are never read.
  outputs.box_codes = rows({{9, 9, 9, 9, 0.5, 2, -1, 0, 9, 9, 9, 9},
                            {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9},
                            {9, 9, 9, 9, 9, 9, 9, 9, -1.5, 0, 0, 0}})
                          .requires_grad_(true);
  const BoxHeadLosses losses = box_head_loss(outputs, sampled);
  EXPECT_NEAR(losses.classification.item<double>(), (std::log(3.0) + 2 * std::log(2.0)) / 3, 1e-6);
  EXPECT_NEAR(losses.box_regression.item<double>(), (2.15625 + 1.0) / 3, 1e-6);  // over all 3 sampled

  (losses.classification + losses.box_regression).backward();
  // d/dcode of the smooth L1 / 3: d / 3 inside beta, sign(d) / 3 outside; 0 for unread columns.
  const torch::Tensor expected = rows({{0, 0, 0, 0, 0.5 / 3, 1.0 / 3, -1.0 / 3, -0.25 / 3, 0, 0, 0, 0},
                                       {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                                       {0, 0, 0, 0, 0, 0, 0, 0, -1.0 / 3, 0, 0, 0}});
  EXPECT_TRUE(torch::allclose(outputs.box_codes.grad(), expected, 1e-5, 1e-7)) << outputs.box_codes.grad();
  EXPECT_FALSE(outputs.class_logits.grad().isnan().any().item<bool>());
}

// ---- detect_boxes --------------------------------------------------------------------------------

// Logits whose softmax is `probabilities` (rows summing to 1).
torch::Tensor logits_of(const std::vector<std::vector<double>>& probabilities) { return rows(probabilities).log(); }

TEST(MaskRcnnDetectBoxes, ThresholdsScoresAndDecodesPerClass) {
  BoxHeadOptions options;
  options.num_classes = 3;
  BoxHeadOutputs outputs;
  // Proposal 0: nothing above 0.05. Proposal 1: class 1 (0.6) and class 2 (0.1).
  outputs.class_logits = logits_of({{0.94, 0.04, 0.02}, {0.3, 0.6, 0.1}});
  // Proposal 1 = (100, 100, 109, 109), 10 x 10: class 1's code dx = 10 (weight 10) moves it by its
  // width to (110, 100, 119, 109); class 2's zero code gives the proposal back.
  outputs.box_codes = torch::zeros({2, 12});
  outputs.box_codes[1][4] = 10.0;
  const std::vector<torch::Tensor> proposals{rows({{0, 0, 9, 9}, {100, 100, 109, 109}})};
  const std::vector<ImageDetections> detections = detect_boxes(outputs, proposals, {{300, 400}}, options);
  ASSERT_EQ(detections.size(), 1u);
  EXPECT_EQ(as_vector(detections[0].labels), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(torch::allclose(detections[0].scores, torch::tensor({0.6f, 0.1f})));
  EXPECT_TRUE(torch::allclose(detections[0].boxes_ltrb, rows({{110, 100, 119, 109}, {100, 100, 109, 109}})));
}

TEST(MaskRcnnDetectBoxes, SuppressesWithinAClassAndKeepsTheReferenceOrder) {
  BoxHeadOptions options;
  options.num_classes = 3;
  BoxHeadOutputs outputs;
  // A = (0, 0, 9, 9) and B = (0, 0, 9, 10): IoU 100 / 110, over 0.5. C far away.
  // Class 1: A 0.6 < B 0.7: A suppressed; C 0.8. Class 2: A 0.3, not suppressed by B's class 1.
  outputs.class_logits = logits_of({{0.1, 0.6, 0.3}, {0.3, 0.7, 0.0}, {0.2, 0.8, 0.0}});
  outputs.box_codes = torch::zeros({3, 12});
  const std::vector<torch::Tensor> proposals{rows({{0, 0, 9, 9}, {0, 0, 9, 10}, {50, 50, 59, 59}})};
  const ImageDetections detections = detect_boxes(outputs, proposals, {{100, 100}}, options)[0];
  // By class, then by proposal (not by score): (1, B), (1, C), (2, A).
  EXPECT_EQ(as_vector(detections.labels), (std::vector<int64_t>{1, 1, 2}));
  EXPECT_TRUE(torch::allclose(detections.scores, torch::tensor({0.7f, 0.8f, 0.3f})));
  EXPECT_TRUE(torch::equal(detections.boxes_ltrb, rows({{0, 0, 9, 10}, {50, 50, 59, 59}, {0, 0, 9, 9}})));
}

TEST(MaskRcnnDetectBoxes, ClipsToTheImage) {
  BoxHeadOptions options;
  options.num_classes = 2;
  BoxHeadOutputs outputs;
  outputs.class_logits = logits_of({{0.1, 0.9}});
  outputs.box_codes = torch::zeros({1, 8});
  // Width 16, height 25: x in [0, 15], y in [0, 24].
  const ImageDetections detections = detect_boxes(outputs, {rows({{-5, -5, 20, 30}})}, {{25, 16}}, options)[0];
  EXPECT_TRUE(torch::equal(detections.boxes_ltrb, rows({{0, 0, 15, 24}})));
}

// 150 disjoint 10 x 10 proposals, class 1 scoring sigmoid(x_k) for the given logits x_k (2 classes).
BoxHeadOutputs disjoint_outputs(const std::vector<double>& class1_logits, std::vector<torch::Tensor>& proposals) {
  const auto count = static_cast<int64_t>(class1_logits.size());
  proposals = {background_proposals(count)};
  BoxHeadOutputs outputs;
  outputs.class_logits = torch::stack({torch::zeros({count}), torch::tensor(class1_logits, torch::kDouble).to(torch::kFloat)}, 1);
  outputs.box_codes = torch::zeros({count, 8});
  return outputs;
}

TEST(MaskRcnnDetectBoxes, KeepsTheHundredBestInProposalOrder) {
  BoxHeadOptions options;
  options.num_classes = 2;
  std::vector<double> logits;
  for (int64_t k = 0; k < 150; ++k) logits.push_back(static_cast<double>((k * 37) % 150) / 50.0);  // distinct
  std::vector<torch::Tensor> proposals;
  const BoxHeadOutputs outputs = disjoint_outputs(logits, proposals);
  const ImageDetections detections = detect_boxes(outputs, proposals, {{1000, 1000}}, options)[0];
  ASSERT_EQ(detections.scores.size(0), 100);
  // Kept: the proposals whose logit rank is in the top 100, i.e. (k * 37) % 150 >= 50, in order of k.
  const torch::Tensor all = proposals[0];
  int64_t d = 0;
  for (int64_t k = 0; k < 150; ++k) {
    if ((k * 37) % 150 < 50) continue;
    EXPECT_TRUE(torch::equal(detections.boxes_ltrb[d], all[k])) << "detection " << d << " proposal " << k;
    ++d;
  }
}

TEST(MaskRcnnDetectBoxes, KeepsEveryTieAtTheHundredthScore) {
  BoxHeadOptions options;
  options.num_classes = 2;
  // 99 at logit 2, then 3 tied at logit 1 (the 100th highest score), 48 at logit 0.
  std::vector<double> logits(99, 2.0);
  logits.insert(logits.end(), 3, 1.0);
  logits.insert(logits.end(), 48, 0.0);
  std::vector<torch::Tensor> proposals;
  const ImageDetections detections = detect_boxes(disjoint_outputs(logits, proposals), proposals, {{1000, 1000}}, options)[0];
  EXPECT_EQ(detections.scores.size(0), 102);  // the reference's kthvalue rule: scores >= the 100th
  options.detections_per_image = 0;           // no cap
  EXPECT_EQ(detect_boxes(disjoint_outputs(logits, proposals), proposals, {{1000, 1000}}, options)[0].scores.size(0), 150);
}

TEST(MaskRcnnDetectBoxes, SplitsTheBatchPerImage) {
  BoxHeadOptions options;
  options.num_classes = 3;
  BoxHeadOutputs outputs;
  outputs.class_logits = logits_of({{0.1, 0.9, 0.0}, {0.1, 0.0, 0.9}});
  outputs.box_codes = torch::zeros({2, 12});
  const std::vector<torch::Tensor> proposals{torch::zeros({0, 4}), rows({{0, 0, 9, 9}}), rows({{5, 5, 9, 9}})};
  const std::vector<ImageDetections> detections =
      detect_boxes(outputs, proposals, {{50, 50}, {50, 50}, {8, 8}}, options);
  ASSERT_EQ(detections.size(), 3u);
  EXPECT_EQ(detections[0].scores.size(0), 0);
  EXPECT_EQ(as_vector(detections[1].labels), (std::vector<int64_t>{1}));
  EXPECT_EQ(as_vector(detections[2].labels), (std::vector<int64_t>{2}));
  EXPECT_TRUE(torch::equal(detections[2].boxes_ltrb, rows({{5, 5, 7, 7}})));  // clipped to its own 8 x 8
}

// ---- Mask loss and inference ---------------------------------------------------------------------

TEST(MaskRcnnMaskLoss, BinaryCrossEntropyOnTheLabelsChannel) {
  // Two images, M = 4. Image 0's positive matches object 1, whose polygon covers its box: target all 1.
  // Image 1's positive matches object 0, far from its box: target all 0.
  std::vector<ImageTargets> targets(2);
  targets[0].masks = {polygons_object({rectangle(100, 100, 120, 120)}), polygons_object({rectangle(-10, -10, 30, 30)})};
  targets[1].masks = {polygons_object({rectangle(100, 100, 120, 120)})};
  const std::vector<torch::Tensor> boxes{rows({{0, 0, 8, 8}}), rows({{0, 0, 8, 8}})};
  const std::vector<torch::Tensor> labels{torch::tensor({2}, torch::kLong), torch::tensor({1}, torch::kLong)};
  const std::vector<torch::Tensor> matched{torch::tensor({1}, torch::kLong), torch::tensor({0}, torch::kLong)};
  ASSERT_TRUE(torch::equal(mask_targets(targets[0].masks, matched[0], boxes[0], 4), torch::ones({1, 4, 4})));
  ASSERT_TRUE(torch::equal(mask_targets(targets[1].masks, matched[1], boxes[1], 4), torch::zeros({1, 4, 4})));

  // Own channels: ROI 0 channel 2 at a = 1, ROI 1 channel 1 at b = -2; every other channel 50.
  const double a = 1.0, b = -2.0;
  torch::Tensor logits = torch::full({2, 3, 4, 4}, 50.0);
  logits[0][2].fill_(a);
  logits[1][1].fill_(b);
  logits.requires_grad_(true);
  const torch::Tensor loss = mask_head_loss(logits, boxes, labels, matched, targets);
  // Per pixel: target 1, logit a: ln(1 + e^-a); target 0, logit b: ln(1 + e^b); mean of the two halves.
  EXPECT_NEAR(loss.item<double>(), (std::log1p(std::exp(-a)) + std::log1p(std::exp(b))) / 2, 1e-6);
  loss.backward();
  EXPECT_EQ(logits.grad()[0][0].abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(logits.grad()[0][1].abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(logits.grad()[1][2].abs().sum().item<float>(), 0.0f);
  // d/dlogit (sigmoid - target) / 32 pixels.
  EXPECT_NEAR(logits.grad()[0][2][0][0].item<double>(), (1 / (1 + std::exp(-a)) - 1) / 32, 1e-7);
}

TEST(MaskRcnnMaskLoss, NoPositivesGiveAZeroThatKeepsTheGraph) {
  const torch::Tensor logits = torch::randn({0, 81, 28, 28}).requires_grad_(true);
  const torch::Tensor empty_boxes = torch::zeros({0, 4});
  const torch::Tensor empty_index = torch::zeros({0}, torch::kLong);
  const torch::Tensor loss = mask_head_loss(logits, {empty_boxes}, {empty_index}, {empty_index}, {ImageTargets{}});
  EXPECT_EQ(loss.item<float>(), 0.0f);
  EXPECT_TRUE(loss.requires_grad());
  loss.backward();
}

TEST(MaskRcnnMaskProbabilities, SigmoidOfEachDetectionsClass) {
  const torch::Tensor logits = torch::randn({2, 3, 2, 2});
  const torch::Tensor probabilities = mask_probabilities(logits, torch::tensor({2, 0}, torch::kLong));
  EXPECT_EQ(probabilities.sizes(), (std::vector<int64_t>{2, 1, 2, 2}));
  EXPECT_TRUE(torch::allclose(probabilities[0][0], logits[0][2].sigmoid()));
  EXPECT_TRUE(torch::allclose(probabilities[1][0], logits[1][0].sigmoid()));
  EXPECT_EQ(mask_probabilities(torch::zeros({0, 3, 28, 28}), torch::zeros({0}, torch::kLong)).sizes(),
            (std::vector<int64_t>{0, 1, 28, 28}));
}

}  // namespace
}  // namespace mlh::maskrcnn
