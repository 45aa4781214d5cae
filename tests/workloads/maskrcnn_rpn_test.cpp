// Mask R-CNN's RPN (workloads/maskrcnn/anchors.h, rpn.h; common/smooth_l1.h) against the MLPerf v0.7
// reference's rpn/ code: the cell anchors of Detectron's generate_anchors (goldens printed by
// tools/make_rpn_goldens.py, which restates it in numpy; checked against the reference's own function),
// and hand-built cases whose answers follow from the reference's rules, written as the formula they
// come from.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <array>
#include <cmath>
#include <vector>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/smooth_l1.h"
#include "workloads/maskrcnn/anchors.h"
#include "workloads/maskrcnn/rpn.h"

namespace mlh::maskrcnn {
namespace {

using Box = std::array<double, 4>;

torch::Tensor boxes_of(const std::vector<Box>& boxes) {
  std::vector<double> flat;
  for (const Box& box : boxes) flat.insert(flat.end(), box.begin(), box.end());
  return torch::tensor(flat, torch::kDouble).view({-1, 4}).to(torch::kFloat);
}

std::vector<Box> rows_of(const torch::Tensor& boxes) {
  const torch::Tensor values = boxes.to(torch::kDouble).contiguous();
  std::vector<Box> rows;
  for (int64_t r = 0; r < values.size(0); ++r)
    rows.push_back({values[r][0].item<double>(), values[r][1].item<double>(), values[r][2].item<double>(),
                    values[r][3].item<double>()});
  return rows;
}

std::vector<double> values_of(const torch::Tensor& t) {
  const torch::Tensor v = t.to(torch::kDouble).contiguous();
  return {v.data_ptr<double>(), v.data_ptr<double>() + v.numel()};
}

torch::Generator generator_of(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

// ---- anchors ----------------------------------------------------------------------------------------

struct CellGolden {
  double stride, size;
  std::vector<Box> anchors;  // ratios 0.5, 1, 2
};

// tools/make_rpn_goldens.py. At stride 32 the 0.5 ratio's height is round(22.5) = 22 (half to even:
// 176 = 22 * 8 pixels high), where rounding half away from zero would give 23.
const std::vector<CellGolden> kCellGoldens = {
    {4, 32, {{-22.0, -10.0, 25.0, 13.0}, {-14.0, -14.0, 17.0, 17.0}, {-10.0, -22.0, 13.0, 25.0}}},
    {8, 64, {{-40.0, -20.0, 47.0, 27.0}, {-28.0, -28.0, 35.0, 35.0}, {-20.0, -44.0, 27.0, 51.0}}},
    {16, 128, {{-84.0, -40.0, 99.0, 55.0}, {-56.0, -56.0, 71.0, 71.0}, {-36.0, -80.0, 51.0, 95.0}}},
    {32, 256, {{-164.0, -72.0, 195.0, 103.0}, {-112.0, -112.0, 143.0, 143.0}, {-76.0, -168.0, 107.0, 199.0}}},
    {64, 512, {{-332.0, -152.0, 395.0, 215.0}, {-224.0, -224.0, 287.0, 287.0}, {-148.0, -328.0, 211.0, 391.0}}},
};

TEST(Anchors, CellAnchorsAreDetectronsForEveryLevel) {
  for (const CellGolden& golden : kCellGoldens) {
    const torch::Tensor cells = cell_anchors(golden.stride, golden.size, {0.5, 1.0, 2.0});
    EXPECT_EQ(cells.scalar_type(), torch::kFloat);
    EXPECT_EQ(rows_of(cells), golden.anchors) << "stride " << golden.stride;
  }
}

TEST(Anchors, CellAnchorsOfSeveralRatiosFollowTheGivenOrder) {
  // The Faster R-CNN paper's stride-16 anchors (Detectron's generate_anchors docstring, whose matlab
  // values are these shifted by half a pixel): ratio 1 at size 128 is a 128-pixel square around 7.5.
  EXPECT_EQ(rows_of(cell_anchors(16, 128, {1.0})), (std::vector<Box>{{-56, -56, 71, 71}}));
  EXPECT_EQ(rows_of(cell_anchors(16, 128, {2.0, 0.5})),
            (std::vector<Box>{{-36.0, -80.0, 51.0, 95.0}, {-84.0, -40.0, 99.0, 55.0}}));
}

TEST(Anchors, GridAnchorsAreLocationMajorWithTheCellAnchorsInside) {
  const AnchorOptions options;
  const std::vector<std::array<int64_t, 2>> grids = {{2, 3}, {2, 2}, {1, 2}, {1, 1}, {1, 1}};
  const std::vector<torch::Tensor> levels = grid_anchors(options, grids, torch::kCPU);
  ASSERT_EQ(levels.size(), 5U);
  EXPECT_EQ(anchors_per_location(options), 3);
  for (size_t l = 0; l < levels.size(); ++l) {
    const auto [height, width] = grids[l];
    const double stride = options.strides[l];
    ASSERT_EQ(levels[l].sizes(), (torch::IntArrayRef{height * width * 3, 4}));
    EXPECT_EQ(levels[l].scalar_type(), torch::kFloat);
    const std::vector<Box> rows = rows_of(levels[l]);
    const std::vector<Box>& cells = kCellGoldens[l].anchors;
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x)
        for (size_t a = 0; a < 3; ++a) {
          const Box& cell = cells[a];
          const double dx = static_cast<double>(x) * stride, dy = static_cast<double>(y) * stride;
          EXPECT_EQ(rows[static_cast<size_t>((y * width + x) * 3) + a],
                    (Box{cell[0] + dx, cell[1] + dy, cell[2] + dx, cell[3] + dy}))
              << "level " << l << " y " << y << " x " << x << " anchor " << a;
        }
  }
}

TEST(Anchors, GridSizesAreTheFeatureMapsHeightAndWidth) {
  const std::vector<std::array<int64_t, 2>> sizes =
      grid_sizes({torch::zeros({2, 4, 5, 7}), torch::zeros({2, 4, 3, 4})});
  EXPECT_EQ(sizes, (std::vector<std::array<int64_t, 2>>{{5, 7}, {3, 4}}));
}

TEST(Anchors, VisibilityWithStraddleZeroKeepsTheAnchorsInsideTheImage) {
  const ImageSize image{20, 30};  // height 20, width 30
  const torch::Tensor anchors = boxes_of({
      {0, 0, 29, 19},    // the whole image
      {-1, 0, 10, 10},   // one pixel past the left
      {0, -0.5, 10, 10}, // past the top
      {0, 0, 30, 10},    // right = width
      {0, 0, 10, 20},    // bottom = height
      {5, 5, 29.9, 19.9},
  });
  const torch::Tensor visible = visible_anchors(anchors, image, 0.0);
  EXPECT_EQ(visible.scalar_type(), torch::kBool);
  EXPECT_EQ(values_of(visible), (std::vector<double>{1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(values_of(visible_anchors(anchors, image, 1.0)), (std::vector<double>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(values_of(visible_anchors(anchors, image, -1.0)), (std::vector<double>{1, 1, 1, 1, 1, 1}));
}

TEST(Anchors, RejectsOptionsThatDoNotDescribeTheLevels) {
  AnchorOptions options;
  options.sizes.pop_back();
  EXPECT_THROW(validate(options), UserError);
  EXPECT_THROW(grid_anchors(options, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, torch::kCPU), UserError);
  options = AnchorOptions{};
  options.aspect_ratios = {};
  EXPECT_THROW(validate(options), UserError);
  options = AnchorOptions{};
  options.strides[2] = 0;
  EXPECT_THROW(validate(options), UserError);
  EXPECT_THROW(grid_anchors(AnchorOptions{}, {{1, 1}, {1, 1}}, torch::kCPU), UserError) << "fewer maps than levels";
  EXPECT_NO_THROW(validate(AnchorOptions{}));
}

// ---- head -------------------------------------------------------------------------------------------

TEST(RpnHead, GivesAObjectnessAnd4ACodesPerLocationOnEveryLevel) {
  RpnHead head(256, 3);
  const RpnOutputs outputs = head->forward({torch::randn({2, 256, 8, 10}), torch::randn({2, 256, 4, 5})});
  ASSERT_EQ(outputs.objectness.size(), 2U);
  ASSERT_EQ(outputs.box_codes.size(), 2U);
  EXPECT_EQ(outputs.objectness[0].sizes(), (torch::IntArrayRef{2, 3, 8, 10}));
  EXPECT_EQ(outputs.box_codes[0].sizes(), (torch::IntArrayRef{2, 12, 8, 10}));
  EXPECT_EQ(outputs.objectness[1].sizes(), (torch::IntArrayRef{2, 3, 4, 5}));
  EXPECT_EQ(outputs.box_codes[1].sizes(), (torch::IntArrayRef{2, 12, 4, 5}));
}

TEST(RpnHead, HasTheReferencesParametersAndInitialisation) {
  RpnHead head(256, 3);
  int64_t count = 0;
  for (const torch::Tensor& p : head->parameters()) count += p.numel();
  EXPECT_EQ(count, 593935);  // 256*256*9 + 256 + 256*3 + 3 + 256*12 + 12
  const auto named = head->named_parameters();
  for (const char* name : {"conv.weight", "conv.bias", "cls_logits.weight", "cls_logits.bias", "bbox_pred.weight",
                           "bbox_pred.bias"})
    EXPECT_NE(named.find(name), nullptr) << name;
  EXPECT_EQ(named["bbox_pred.weight"].sizes(), (torch::IntArrayRef{12, 256, 1, 1}));
  for (const char* bias : {"conv.bias", "cls_logits.bias", "bbox_pred.bias"})
    EXPECT_EQ(named[bias].abs().max().item<float>(), 0.0f) << bias;
  // 589,824 draws of N(0, 0.01^2): the sample std is within 1% of 0.01 by far.
  EXPECT_NEAR(named["conv.weight"].std().item<double>(), 0.01, 1e-4);
  EXPECT_NEAR(named["conv.weight"].mean().item<double>(), 0.0, 1e-4);
  EXPECT_THROW(RpnHead(0, 3), UserError);
}

// ---- predictions laid out as the head gives them ------------------------------------------------------

// One level's objectness [N, A, H, W] and codes [N, 4A, H, W] from values per image in anchor order
// (row (y * W + x) * A + a; codes four per row).
struct LevelValues {
  int64_t height, width, anchors;
  std::vector<std::vector<double>> objectness;  // [image][row]
  std::vector<std::vector<double>> codes;       // [image][row * 4 + c]
};

void append_level(RpnOutputs& outputs, const LevelValues& level) {
  const auto n = static_cast<int64_t>(level.objectness.size());
  const int64_t h = level.height, w = level.width, a = level.anchors;
  std::vector<double> objectness, codes;
  for (const auto& image : level.objectness) objectness.insert(objectness.end(), image.begin(), image.end());
  for (const auto& image : level.codes) codes.insert(codes.end(), image.begin(), image.end());
  outputs.objectness.push_back(
      torch::tensor(objectness, torch::kDouble).view({n, h, w, a}).permute({0, 3, 1, 2}).to(torch::kFloat).contiguous());
  outputs.box_codes.push_back(torch::tensor(codes, torch::kDouble)
                                  .view({n, h, w, a, 4})
                                  .permute({0, 3, 4, 1, 2})
                                  .reshape({n, 4 * a, h, w})
                                  .to(torch::kFloat)
                                  .contiguous());
}

ImageTargets targets_of(const std::vector<Box>& boxes) {
  ImageTargets targets;
  targets.boxes_ltrb = boxes.empty() ? torch::zeros({0, 4}) : boxes_of(boxes);
  targets.labels = torch::ones({static_cast<int64_t>(boxes.size())}, torch::kLong);
  return targets;
}

// ---- loss -------------------------------------------------------------------------------------------

double bce(double logit, double label) { return label > 0.5 ? std::log1p(std::exp(-logit)) : std::log1p(std::exp(logit)); }

double smooth_l1(double d, double beta) {
  d = std::abs(d);
  return d < beta ? 0.5 * d * d / beta : d - 0.5 * beta;
}

TEST(SmoothL1, IsQuadraticBelowBetaAndLinearAbove) {
  const torch::Tensor input = torch::tensor({0.05, -0.2, 0.0, 3.0}, torch::kDouble);
  const torch::Tensor target = torch::tensor({0.0, 0.0, 0.0, 1.0}, torch::kDouble);
  const double beta = 1.0 / 9.0;
  EXPECT_NEAR(common::smooth_l1_loss_sum(input, target, beta).item<double>(),
              smooth_l1(0.05, beta) + smooth_l1(0.2, beta) + smooth_l1(2.0, beta), 1e-12);
  EXPECT_NEAR(common::smooth_l1_loss_sum(input, target, 1.0).item<double>(), 0.5 * 0.0025 + 0.5 * 0.04 + 1.5, 1e-12);
}

// One level, a 1 x 3 grid with two anchors per location, two 100 x 100 images. Image 0 has one ground
// truth box (10, 10, 29, 29), 20 x 20 pixels; image 1 has none.
//   row 0 (10, 10, 29, 29): IoU 1, positive; its code target is 0.
//   row 1 (50, 50, 69, 69): IoU 0, negative.
//   row 2 (12, 10, 31, 29): IoU 18*20 / (800 - 360) = 0.82, positive; target ((20 - 22) / 20, 0, 0, 0).
//   row 3 (10, 10, 29, 39): IoU 400 / 600 = 0.67, between the thresholds: ignored.
//   row 4 (-5, 10, 14, 29): IoU 100 / 700 = 0.14 but past the left edge: ignored.
//   row 5 (80, 80, 99, 99): negative (right 99 < width 100: visible).
// With 256 per image, every labelled anchor is sampled: 2 + 2 in image 0, the 5 visible in image 1.
const std::vector<Box> kLossAnchors = {{10, 10, 29, 29}, {50, 50, 69, 69}, {12, 10, 31, 29},
                                       {10, 10, 29, 39}, {-5, 10, 14, 29}, {80, 80, 99, 99}};
const std::vector<double> kLogits0 = {2.0, -1.0, 0.5, 4.0, 3.0, 0.0};
const std::vector<double> kLogits1 = {0.3, -0.2, 1.0, 0.0, 5.0, -2.0};
const std::vector<double> kCodes0 = {0.05, -0.2, 0.0, 0.1,  3, 3, 3, 3,  -0.1, 0.0, 0.5, 0.0,
                                     3, 3, 3, 3,  3, 3, 3, 3,  3, 3, 3, 3};

RpnOutputs loss_case_outputs() {
  RpnOutputs outputs;
  append_level(outputs, {1, 3, 2, {kLogits0, kLogits1}, {kCodes0, std::vector<double>(24, 2.0)}});
  return outputs;
}

TEST(RpnLoss, MatchesTheHandComputedLossOfASmallBatch) {
  RpnOutputs outputs = loss_case_outputs();
  for (torch::Tensor& t : outputs.objectness) t.requires_grad_(true);
  for (torch::Tensor& t : outputs.box_codes) t.requires_grad_(true);
  torch::Generator generator = generator_of(7);
  const RpnLosses losses = rpn_loss(outputs, {boxes_of(kLossAnchors)}, {{100, 100}, {100, 100}},
                                    {targets_of({{10, 10, 29, 29}}), targets_of({})}, RpnOptions{}, generator);

  const double sampled = 9;
  const double objectness = (bce(2.0, 1) + bce(-1.0, 0) + bce(0.5, 1) + bce(0.0, 0) +  // image 0
                             bce(0.3, 0) + bce(-0.2, 0) + bce(1.0, 0) + bce(0.0, 0) + bce(-2.0, 0)) /
                            sampled;
  const double beta = 1.0 / 9.0;
  const double box = (smooth_l1(0.05, beta) + smooth_l1(0.2, beta) + smooth_l1(0.1, beta) +  // row 0
                      smooth_l1(0.5, beta)) /                                               // row 2
                     sampled;
  EXPECT_EQ(losses.objectness.dim(), 0);
  EXPECT_NEAR(losses.objectness.item<double>(), objectness, 1e-6);
  EXPECT_NEAR(losses.box_regression.item<double>(), box, 1e-6);

  // Ignored anchors get no gradient; sampled ones do.
  (losses.objectness + losses.box_regression).backward();
  const torch::Tensor logit_grad = outputs.objectness[0].grad().permute({0, 2, 3, 1}).reshape({2, 6});
  EXPECT_EQ(values_of(logit_grad[0].ne(0)), (std::vector<double>{1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(values_of(logit_grad[1].ne(0)), (std::vector<double>{1, 1, 1, 1, 0, 1}));
  EXPECT_NEAR(logit_grad[0][0].item<double>(), (1.0 / (1.0 + std::exp(-2.0)) - 1.0) / sampled, 1e-6);
  const torch::Tensor code_grad = outputs.box_codes[0].grad().view({2, 2, 4, 1, 3}).permute({0, 3, 4, 1, 2}).reshape({2, 6, 4});
  EXPECT_EQ(values_of(code_grad.ne(0).any(2)[0]), (std::vector<double>{1, 0, 1, 0, 0, 0}));
  EXPECT_FALSE(code_grad[1].ne(0).any().item<bool>()) << "image 1 has no positives";
}

TEST(RpnLoss, StraddleBelowZeroKeepsAnchorsPastTheEdge) {
  RpnOptions options;
  options.anchors.straddle_threshold = -1;
  torch::Generator generator = generator_of(7);
  const RpnOutputs outputs = loss_case_outputs();
  const RpnLosses losses = rpn_loss(outputs, {boxes_of(kLossAnchors)}, {{100, 100}, {100, 100}},
                                    {targets_of({{10, 10, 29, 29}}), targets_of({})}, options, generator);
  // Row 4 is now a negative in both images: 11 sampled.
  const double objectness = (bce(2.0, 1) + bce(-1.0, 0) + bce(0.5, 1) + bce(3.0, 0) + bce(0.0, 0) + bce(0.3, 0) +
                             bce(-0.2, 0) + bce(1.0, 0) + bce(0.0, 0) + bce(5.0, 0) + bce(-2.0, 0)) /
                            11.0;
  EXPECT_NEAR(losses.objectness.item<double>(), objectness, 1e-6);
}

// ---- proposals --------------------------------------------------------------------------------------

// Zero codes decode every anchor to itself.
std::vector<double> zero_codes(size_t rows) { return std::vector<double>(4 * rows, 0.0); }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void expect_scores(const torch::Tensor& actual, const std::vector<double>& logits) {
  const std::vector<double> values = values_of(actual);
  ASSERT_EQ(values.size(), logits.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], sigmoid(logits[i]), 1e-6) << i;
}

// Two levels of disjoint anchors (no NMS suppression), two images: image 0's logits all above image 1's.
//   level 0: 1 x 4 grid, one anchor each; level 1: 1 x 2 grid, one anchor each.
const std::vector<Box> kLevel0 = {{0, 0, 9, 9}, {20, 0, 29, 9}, {40, 0, 49, 9}, {60, 0, 69, 9}};
const std::vector<Box> kLevel1 = {{0, 40, 19, 59}, {40, 40, 59, 59}};
const std::vector<double> kImage0Level0 = {6.0, 9.0, 7.0, 5.0}, kImage0Level1 = {8.0, 5.5};
const std::vector<double> kImage1Level0 = {-1.0, -4.0, -2.0, -5.0}, kImage1Level1 = {-3.0, 0.5};

RpnOutputs two_level_outputs() {
  RpnOutputs outputs;
  append_level(outputs, {1, 4, 1, {kImage0Level0, kImage1Level0}, {zero_codes(4), zero_codes(4)}});
  append_level(outputs, {1, 2, 1, {kImage0Level1, kImage1Level1}, {zero_codes(2), zero_codes(2)}});
  return outputs;
}

TEST(RpnProposals, TrainingKeepsTheBestOfTheWholeBatch) {
  RpnOptions options;
  options.fpn_post_nms_top_n_train = 6;
  const std::vector<RpnProposals> proposals =
      select_proposals(two_level_outputs(), {boxes_of(kLevel0), boxes_of(kLevel1)}, {{100, 100}, {100, 100}}, options,
                       /*training=*/true);
  ASSERT_EQ(proposals.size(), 2U);
  // Image 0's six all outscore image 1's: image 1 keeps none. Order: level by level, each by objectness.
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb),
            (std::vector<Box>{kLevel0[1], kLevel0[2], kLevel0[0], kLevel0[3], kLevel1[0], kLevel1[1]}));
  expect_scores(proposals[0].objectness, {9.0, 7.0, 6.0, 5.0, 8.0, 5.5});
  EXPECT_EQ(proposals[1].boxes_ltrb.sizes(), (torch::IntArrayRef{0, 4}));
  EXPECT_EQ(proposals[1].objectness.numel(), 0);
  EXPECT_FALSE(proposals[0].boxes_ltrb.requires_grad());

  // Seven: image 1's best (logit 0.5, level 1) joins.
  options.fpn_post_nms_top_n_train = 7;
  const std::vector<RpnProposals> seven =
      select_proposals(two_level_outputs(), {boxes_of(kLevel0), boxes_of(kLevel1)}, {{100, 100}, {100, 100}}, options, true);
  EXPECT_EQ(rows_of(seven[1].boxes_ltrb), (std::vector<Box>{kLevel1[1]}));
  EXPECT_EQ(seven[0].boxes_ltrb.size(0), 6);
}

TEST(RpnProposals, TestingKeepsEachImagesOwnBestSortedByObjectness) {
  RpnOptions options;
  options.fpn_post_nms_top_n_test = 3;
  const std::vector<RpnProposals> proposals =
      select_proposals(two_level_outputs(), {boxes_of(kLevel0), boxes_of(kLevel1)}, {{100, 100}, {100, 100}}, options,
                       /*training=*/false);
  ASSERT_EQ(proposals.size(), 2U);
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb), (std::vector<Box>{kLevel0[1], kLevel1[0], kLevel0[2]}));
  expect_scores(proposals[0].objectness, {9.0, 8.0, 7.0});
  EXPECT_EQ(rows_of(proposals[1].boxes_ltrb), (std::vector<Box>{kLevel1[1], kLevel0[0], kLevel0[2]}));
  expect_scores(proposals[1].objectness, {0.5, -1.0, -2.0});
}

TEST(RpnProposals, PreNmsTopNCutsEachLevelBeforeTheRest) {
  RpnOptions options;
  options.pre_nms_top_n_test = 2;
  const std::vector<RpnProposals> proposals =
      select_proposals(two_level_outputs(), {boxes_of(kLevel0), boxes_of(kLevel1)}, {{100, 100}, {100, 100}}, options, false);
  // Level 0 gives its best two, level 1 both: four per image, by objectness.
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb), (std::vector<Box>{kLevel0[1], kLevel1[0], kLevel0[2], kLevel1[1]}));
  EXPECT_EQ(rows_of(proposals[1].boxes_ltrb), (std::vector<Box>{kLevel1[1], kLevel0[0], kLevel0[2], kLevel1[0]}));
}

TEST(RpnProposals, ClipsToTheImageThenDropsSmallBoxes) {
  // One level, 1 x 4 grid; image 40 high, 50 wide. Codes decode a box (l, t, r, b) from a square anchor:
  // zero codes keep it, so the anchors are the boxes to clip.
  const std::vector<Box> anchors = {{-10, -5, 20, 15}, {45, 30, 60, 50}, {10, 10, 12, 30}, {30, 0, 35, 5}};
  RpnOutputs outputs;
  append_level(outputs, {1, 4, 1, {{4.0, 3.0, 2.0, 1.0}}, {zero_codes(4)}});
  RpnOptions options;
  options.min_size = 4;  // the third box is 3 pixels wide (12 - 10 + 1)
  const std::vector<RpnProposals> proposals = select_proposals(outputs, {boxes_of(anchors)}, {{40, 50}}, options, true);
  ASSERT_EQ(proposals.size(), 1U);
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb), (std::vector<Box>{{0, 0, 20, 15}, {45, 30, 49, 39}, {30, 0, 35, 5}}));
  expect_scores(proposals[0].objectness, {4.0, 3.0, 1.0});

