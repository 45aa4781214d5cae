#include "tests/test_paths.h"
#include "workloads/ssd/ssd_transforms.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "tests/user_error_of.h"

namespace mlh::ssd {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;

// A 3-channel 8-bit image of noise drawn from `seed`.
cv::Mat noise_image(int width, int height, uint64_t seed) {
  cv::Mat image(height, width, CV_8UC3);
  uint64_t draw = 0;
  for (int y = 0; y < height; ++y) {
    uint8_t* row = image.ptr<uint8_t>(y);
    for (int i = 0; i < 3 * width; ++i) row[i] = static_cast<uint8_t>(counter_random(seed, 0, draw++));
  }
  return image;
}

double iou_of(const float* box, const SsdCrop& crop) {
  const double width = std::max(0.0, std::min<double>(box[2], crop.right) - std::max<double>(box[0], crop.left));
  const double height = std::max(0.0, std::min<double>(box[3], crop.bottom) - std::max<double>(box[1], crop.top));
  const double intersection = width * height;
  const double box_area = (double{box[2]} - box[0]) * (double{box[3]} - box[1]);
  const double crop_area = (crop.right - crop.left) * (crop.bottom - crop.top);
  return intersection / (box_area + crop_area - intersection);
}

bool centre_inside(const float* box, const SsdCrop& crop) {
  const double x = 0.5 * (double{box[0]} + box[2]);
  const double y = 0.5 * (double{box[1]} + box[3]);
  return x > crop.left && x < crop.right && y > crop.top && y < crop.bottom;
}

// Checks every invariant of the crops of `boxes` drawn under seeds 0..seeds-1. Returns the minimum
// IoUs met and counts the whole-image draws.
std::set<double> check_crops(const std::vector<float>& boxes, uint64_t seeds, int* whole_images) {
  std::vector<int64_t> labels(boxes.size() / 4);
  for (size_t b = 0; b < labels.size(); ++b) labels[b] = static_cast<int64_t>(10 + b);
  const SsdTransformOptions options;
  std::set<double> options_met;
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    const SsdCrop crop = sample_ssd_crop(boxes, options, stream_key(seed, 0));
    if (crop.whole_image) {
      ++*whole_images;
      continue;
    }
    options_met.insert(crop.min_iou);
    const double width = crop.right - crop.left;
    const double height = crop.bottom - crop.top;
    EXPECT_GE(crop.left, 0.0);
    EXPECT_GE(crop.top, 0.0);
    EXPECT_LE(crop.right, 1.0 + 1e-12);
    EXPECT_LE(crop.bottom, 1.0 + 1e-12);
    EXPECT_GE(width, 0.3);
    EXPECT_GE(height, 0.3);
    EXPECT_GE(width / height, 0.5);
    EXPECT_LE(width / height, 2.0);
    size_t centres_inside = 0;
    for (size_t b = 0; b < labels.size(); ++b) {
      EXPECT_GT(iou_of(&boxes[4 * b], crop), crop.min_iou) << "seed " << seed;
      if (centre_inside(&boxes[4 * b], crop)) ++centres_inside;
    }
    EXPECT_GE(centres_inside, 1u);

    std::vector<float> cropped = boxes;
    std::vector<int64_t> cropped_labels = labels;
    crop_boxes(crop, cropped, cropped_labels);
    EXPECT_EQ(cropped_labels.size(), centres_inside);
    if (cropped.size() != 4 * centres_inside) {
      ADD_FAILURE() << "seed " << seed << ": " << cropped.size() << " box values";
      break;
    }
    size_t kept = 0;
    for (size_t b = 0; b < labels.size(); ++b) {
      if (!centre_inside(&boxes[4 * b], crop)) continue;
      EXPECT_EQ(cropped_labels[kept], labels[b]);
      // Mapped back to image coordinates, the kept box is the original clipped to the crop.
      const float* out = &cropped[4 * kept];
      EXPECT_NEAR(crop.left + out[0] * width, std::max<double>(boxes[4 * b], crop.left), 1e-6);
      EXPECT_NEAR(crop.top + out[1] * height, std::max<double>(boxes[4 * b + 1], crop.top), 1e-6);
      EXPECT_NEAR(crop.left + out[2] * width, std::min<double>(boxes[4 * b + 2], crop.right), 1e-6);
      EXPECT_NEAR(crop.top + out[3] * height, std::min<double>(boxes[4 * b + 3], crop.bottom), 1e-6);
      ++kept;
    }
    for (const float value : cropped) {
      EXPECT_GE(value, 0.0f);
      EXPECT_LE(value, 1.0f);
    }
  }
  return options_met;
}

