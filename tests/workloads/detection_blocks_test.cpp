// Mask R-CNN's shared detection blocks in workloads/common/: the box coder, the proposal matcher, the
// balanced sampler and the detection workloads' batch settings, against hand-derived cases written as the formula they come from (the MLPerf v0.7
// reference's box_coder.py, matcher.py, balanced_positive_negative_sampler.py). The "reference
// arithmetic" cases are float32 numbers printed by a throwaway re-statement of box_coder.py's formulas in
// PyTorch 2.11 (inputs in the test); they are compared within a few float32 ulps.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <array>
#include <cmath>
#include <vector>

#include <torch/torch.h>

#include "workloads/common/balanced_sampler.h"
#include "workloads/common/box_coder.h"
#include "workloads/common/box_ops.h"
#include "workloads/common/nms.h"
#include "workloads/common/proposal_matcher.h"
#include "workloads/common/recipe_setting_groups.h"

namespace mlh::common {
namespace {

torch::Tensor rows(const std::vector<std::vector<double>>& values, torch::Dtype dtype = torch::kFloat) {
  std::vector<double> flat;
  for (const auto& row : values) flat.insert(flat.end(), row.begin(), row.end());
  return torch::tensor(flat, torch::kDouble)
      .view({static_cast<int64_t>(values.size()), static_cast<int64_t>(values.front().size())})
      .to(dtype);
}

void expect_close(const torch::Tensor& actual, const std::vector<std::vector<double>>& expected,
                  double relative = 1e-6, double absolute = 1e-6) {
  ASSERT_EQ(actual.dim(), 2);
  ASSERT_EQ(actual.size(0), static_cast<int64_t>(expected.size()));
  const torch::Tensor values = actual.to(torch::kDouble).contiguous();
  for (int64_t r = 0; r < actual.size(0); ++r) {
    const auto& row = expected[static_cast<size_t>(r)];
    ASSERT_EQ(actual.size(1), static_cast<int64_t>(row.size()));
    for (int64_t c = 0; c < actual.size(1); ++c) {
      const double want = row[static_cast<size_t>(c)];
      EXPECT_NEAR(values[r][c].item<double>(), want, absolute + relative * std::abs(want))
          << "row " << r << " column " << c;
    }
  }
}

std::vector<int64_t> as_vector(const torch::Tensor& t) {
  const torch::Tensor v = t.to(torch::kLong).contiguous();
  return {v.data_ptr<int64_t>(), v.data_ptr<int64_t>() + v.numel()};
}

// ---- BoxCoder -------------------------------------------------------------------------------------

// Proposal (0, 0, 9, 9): width 10 (inclusive pixels), centre (5, 5). Ground truth (2, 4, 21, 13):
// width 20, height 10, centre (2 + 10, 4 + 5) = (12, 9).
const std::vector<double> kProposal{0, 0, 9, 9};
const std::vector<double> kTruth{2, 4, 21, 13};

TEST(DetectionBatchSettings, PerDeviceBatchScalesTheRateAndKeepsTheImagesOfEachStepCount) {
  DetectionBatchSettings recipe(/*global_batch=*/16, /*eval_batch=*/2, /*learning_rate=*/0.02);
  const DetectionBatchSettings::AtRanks as_written = recipe.at_ranks(8);
  EXPECT_EQ(as_written.global_batch, 16);
  EXPECT_DOUBLE_EQ(as_written.base_learning_rate, 0.02);
  EXPECT_EQ(as_written.steps(60000), 60000);
  recipe.batch_size_per_device = 4;  // 32 images a step on 8 ranks: twice the recipe's batch
  const DetectionBatchSettings::AtRanks scaled = recipe.at_ranks(8);
  EXPECT_EQ(scaled.global_batch, 32);
  EXPECT_DOUBLE_EQ(scaled.base_learning_rate, 0.04);
  EXPECT_EQ(scaled.steps(500), 250);
  EXPECT_EQ(scaled.steps(60000), 30000);
  EXPECT_EQ(scaled.steps(1), 1);  // never below one step
}

TEST(BoxIou, InclusivePixelsCountTheLastPixel) {
  // (0,0)-(9,9) and (5,5)-(14,14) are 10 x 10 pixels each and share 5 x 5: 25 / 175, as boxlist_iou.
  const torch::Tensor a = torch::tensor({{0.f, 0.f, 9.f, 9.f}});
  const torch::Tensor b = torch::tensor({{5.f, 5.f, 14.f, 14.f}, {10.f, 0.f, 19.f, 9.f}, {9.f, 9.f, 9.f, 9.f}});
  const torch::Tensor iou = box_iou(a, b, BoxExtent::kInclusivePixels);
  EXPECT_FLOAT_EQ(iou[0][0].item<float>(), 25.f / 175.f);
  EXPECT_FLOAT_EQ(iou[0][1].item<float>(), 0.f);           // adjacent: no shared pixel
  EXPECT_FLOAT_EQ(iou[0][2].item<float>(), 1.f / 100.f);   // a one-pixel box inside
  EXPECT_FLOAT_EQ(box_iou(a, b)[0][0].item<float>(), 16.f / (81.f + 81.f - 16.f));
}

TEST(BoxIou, NmsReadsTheExtentItIsGiven) {
  // IoU 25/175 = 0.143 inclusive, 16/146 = 0.110 continuous: a threshold between them tells which.
  const torch::Tensor boxes = torch::tensor({{0.f, 0.f, 9.f, 9.f}, {5.f, 5.f, 14.f, 14.f}});
  const torch::Tensor scores = torch::tensor({0.9f, 0.8f});
  const torch::Tensor classes = torch::zeros({2}, torch::kLong);
  EXPECT_EQ(batched_nms(boxes, scores, classes, 0.12, BoxExtent::kInclusivePixels).numel(), 1);
  EXPECT_EQ(batched_nms(boxes, scores, classes, 0.12).numel(), 2);
}

TEST(BoxCoder, EncodesOneBoxWithTheRpnWeights) {
  const BoxCoder coder(kRpnBoxCoderWeights);
  const torch::Tensor codes = coder.encode(rows({kTruth}), rows({kProposal}));
  EXPECT_EQ(codes.scalar_type(), torch::kFloat);
  // ((12 - 5) / 10, (9 - 5) / 10, ln(20 / 10), ln(10 / 10))
  expect_close(codes, {{0.7, 0.4, std::log(2.0), 0.0}});
}

TEST(BoxCoder, EncodesOneBoxWithTheBoxHeadWeights) {
  const BoxCoder coder(kRoiBoxCoderWeights);
  const torch::Tensor codes = coder.encode(rows({kTruth}, torch::kDouble), rows({kProposal}, torch::kDouble));
  EXPECT_EQ(codes.scalar_type(), torch::kDouble);
  // (10 * 0.7, 10 * 0.4, 5 ln 2, 5 ln 1)
  expect_close(codes, {{7.0, 4.0, 5.0 * std::log(2.0), 0.0}}, 1e-12, 1e-12);
}

TEST(BoxCoder, DecodesTheHandCodesBackToTheBox) {
  expect_close(BoxCoder(kRpnBoxCoderWeights).decode(rows({{0.7, 0.4, std::log(2.0), 0.0}}), rows({kProposal})),
               {kTruth}, 1e-6, 1e-5);
  expect_close(BoxCoder(kRoiBoxCoderWeights)
                   .decode(rows({{7.0, 4.0, 5.0 * std::log(2.0), 0.0}}, torch::kDouble), rows({kProposal})),
               {kTruth}, 1e-12, 1e-12);
}

TEST(BoxCoder, ZeroCodesGiveTheBoxItself) {
  // The "- 1" of the right and bottom edges undoes the "+ 1" of the width.
  const torch::Tensor box = rows({{3, 5, 20, 11}}, torch::kDouble);
  expect_close(BoxCoder(kRoiBoxCoderWeights).decode(torch::zeros({1, 4}, torch::kDouble), box), {{3, 5, 20, 11}},
               0, 1e-12);
}

TEST(BoxCoder, RoundTripsManyBoxesWithBothWeightSets) {
  // Sizes 20..300 px keep the size ratios (<= 15) below the clip's 62.5.
  torch::manual_seed(7);
  const torch::Tensor left_top = torch::rand({64, 2}, torch::kDouble) * 500;
  const torch::Tensor proposals = torch::cat({left_top, left_top + 19 + torch::rand({64, 2}, torch::kDouble) * 280}, 1);
  const torch::Tensor truth_lt = left_top + torch::randn({64, 2}, torch::kDouble) * 20;
  const torch::Tensor truth = torch::cat({truth_lt, truth_lt + 19 + torch::rand({64, 2}, torch::kDouble) * 280}, 1);
  for (const BoxCoderWeights weights : {kRpnBoxCoderWeights, kRoiBoxCoderWeights}) {
    const BoxCoder coder(weights);
    const torch::Tensor decoded = coder.decode(coder.encode(truth, proposals), proposals);
    EXPECT_TRUE(torch::allclose(decoded, truth, 1e-9, 1e-9)) << (decoded - truth).abs().max();
    const torch::Tensor single = coder.decode(coder.encode(truth.to(torch::kFloat), proposals.to(torch::kFloat)),
                                              proposals.to(torch::kFloat));
    EXPECT_EQ(single.scalar_type(), torch::kFloat);
    EXPECT_TRUE(torch::allclose(single.to(torch::kDouble), truth, 1e-4, 1e-2));
  }
}

TEST(BoxCoder, ClampsTheSizeCodesAtLog1000Over16) {
  const torch::Tensor box = rows({kProposal}, torch::kDouble);  // width = height = 10, centre (5, 5)
  for (const BoxCoderWeights weights : {kRpnBoxCoderWeights, kRoiBoxCoderWeights}) {
    const BoxCoder coder(weights);
    EXPECT_DOUBLE_EQ(coder.xform_clip(), std::log(1000.0 / 16.0));
    const torch::Tensor huge = coder.decode(rows({{0, 0, 1e4, 1e4}}, torch::kDouble), box);
    const torch::Tensor at_clip =
        coder.decode(rows({{0, 0, weights.w * coder.xform_clip(), weights.h * coder.xform_clip()}}, torch::kDouble), box);
    EXPECT_TRUE(torch::equal(huge, at_clip)) << huge << at_clip;
    // Width exp(ln 62.5) * 10 = 625 about the centre 5: (5 - 312.5, 5 - 312.5, 5 + 312.5 - 1, 5 + 312.5 - 1).
    expect_close(huge, {{-307.5, -307.5, 316.5, 316.5}}, 1e-12, 1e-9);
  }
  // Negative codes are not clamped: a box may shrink without bound.
  const torch::Tensor tiny = BoxCoder(kRpnBoxCoderWeights).decode(rows({{0, 0, -50, -50}}, torch::kDouble), box);
  expect_close(tiny, {{5 - 5 * std::exp(-50.0), 5 - 5 * std::exp(-50.0), 4 + 5 * std::exp(-50.0), 4 + 5 * std::exp(-50.0)}},
               1e-12, 1e-12);
}

TEST(BoxCoder, DecodesOneCodeGroupPerClassAndBroadcastsLeadingDimensions) {
  const BoxCoder coder(kRoiBoxCoderWeights);
  const torch::Tensor boxes = rows({kProposal, {10, 10, 29, 19}}, torch::kDouble);  // [2, 4]
  const torch::Tensor per_class = torch::randn({2, 12}, torch::kDouble);              // 3 classes
  const torch::Tensor decoded = coder.decode(per_class, boxes);
  ASSERT_EQ(decoded.sizes(), per_class.sizes());
  for (int64_t k = 0; k < 3; ++k)
    EXPECT_TRUE(torch::equal(decoded.narrow(1, 4 * k, 4), coder.decode(per_class.narrow(1, 4 * k, 4), boxes)));
  // [B, N, 4k] codes against [B, N, 4] boxes: the same as image by image.
  const torch::Tensor batched_codes = torch::randn({3, 2, 8}, torch::kDouble);
  const torch::Tensor batched_boxes = boxes.unsqueeze(0).expand({3, 2, 4}) + torch::arange(3, torch::kDouble).view({3, 1, 1});
  const torch::Tensor batched = coder.decode(batched_codes, batched_boxes);
  ASSERT_EQ(batched.sizes(), batched_codes.sizes());
  for (int64_t b = 0; b < 3; ++b)
    EXPECT_TRUE(torch::equal(batched[b], coder.decode(batched_codes[b], batched_boxes[b])));
  const torch::Tensor encoded = coder.encode(batched_boxes + 2, batched_boxes);
  ASSERT_EQ(encoded.sizes(), batched_boxes.sizes());
  EXPECT_TRUE(torch::equal(encoded[1], coder.encode(batched_boxes[1] + 2, batched_boxes[1])));
  // Boxes in another dtype are taken into the codes' dtype, as the reference's boxes.to(rel_codes.dtype).
  EXPECT_EQ(coder.decode(per_class.to(torch::kFloat), boxes).scalar_type(), torch::kFloat);
}

// float32 numbers from the reference's formulas run by PyTorch (see the top of this file).
TEST(BoxCoder, MatchesTheReferenceArithmetic) {
  const torch::Tensor truth = rows({{12.25, 30.5, 140.75, 95.0}, {300.0, 8.0, 310.5, 411.25}});
  const torch::Tensor proposals = rows({{10.0, 20.0, 150.0, 100.0}, {290.5, 0.0, 330.0, 380.0}});
  const torch::Tensor codes = rows({{0.3, -0.2, 1.5, -0.7, -1.25, 0.5, 3.0, 9.0}});
  const torch::Tensor box = rows({{50.0, 60.0, 89.0, 139.0}});
  const double ulps = 4 * 1.2e-7;
  expect_close(BoxCoder(kRpnBoxCoderWeights).encode(truth, proposals),
               {{-0.0248226952, 0.0339506157, -0.085078977, -0.212399021},
                {-0.123456791, 0.0515091866, -1.25895488, 0.0592340976}},
               ulps, 1e-8);
  expect_close(BoxCoder(kRoiBoxCoderWeights).encode(truth, proposals),
               {{-0.248226956, 0.339506179, -0.425394893, -1.06199515},
                {-1.23456788, 0.515091836, -6.29477453, 0.296170473}},
               ulps, 1e-7);
  // The RPN case's last code (9) is past the clip.
  expect_close(BoxCoder(kRpnBoxCoderWeights).decode(codes, box),
               {{-7.63378143, 64.1365891, 170.633789, 102.863411, -381.710754, -2360.00024, 420.710754, 2639.00024}},
               ulps, 1e-5);
  expect_close(BoxCoder(kRoiBoxCoderWeights).decode(codes, box),
               {{44.2028198, 63.6256714, 97.1971741, 132.174332, 28.557621, -137.985901, 100.442383, 344.985901}},
               ulps, 1e-5);
}

// ---- match_proposals ------------------------------------------------------------------------------

TEST(ProposalMatcher, StratifiesAtTheRpnThresholdsWithEqualityGoingUp) {
  // Below low is < 0.3, between is [0.3, 0.7), a match is >= 0.7; float32 IoUs as box_iou gives them.
  const ProposalMatcherOptions options{0.7, 0.3, false};
  for (const torch::Dtype dtype : {torch::kFloat, torch::kDouble}) {
    const torch::Tensor iou = rows({{0.0, 0.29, 0.3, 0.5, 0.69, 0.7, 1.0}}, dtype);
    const torch::Tensor matches = match_proposals(iou, options);
    EXPECT_EQ(matches.scalar_type(), torch::kLong);
    EXPECT_EQ(as_vector(matches), (std::vector<int64_t>{-1, -1, -2, -2, -2, 0, 0}));
  }
}

TEST(ProposalMatcher, BoxHeadThresholdsLeaveNothingBetween) {
  const torch::Tensor iou = rows({{0.49, 0.5, 0.1}, {0.2, 0.1, 0.51}});
  EXPECT_EQ(as_vector(match_proposals(iou, kRoiHeadsMatcherOptions)), (std::vector<int64_t>{-1, 0, 1}));
  EXPECT_FALSE(kRoiHeadsMatcherOptions.allow_low_quality_matches);
  EXPECT_TRUE(kRpnMatcherOptions.allow_low_quality_matches);
}

TEST(ProposalMatcher, EachPredictionTakesItsBestGroundTruthFirstIndexOnTies) {
  const torch::Tensor iou = rows({{0.8, 0.1, 0.75}, {0.8, 0.9, 0.2}, {0.1, 0.9, 0.75}});
  EXPECT_EQ(as_vector(match_proposals(iou, kRoiHeadsMatcherOptions)), (std::vector<int64_t>{0, 1, 0}));
}

TEST(ProposalMatcher, LowQualityMatchesKeepEveryTiedBestPrediction) {
  // gt 0's best IoU 0.2 is tied by predictions 0 and 1: both keep gt 0 although below 0.3.
  // gt 1's best is prediction 3 (0.65): it keeps gt 1; prediction 2 (0.6) stays between thresholds.
  const torch::Tensor iou = rows({{0.2, 0.2, 0.1, 0.0}, {0.0, 0.1, 0.6, 0.65}});
  EXPECT_EQ(as_vector(match_proposals(iou, kRpnMatcherOptions)), (std::vector<int64_t>{0, 0, -2, 1}));
  EXPECT_EQ(as_vector(match_proposals(iou, {0.7, 0.3, false})), (std::vector<int64_t>{-1, -1, -2, -2}));
}

TEST(ProposalMatcher, LowQualityMatchRestoresThePredictionsOwnBestGroundTruth) {
  // Prediction 0 is gt 0's best (0.4) but its own best is gt 1 (0.5): as in the reference it gets gt 1.
  const torch::Tensor iou = rows({{0.4, 0.1}, {0.5, 0.2}});
  EXPECT_EQ(as_vector(match_proposals(iou, kRpnMatcherOptions)), (std::vector<int64_t>{1, -1}));
}

TEST(ProposalMatcher, WorksOnBoxIou) {
  // gt (0, 0, 10, 10); prediction 0 the same box (IoU 1), prediction 1 half of it (IoU 0.5),
  // prediction 2 far away (IoU 0).
  const torch::Tensor gt = rows({{0, 0, 10, 10}});
  const torch::Tensor predictions = rows({{0, 0, 10, 10}, {0, 0, 5, 10}, {50, 50, 60, 60}});
  EXPECT_EQ(as_vector(match_proposals(box_iou(gt, predictions), kRpnMatcherOptions)), (std::vector<int64_t>{0, -2, -1}));
  EXPECT_EQ(as_vector(match_proposals(box_iou(gt, predictions), kRoiHeadsMatcherOptions)),
            (std::vector<int64_t>{0, 0, -1}));
}

TEST(ProposalMatcher, NoGroundTruthMakesEveryPredictionBackground) {
  for (const ProposalMatcherOptions& options : {kRpnMatcherOptions, kRoiHeadsMatcherOptions}) {
    const torch::Tensor matches = match_proposals(torch::empty({0, 5}), options);
    EXPECT_EQ(matches.scalar_type(), torch::kLong);
    EXPECT_EQ(as_vector(matches), (std::vector<int64_t>(5, kBelowLowThreshold)));
    EXPECT_EQ(match_proposals(torch::empty({3, 0}), options).numel(), 0);
    EXPECT_EQ(match_proposals(torch::empty({0, 0}), options).numel(), 0);
  }
}

// ---- sample_balanced ------------------------------------------------------------------------------

torch::Generator generator_of(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

// `positives` labels >= 1 (classes 1..3), then `negatives` zeros, then `ignored` -1, shuffled by a fixed
// permutation so that the kinds interleave.
torch::Tensor labels_of(int64_t positives, int64_t negatives, int64_t ignored, torch::Dtype dtype = torch::kLong) {
  const torch::Tensor ordered = torch::cat({torch::arange(positives, torch::kLong).remainder(3) + 1,
                                            torch::zeros({negatives}, torch::kLong),
                                            torch::full({ignored}, -1, torch::kLong)});
  torch::Generator shuffle = generator_of(12345);
  return ordered.index_select(0, torch::randperm(ordered.size(0), shuffle, torch::kLong)).to(dtype);
}

void expect_valid(const SampledMasks& masks, const torch::Tensor& labels, int64_t positives, int64_t negatives) {
  ASSERT_EQ(masks.positive.scalar_type(), torch::kBool);
  ASSERT_EQ(masks.negative.scalar_type(), torch::kBool);
  ASSERT_EQ(masks.positive.sizes(), labels.sizes());
  ASSERT_EQ(masks.negative.sizes(), labels.sizes());
  EXPECT_EQ(masks.positive.sum().item<int64_t>(), positives);
  EXPECT_EQ(masks.negative.sum().item<int64_t>(), negatives);
  EXPECT_FALSE((masks.positive & (labels < 1)).any().item<bool>()) << "a positive outside labels >= 1";
  EXPECT_FALSE((masks.negative & (labels != 0)).any().item<bool>()) << "a negative outside labels == 0";
}

TEST(BalancedSampler, NegativesFillUpWhenPositivesAreFewerThanTheQuota) {
  const torch::Tensor labels = labels_of(10, 1000, 50);
  torch::Generator generator = generator_of(1);
  const SampledMasks masks = sample_balanced(labels, kRpnSamplerOptions, generator);
  expect_valid(masks, labels, 10, 256 - 10);
  EXPECT_TRUE(torch::equal(masks.positive, labels >= 1)) << "every positive is taken";
}

TEST(BalancedSampler, CapsPositivesAtTheQuota) {
  const torch::Tensor labels = labels_of(300, 1000, 50);
  torch::Generator generator = generator_of(1);
  expect_valid(sample_balanced(labels, kRpnSamplerOptions, generator), labels, 128, 128);    // 256 * 0.5
  expect_valid(sample_balanced(labels, kRoiHeadsSamplerOptions, generator), labels, 128, 384);  // 512 * 0.25
}

TEST(BalancedSampler, TakesAllNegativesWhenThereAreTooFew) {
  const torch::Tensor labels = labels_of(300, 20, 500, torch::kFloat);  // the RPN's labels are float
  torch::Generator generator = generator_of(1);
  expect_valid(sample_balanced(labels, kRpnSamplerOptions, generator), labels, 128, 20);
}

TEST(BalancedSampler, NeverSamplesIgnoredPredictions) {
  const torch::Tensor labels = labels_of(3, 4, 2000);
  torch::Generator generator = generator_of(5);
  const SampledMasks masks = sample_balanced(labels, kRoiHeadsSamplerOptions, generator);
  expect_valid(masks, labels, 3, 4);
  EXPECT_FALSE(((masks.positive | masks.negative) & (labels == -1)).any().item<bool>());
  const torch::Tensor ignored_only = torch::full({100}, -1, torch::kLong);
  const SampledMasks none = sample_balanced(ignored_only, kRpnSamplerOptions, generator);
  expect_valid(none, ignored_only, 0, 0);
  const SampledMasks empty = sample_balanced(torch::empty({0}, torch::kLong), kRpnSamplerOptions, generator);
  EXPECT_EQ(empty.positive.numel(), 0);
}

TEST(BalancedSampler, OneSeedReproducesAnotherDiffers) {
  const torch::Tensor labels = labels_of(300, 1000, 50);
  torch::Generator first = generator_of(42);
  torch::Generator again = generator_of(42);
  torch::Generator other = generator_of(43);
  const std::vector<SampledMasks> a = sample_balanced({labels, labels}, kRpnSamplerOptions, first);
  const std::vector<SampledMasks> b = sample_balanced({labels, labels}, kRpnSamplerOptions, again);
  const std::vector<SampledMasks> c = sample_balanced({labels, labels}, kRpnSamplerOptions, other);
  ASSERT_EQ(a.size(), 2U);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(torch::equal(a[i].positive, b[i].positive));
    EXPECT_TRUE(torch::equal(a[i].negative, b[i].negative));
    EXPECT_FALSE(torch::equal(a[i].positive, c[i].positive));
    EXPECT_FALSE(torch::equal(a[i].negative, c[i].negative));
  }
  // The generator advances from one image to the next.
  EXPECT_FALSE(torch::equal(a[0].positive, a[1].positive));
}

TEST(BalancedSampler, ChoosesUniformly) {
  // 2 of 4 positives and 2 of 6 negatives, 4000 times: each is taken with probability 1/2 and 1/3
  // (standard deviations 0.008 and 0.0075).
  const torch::Tensor labels = torch::tensor(std::vector<int64_t>{1, 0, 0, 2, 0, -1, 0, 1, 0, 3, 0});
  const BalancedSamplerOptions options{4, 0.5};
  torch::Generator generator = generator_of(2024);
  torch::Tensor positive_counts = torch::zeros({labels.size(0)}, torch::kLong);
  torch::Tensor negative_counts = torch::zeros({labels.size(0)}, torch::kLong);
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const SampledMasks masks = sample_balanced(labels, options, generator);
    positive_counts += masks.positive;
    negative_counts += masks.negative;
  }
  for (int64_t i = 0; i < labels.size(0); ++i) {
    const int64_t label = labels[i].item<int64_t>();
    const double positive_rate = positive_counts[i].item<double>() / draws;
    const double negative_rate = negative_counts[i].item<double>() / draws;
    EXPECT_NEAR(positive_rate, label >= 1 ? 0.5 : 0.0, 0.04) << "prediction " << i;
    EXPECT_NEAR(negative_rate, label == 0 ? 1.0 / 3.0 : 0.0, 0.04) << "prediction " << i;
  }
}

}  // namespace
}  // namespace mlh::common