  // Clipped first: (45, 30, 60, 50) is 5 x 10 once clipped, dropped at min_size 6 though 16 x 21 before.
  options.min_size = 6;
  const std::vector<RpnProposals> stricter = select_proposals(outputs, {boxes_of(anchors)}, {{40, 50}}, options, true);
  EXPECT_EQ(rows_of(stricter[0].boxes_ltrb), (std::vector<Box>{{0, 0, 20, 15}, {30, 0, 35, 5}}));
}

TEST(RpnProposals, DecodesTheCodesAgainstTheAnchors) {
  // Anchor (0, 0, 9, 9): width 10, centre (5, 5). Codes (0.7, 0.4, ln 2, 0) give width 20, centre
  // (12, 9): (2, 4, 21, 13).
  RpnOutputs outputs;
  append_level(outputs, {1, 1, 1, {{1.0}}, {{0.7, 0.4, std::log(2.0), 0.0}}});
  const std::vector<RpnProposals> proposals =
      select_proposals(outputs, {boxes_of({{0, 0, 9, 9}})}, {{100, 100}}, RpnOptions{}, false);
  const std::vector<Box> rows = rows_of(proposals[0].boxes_ltrb);
  ASSERT_EQ(rows.size(), 1U);
  const Box expected{2, 4, 21, 13};
  for (size_t c = 0; c < 4; ++c) EXPECT_NEAR(rows[0][c], expected[c], 1e-5) << c;
}

TEST(RpnProposals, EachLogitAndCodeBelongToTheGridAnchorOfItsLocation) {
  // The head's layout against grid_anchors' order on a 3 x 4 grid with three anchors per location: the
  // one high logit, at anchor a of (y, x), brings back grid row (y * W + x) * A + a, moved by its code.
  AnchorOptions anchor_options;
  anchor_options.sizes = {32};
  anchor_options.strides = {4};
  const std::vector<torch::Tensor> anchors = grid_anchors(anchor_options, {{3, 4}}, torch::kCPU);
  const int64_t y = 2, x = 1, a = 2;
  RpnOutputs outputs;
  outputs.objectness.push_back(torch::full({1, 3, 3, 4}, -10.0));
  outputs.objectness[0][0][a][y][x] = 10.0;
  outputs.box_codes.push_back(torch::zeros({1, 12, 3, 4}));
  outputs.box_codes[0][0][a * 4 + 0][y][x] = 0.5;  // dx: half the anchor's width to the right
  RpnOptions options;
  options.anchors = anchor_options;
  options.fpn_post_nms_top_n_test = 1;
  options.pre_nms_top_n_test = 1;
  const std::vector<RpnProposals> proposals = select_proposals(outputs, anchors, {{1000, 1000}}, options, false);
  const Box anchor = rows_of(anchors[0])[static_cast<size_t>((y * 4 + x) * 3 + a)];
  const double shift = 0.5 * (anchor[2] - anchor[0] + 1);
  ASSERT_EQ(proposals[0].boxes_ltrb.size(0), 1);
  // The anchor, (-6, -14, 17, 33), reaches above the image: its top is clipped to 0.
  EXPECT_EQ(anchor, (Box{-6, -14, 17, 33}));
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb)[0], (Box{anchor[0] + shift, 0, anchor[2] + shift, anchor[3]}));
}