TEST(CocoSsdTransforms, CropInvariantsHoldOverManySeeds) {
  int whole_images = 0;
  const std::set<double> met = check_crops({0.10f, 0.10f, 0.45f, 0.50f,  //
                                            0.50f, 0.40f, 0.95f, 0.90f,  //
                                            0.30f, 0.05f, 0.40f, 0.20f,  //
                                            0.00f, 0.00f, 1.00f, 1.00f},
                                           3000, &whole_images);
  // The small box rules out the tight options; the no-constraint option always remains.
  EXPECT_EQ(met.count(-std::numeric_limits<double>::infinity()), 1u);
  EXPECT_EQ(met.count(0.9), 0u);
}

TEST(CocoSsdTransforms, EveryCropOptionIsDrawn) {
  int whole_images = 0;
  const uint64_t seeds = 3000;
  const std::set<double> met = check_crops({0.05f, 0.1f, 0.95f, 0.9f}, seeds, &whole_images);
  EXPECT_THAT(met, ElementsAre(-std::numeric_limits<double>::infinity(), 0.1, 0.3, 0.5, 0.7, 0.9));
  // Keep-the-image is drawn 1/7 of the time per round, more often in all as rejected rounds redraw.
  EXPECT_GT(whole_images, static_cast<int>(seeds / 7) - 100);
}

TEST(CocoSsdTransforms, CropOfAnImageWithoutBoxesKeepsTheImage) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    EXPECT_TRUE(sample_ssd_crop({}, SsdTransformOptions{}, stream_key(seed, 0)).whole_image);
  }
}

TEST(CocoSsdTransforms, CropRoundsAreBounded) {
  // A tiny box no window of side >= 0.3 overlaps with IoU > 0.1, and only one option round: most
  // draws must give up and keep the whole image rather than loop.
  const std::vector<float> tiny = {0.5f, 0.5f, 0.501f, 0.501f};
  SsdTransformOptions options;
  options.crop_max_rounds = 1;
  int whole = 0;
  for (uint64_t seed = 0; seed < 700; ++seed) {
    const SsdCrop crop = sample_ssd_crop(tiny, options, stream_key(seed, 0));
    if (crop.whole_image) {
      ++whole;
    } else {
      EXPECT_EQ(crop.min_iou, -std::numeric_limits<double>::infinity());
    }
  }
  EXPECT_GT(whole, 700 / 2);
  EXPECT_LT(whole, 700);
}

TEST(CocoSsdTransforms, MoreCropSamplesPerOptionStillMeetTheConstraints) {
  const std::vector<float> boxes = {0.2f, 0.2f, 0.6f, 0.7f};
  SsdTransformOptions options;
  options.crop_max_samples = 50;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const SsdCrop crop = sample_ssd_crop(boxes, options, stream_key(seed, 0));
    if (crop.whole_image) continue;
    EXPECT_GT(iou_of(boxes.data(), crop), crop.min_iou);
    EXPECT_TRUE(centre_inside(boxes.data(), crop));
  }
}

TEST(CocoSsdTransforms, CropBoxesClipsRenormalisesAndDropsBoxesWithCentresOutside) {
  SsdCrop crop;
  crop.whole_image = false;
  crop.left = 0.25;
  crop.top = 0.25;
  crop.right = 0.75;
  crop.bottom = 0.75;
  std::vector<float> boxes = {0.2f, 0.3f, 0.5f, 0.6f,   // centre (0.35, 0.45): kept, clipped left
                              0.8f, 0.8f, 0.9f, 0.9f,   // centre outside: dropped
                              0.3f, 0.3f, 0.7f, 0.7f};  // inside
  std::vector<int64_t> labels = {4, 5, 6};
  crop_boxes(crop, boxes, labels);
  EXPECT_THAT(labels, ElementsAre(4, 6));
  EXPECT_THAT(boxes, ElementsAre(FloatNear(0.0f, 1e-6f), FloatNear(0.1f, 1e-6f), FloatNear(0.5f, 1e-6f),
                                 FloatNear(0.7f, 1e-6f), FloatNear(0.1f, 1e-6f), FloatNear(0.1f, 1e-6f),
                                 FloatNear(0.9f, 1e-6f), FloatNear(0.9f, 1e-6f)));
}

TEST(CocoSsdTransforms, CropPixelsTruncateEdgesAsTheReference) {
  SsdCrop crop;
  crop.whole_image = false;
  crop.left = 0.26;
  crop.top = 0.1;
  crop.right = 0.79;
  crop.bottom = 0.55;
  const cv::Rect rect = crop_pixels(crop, 100, 50);
  EXPECT_EQ(rect, cv::Rect(26, 5, 79 - 26, 27 - 5));
  EXPECT_EQ(crop_pixels(SsdCrop{}, 7, 9), cv::Rect(0, 0, 7, 9));
  // A window narrower than a pixel still keeps one.
  crop.left = 0.5;
  crop.right = 0.6;
  EXPECT_EQ(crop_pixels(crop, 2, 2).width, 1);
}

TEST(CocoSsdTransforms, FlipMirrorsBoxes) {
  std::vector<float> boxes = {0.1f, 0.2f, 0.4f, 0.9f, 0.0f, 0.0f, 1.0f, 0.5f};
  flip_boxes(boxes);
  EXPECT_THAT(boxes, ElementsAre(FloatNear(0.6f, 1e-6f), 0.2f, FloatNear(0.9f, 1e-6f), 0.9f, 0.0f, 0.0f,
                                 1.0f, 0.5f));
}

// A 4x4 image whose left half is pure red and right half pure blue (BGR storage).
cv::Mat red_left_blue_right() {
  cv::Mat image(4, 4, CV_8UC3, cv::Scalar(255, 0, 0));
  image(cv::Rect(0, 0, 2, 4)).setTo(cv::Scalar(0, 0, 255));
  return image;
}

float normalised(int value, int channel) {
  return (static_cast<float>(value) / 255.0f - common::kTorchvisionMeanRgb[channel]) / common::kTorchvisionStdRgb[channel];
}

TEST(CocoSsdTransforms, TrainTransformFlipsPixelsAndBoxesTogether) {
  SsdTransformOptions options;
  options.out_size = 4;
  SsdAugmentation augmentation;  // whole image, no jitter
  augmentation.flip = true;
  std::vector<float> boxes = {0.0f, 0.0f, 0.5f, 1.0f};  // the red half
  std::vector<int64_t> labels = {2};
  std::vector<float> out(3 * 16);
  ssd_train_transform(red_left_blue_right(), augmentation, options, boxes, labels, out.data());
  EXPECT_THAT(boxes, ElementsAre(0.5f, 0.0f, 1.0f, 1.0f));  // now the right half
  EXPECT_THAT(labels, ElementsAre(2));
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const bool red = x >= 2;
      EXPECT_NEAR(out[0 * 16 + y * 4 + x], normalised(red ? 255 : 0, 0), 1e-5f);
      EXPECT_NEAR(out[2 * 16 + y * 4 + x], normalised(red ? 0 : 255, 2), 1e-5f);
    }
  }
}