TEST(RpnProposals, NmsDropsOverlapsAndPostNmsTopNCutsPerLevel) {
  // (0, 0, 9, 9) and (1, 0, 10, 9) overlap with IoU 90 / 110 = 0.82 >= 0.7: the lower scored goes.
  const std::vector<Box> anchors = {{0, 0, 9, 9}, {1, 0, 10, 9}, {50, 50, 59, 59}, {80, 80, 89, 89}};
  RpnOutputs outputs;
  append_level(outputs, {1, 4, 1, {{1.0, 2.0, 0.5, 0.0}}, {zero_codes(4)}});
  RpnOptions options;
  std::vector<RpnProposals> proposals = select_proposals(outputs, {boxes_of(anchors)}, {{100, 100}}, options, false);
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb), (std::vector<Box>{anchors[1], anchors[2], anchors[3]}));
  options.post_nms_top_n_test = 2;
  proposals = select_proposals(outputs, {boxes_of(anchors)}, {{100, 100}}, options, false);
  EXPECT_EQ(rows_of(proposals[0].boxes_ltrb), (std::vector<Box>{anchors[1], anchors[2]}));
}

TEST(RpnOptions, RejectsCountsBelowOne) {
  RpnOptions options;
  EXPECT_NO_THROW(validate(options));
  options.fpn_post_nms_top_n_train = 0;
  EXPECT_THROW(validate(options), UserError);
  options = RpnOptions{};
  options.matcher.low_threshold = 0.9;
  EXPECT_THROW(validate(options), UserError);
}

}  // namespace
}  // namespace mlh::maskrcnn