TEST(CocoSsdTransforms, EvalTransformOfAConstantImageIsTheNormalisedColour) {
  const cv::Mat image(37, 53, CV_8UC3, cv::Scalar(30, 140, 200));  // B, G, R
  const int size = 20;
  std::vector<float> out(3 * size * size);
  ssd_eval_transform(image, size, out.data());
  const int rgb[3] = {200, 140, 30};
  for (int c = 0; c < 3; ++c) {
    const float expected = (rgb[c] / 255.0f - common::kTorchvisionMeanRgb[c]) / common::kTorchvisionStdRgb[c];
    for (int i = 0; i < size * size; ++i) ASSERT_NEAR(out[c * size * size + i], expected, 1e-5f);
  }
}

TEST(CocoSsdTransforms, EvalTransformResizesBilinearly) {
  const cv::Mat image = noise_image(31, 17, 5);
  std::vector<float> out(3 * 8 * 8);
  ssd_eval_transform(image, 8, out.data());
  cv::Mat resized;
  cv::resize(image, resized, cv::Size(8, 8), 0, 0, cv::INTER_LINEAR);
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) {
      const cv::Vec3b pixel = resized.at<cv::Vec3b>(y, x);
      EXPECT_NEAR(out[0 * 64 + y * 8 + x], normalised(pixel[2], 0), 1e-5f);
      EXPECT_NEAR(out[1 * 64 + y * 8 + x], normalised(pixel[1], 1), 1e-5f);
      EXPECT_NEAR(out[2 * 64 + y * 8 + x], normalised(pixel[0], 2), 1e-5f);
    }
  }
}

TEST(CocoSsdTransforms, ColorJitterWithZeroStrengthsIsTheIdentity) {
  const ColorJitterStrengths zero{0, 0, 0, 0};
  for (uint64_t key = 0; key < 20; ++key) {
    const ColorJitterDraw draw = draw_color_jitter(zero, key);
    cv::Mat image = noise_image(23, 19, key);
    const cv::Mat original = image.clone();
    apply_color_jitter(draw, image);
    ASSERT_EQ(cv::norm(image, original, cv::NORM_INF), 0.0);
  }
}

TEST(CocoSsdTransforms, ColorJitterDrawsFactorsInRangeAndEveryOrder) {
  const ColorJitterStrengths strengths;  // .125, .5, .5, .05
  std::set<std::vector<int>> orders;
  for (uint64_t key = 0; key < 2000; ++key) {
    const ColorJitterDraw draw = draw_color_jitter(strengths, key);
    std::vector<int> order(draw.order.begin(), draw.order.end());
    orders.insert(order);
    std::sort(order.begin(), order.end());
    ASSERT_THAT(order, ElementsAre(0, 1, 2, 3));
    ASSERT_THAT(draw.enabled, ElementsAre(true, true, true, true));
    ASSERT_GE(draw.brightness, 0.875);
    ASSERT_LE(draw.brightness, 1.125);
    ASSERT_GE(draw.contrast, 0.5);
    ASSERT_LE(draw.contrast, 1.5);
    ASSERT_GE(draw.saturation, 0.5);
    ASSERT_LE(draw.saturation, 1.5);
    ASSERT_GE(draw.hue_shift, -0.05);
    ASSERT_LE(draw.hue_shift, 0.05);
  }
  EXPECT_EQ(orders.size(), 24u);
}

ColorJitterDraw only(ColorJitterDraw::Step step) {
  ColorJitterDraw draw;
  draw.enabled[static_cast<size_t>(step)] = true;
  return draw;
}

// What torchvision's ColorJitter makes of small images on PIL, one step at a time
// (tools/make_color_jitter_goldens.py; pixels as [R, G, B]).
const nlohmann::json& pil_goldens() {
  static const nlohmann::json document = [] {
    std::ifstream file(test_paths::source_dir() + "/tests/workloads/data/color_jitter/pil_goldens.json");
    EXPECT_TRUE(file.good()) << "tests/workloads/data/color_jitter/pil_goldens.json is missing";
    return file.good() ? nlohmann::json::parse(file) : nlohmann::json::object();
  }();
  return document;
}

// Rows of [R, G, B] pixels as an 8-bit BGR image.
cv::Mat bgr_image_of(const nlohmann::json& rows) {
  cv::Mat image(static_cast<int>(rows.size()), static_cast<int>(rows.front().size()), CV_8UC3);
  for (int y = 0; y < image.rows; ++y) {
    for (int x = 0; x < image.cols; ++x) {
      const nlohmann::json& rgb = rows.at(y).at(x);
      image.at<cv::Vec3b>(y, x) =
          cv::Vec3b(rgb.at(2).get<uint8_t>(), rgb.at(1).get<uint8_t>(), rgb.at(0).get<uint8_t>());
    }
  }
  return image;
}

// Applies `step` alone with each golden case's factor to its image and expects PIL's pixels, every
// channel within `tolerance` (0: equal).
void expect_pil_goldens(const std::string& step_name, ColorJitterDraw::Step step,
                        double ColorJitterDraw::*factor, int tolerance) {
  int cases = 0;
  for (const nlohmann::json& golden : pil_goldens().value("cases", nlohmann::json::array())) {
    if (golden.at("step") != step_name) continue;
    ++cases;
    const std::string image_name = golden.at("image").get<std::string>();
    ColorJitterDraw draw = only(step);
    draw.*factor = golden.at("factor").get<double>();
    SCOPED_TRACE(step_name + " " + std::to_string(draw.*factor) + " on " + image_name);
    cv::Mat image = bgr_image_of(pil_goldens().at("images").at(image_name));
    const cv::Mat expected = bgr_image_of(golden.at("output"));
    apply_color_jitter(draw, image);
    ASSERT_EQ(image.size(), expected.size());
    for (int y = 0; y < image.rows; ++y) {
      for (int x = 0; x < image.cols; ++x) {
        const cv::Vec3b ours = image.at<cv::Vec3b>(y, x);
        const cv::Vec3b pil = expected.at<cv::Vec3b>(y, x);
        for (int c = 0; c < 3; ++c) {
          EXPECT_LE(std::abs(int{ours[c]} - int{pil[c]}), tolerance)
              << "pixel (" << y << ", " << x << ") BGR " << ours << ", PIL's " << pil;
        }
      }
    }
  }
  EXPECT_GT(cases, 0) << "no " << step_name << " case in pil_goldens.json";
}

TEST(CocoSsdTransforms, ColorJitterStepsBlendAsPil) {
  // Brightness blends with black and truncates: 101 * 1.5 = 151.5 -> 151; 200 * 1.5 clips to 255.
  expect_pil_goldens("brightness", ColorJitterDraw::kBrightness, &ColorJitterDraw::brightness, 0);
  // Contrast blends with the grey image's rounded mean: at 0 the grey pair (10 and 21, mean 15.5)
  // becomes 16 everywhere.
  expect_pil_goldens("contrast", ColorJitterDraw::kContrast, &ColorJitterDraw::contrast, 0);
  // Saturation blends each pixel with its grey: 0 leaves the grey image, 2 pushes a colour away
  // from its grey. OpenCV's grey and PIL's "L" agree on these pixels.
  expect_pil_goldens("saturation", ColorJitterDraw::kSaturation, &ColorJitterDraw::saturation, 0);
}

// OpenCV's full-range HSV divides the turn into 256 hues where PIL's divides it into 255 (pure blue
// is 171 against PIL's 170), so a turned colour can land a few units from PIL's: up to 6 on the
// goldens' palette.
constexpr int kHueUnitsFromPil = 6;

TEST(CocoSsdTransforms, ColorJitterHueTurnsTheColourWheel) {
  // A third of a turn takes red to green (85 of 256 units); a grey image has no hue to turn.
  expect_pil_goldens("hue", ColorJitterDraw::kHue, &ColorJitterDraw::hue_shift, kHueUnitsFromPil);
  cv::Mat grey(2, 2, CV_8UC3, cv::Scalar(90, 90, 90));
  ColorJitterDraw draw = only(ColorJitterDraw::kHue);
  draw.hue_shift = -0.05;
  apply_color_jitter(draw, grey);
  EXPECT_EQ(cv::norm(grey, cv::Mat(2, 2, CV_8UC3, cv::Scalar(90, 90, 90)), cv::NORM_INF), 0.0);
}

TEST(CocoSsdTransforms, TrainTransformWithZeroJitterEqualsNoJitter) {
  const cv::Mat image = noise_image(40, 30, 9);
  SsdTransformOptions jitter_off;
  jitter_off.out_size = 16;
  jitter_off.color_jitter = false;
  SsdTransformOptions jitter_zero = jitter_off;
  jitter_zero.color_jitter = true;
  jitter_zero.jitter = ColorJitterStrengths{0, 0, 0, 0};
  const std::vector<float> boxes = {0.1f, 0.1f, 0.6f, 0.7f};
  for (int64_t index = 0; index < 10; ++index) {
    std::vector<float> out_off(3 * 16 * 16), out_zero(3 * 16 * 16);
    std::vector<float> boxes_off = boxes, boxes_zero = boxes;
    std::vector<int64_t> labels_off = {1}, labels_zero = {1};
    ssd_train_transform(image, draw_ssd_augmentation(boxes, jitter_off, 3, 0, index), jitter_off,
                        boxes_off, labels_off, out_off.data());
    ssd_train_transform(image, draw_ssd_augmentation(boxes, jitter_zero, 3, 0, index), jitter_zero,
                        boxes_zero, labels_zero, out_zero.data());
    ASSERT_EQ(out_off, out_zero);
    ASSERT_EQ(boxes_off, boxes_zero);
  }
}

TEST(CocoSsdTransforms, AugmentationIsAPureFunctionOfSeedEpochAndIndex) {
  const std::vector<float> boxes = {0.1f, 0.2f, 0.5f, 0.9f, 0.6f, 0.1f, 0.9f, 0.4f};
  const SsdTransformOptions options;
  const cv::Mat image = noise_image(64, 48, 1);
  std::set<bool> flips;
  int differing = 0;
  for (int64_t index = 0; index < 40; ++index) {
    const SsdAugmentation first = draw_ssd_augmentation(boxes, options, 11, 2, index);
    const SsdAugmentation again = draw_ssd_augmentation(boxes, options, 11, 2, index);
    const SsdAugmentation next_epoch = draw_ssd_augmentation(boxes, options, 11, 3, index);
    flips.insert(first.flip);
    std::vector<float> out_a(3 * 24 * 24), out_b(3 * 24 * 24);
    std::vector<float> boxes_a = boxes, boxes_b = boxes;
    std::vector<int64_t> labels_a = {1, 2}, labels_b = {1, 2};
    SsdTransformOptions small = options;
    small.out_size = 24;
    ssd_train_transform(image, first, small, boxes_a, labels_a, out_a.data());
    ssd_train_transform(image, again, small, boxes_b, labels_b, out_b.data());
    ASSERT_EQ(out_a, out_b);
    ASSERT_EQ(boxes_a, boxes_b);
    ASSERT_EQ(labels_a, labels_b);
    if (first.crop.left != next_epoch.crop.left || first.flip != next_epoch.flip ||
        first.jitter.brightness != next_epoch.jitter.brightness) {
      ++differing;
    }
  }
  EXPECT_EQ(flips.size(), 2u);
  EXPECT_GE(differing, 35);
}

TEST(CocoSsdTransforms, OptionsOutOfRangeAreUserErrors) {
  SsdTransformOptions options;
  options.crop_max_samples = 0;
  EXPECT_THAT(user_error_of([&] { check_ssd_transform_options(options, "ssd"); }),
              HasSubstr("ssd: crop_max_samples is 0"));
  options = SsdTransformOptions{};
  options.out_size = 0;
  EXPECT_THAT(user_error_of([&] { check_ssd_transform_options(options, "ssd"); }),
              HasSubstr("out_size is 0"));
  options = SsdTransformOptions{};
  options.jitter.hue = 0.6;
  EXPECT_THAT(user_error_of([&] { check_ssd_transform_options(options, "ssd"); }),
              HasSubstr("jitter hue"));
  EXPECT_NO_THROW(check_ssd_transform_options(SsdTransformOptions{}, "ssd"));
}

}  // namespace
}  // namespace mlh::ssd
