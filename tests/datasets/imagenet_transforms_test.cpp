#include "datasets/imagenet/transforms.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

namespace mlh::imagenet {
namespace {

constexpr int kRed = 0, kGreen = 1, kBlue = 2;  // output planes

// Output value of plane `channel` at (x, y) in an S x S CHW buffer.
float at(const std::vector<float>& chw, int size, int channel, int x, int y) {
  return chw[static_cast<size_t>(channel) * size * size + static_cast<size_t>(y) * size + x];
}

bool inside(const CropBox& box, int width, int height) {
  return box.x >= 0 && box.y >= 0 && box.width >= 1 && box.height >= 1 &&
         box.x + box.width <= width && box.y + box.height <= height;
}

bool is_whole(const CropBox& box, int width, int height) {
  return box.x == 0 && box.y == 0 && box.width == width && box.height == height;
}

TEST(SampleTrainCrop, IsAPureFunctionOfItsArguments) {
  for (uint64_t stream = 0; stream < 50; ++stream) {
    const CropBox a = sample_train_crop(500, 375, 7, stream);
    const CropBox b = sample_train_crop(500, 375, 7, stream);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.width, b.width);
    EXPECT_EQ(a.height, b.height);
  }
  int differing = 0;
  for (uint64_t stream = 0; stream < 50; ++stream) {
    const CropBox a = sample_train_crop(500, 375, 7, stream);
    const CropBox b = sample_train_crop(500, 375, 8, stream);
    const CropBox c = sample_train_crop(500, 375, 7, stream + 1000);
    differing += (a.width != b.width || a.x != b.x) + (a.width != c.width || a.x != c.x);
  }
  EXPECT_GT(differing, 90);
}

TEST(SampleTrainCrop, StaysInsideAndKeepsAreaAndAspectRules) {
  const int sizes[][2] = {{500, 375}, {375, 500}, {224, 224}, {1024, 64}, {37, 23}, {3, 2}, {1, 1}};
  for (const auto& size : sizes) {
    const int width = size[0], height = size[1];
    const double image_area = static_cast<double>(width) * height;
    for (uint64_t stream = 0; stream < 400; ++stream) {
      const CropBox box = sample_train_crop(width, height, 3, stream);
      ASSERT_TRUE(inside(box, width, height))
          << width << "x" << height << " stream " << stream << ": " << box.x << "," << box.y
          << " " << box.width << "x" << box.height;
      if (is_whole(box, width, height)) continue;
      EXPECT_GE(static_cast<double>(box.width) * box.height, 0.1 * image_area);
      // w and h are rounded from a real box with aspect ratio in [0.75, 1.33].
      EXPECT_LE((box.width - 0.5) / (box.height + 0.5), 1.33);
      EXPECT_GE((box.width + 0.5) / (box.height - 0.5), 0.75);
    }
  }
}

TEST(SampleTrainCrop, FallsBackToTheWholeImageWhenNoBoxFits) {
  // A 1000 x 1 strip: any box of at least 5% of the area with aspect <= 1.33 is taller than 1.
  for (uint64_t stream = 0; stream < 20; ++stream) {
    const CropBox box = sample_train_crop(1000, 1, 11, stream);
    EXPECT_TRUE(is_whole(box, 1000, 1)) << box.width << "x" << box.height;
  }
}

TEST(SampleTrainCrop, CoversARangeOfAreasAndPositions) {
  const int width = 500, height = 400;
  const int draws = 3000;
  double smallest = 1.0, largest = 0.0, sum = 0.0;
  int fallbacks = 0, small = 0, large = 0;
  std::vector<int> x_bins(4, 0);
  for (uint64_t stream = 0; stream < draws; ++stream) {
    const CropBox box = sample_train_crop(width, height, 5, stream);
    if (is_whole(box, width, height)) ++fallbacks;
    const double fraction = static_cast<double>(box.width) * box.height / (width * height);
    smallest = std::min(smallest, fraction);
    largest = std::max(largest, fraction);
    sum += fraction;
    small += fraction < 0.3;
    large += fraction > 0.7;
    const double centre = (box.x + box.width / 2.0) / width;
    ++x_bins[std::min(3, static_cast<int>(centre * 4))];
  }
  EXPECT_LT(smallest, 0.12);
  EXPECT_GT(largest, 0.9);
  EXPECT_GT(small, draws / 10);
  EXPECT_GT(large, draws / 10);
  EXPECT_NEAR(sum / draws, 0.55, 0.1);
  EXPECT_LT(fallbacks, draws / 100);
  // Box centres reach every quarter of the width (the outer ones less: big boxes are central).
  for (const int count : x_bins) EXPECT_GT(count, draws / 100);
  EXPECT_GT(x_bins[1] + x_bins[2], draws / 2);
}

TEST(DrawTrainAugmentation, DependsOnSeedEpochAndIndexOnly) {
  int flips = 0, epoch_changes = 0;
  for (int64_t index = 0; index < 400; ++index) {
    const TrainAugmentation a = draw_train_augmentation(300, 200, 9, 2, index, true);
    const TrainAugmentation b = draw_train_augmentation(300, 200, 9, 2, index, true);
    EXPECT_EQ(a.crop.x, b.crop.x);
    EXPECT_EQ(a.crop.width, b.crop.width);
    EXPECT_EQ(a.flip, b.flip);
    flips += a.flip;
    const TrainAugmentation other_epoch = draw_train_augmentation(300, 200, 9, 3, index, true);
    epoch_changes += other_epoch.crop.x != a.crop.x || other_epoch.crop.width != a.crop.width;
    EXPECT_FALSE(draw_train_augmentation(300, 200, 9, 2, index, false).flip);
  }
  EXPECT_GT(flips, 150);
  EXPECT_LT(flips, 250);
  EXPECT_GT(epoch_changes, 350);
}

TEST(TrainTransform, SolidColourGivesColourMinusMeanInRgbOrder) {
  const cv::Mat bgr(40, 50, CV_8UC3, cv::Scalar(10, 100, 200));  // B, G, R
  const int size = 16;
  std::vector<float> out(3 * size * size, -1000.0f);
  for (const bool flip : {false, true}) {
    CropBox box;
    box.x = 7;
    box.y = 3;
    box.width = 30;
    box.height = 21;
    train_transform(bgr, box, flip, size, out.data());
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        ASSERT_FLOAT_EQ(at(out, size, kRed, x, y), 200.0f - 123.68f);
        ASSERT_FLOAT_EQ(at(out, size, kGreen, x, y), 100.0f - 116.78f);
        ASSERT_FLOAT_EQ(at(out, size, kBlue, x, y), 10.0f - 103.94f);
      }
    }
  }
}

// An image whose red channel is 3 * column, green 2 * row, blue constant.
cv::Mat gradient_image(int width, int height) {
  cv::Mat bgr(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(5, 2 * y, 3 * x);
  }
  return bgr;
}

TEST(TrainTransform, ReadsOnlyTheCropBox) {
  const cv::Mat bgr = gradient_image(80, 60);
  const CropBox box{30, 12, 20, 20};  // x, y, width, height
  const int size = 20;  // no resize: the output is the box itself
  std::vector<float> out(3 * size * size);
  train_transform(bgr, box, false, size, out.data());
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      ASSERT_FLOAT_EQ(at(out, size, kRed, x, y), 3.0f * (x + 30) - kMeanRgb[0]);
      ASSERT_FLOAT_EQ(at(out, size, kGreen, x, y), 2.0f * (y + 12) - kMeanRgb[1]);
      ASSERT_FLOAT_EQ(at(out, size, kBlue, x, y), 5.0f - kMeanRgb[2]);
    }
  }
}

TEST(TrainTransform, FlipMirrorsLeftAndRight) {
  const cv::Mat bgr = gradient_image(80, 60);
  const CropBox box{4, 6, 70, 50};  // x, y, width, height
  const int size = 24;
  std::vector<float> plain(3 * size * size), flipped(3 * size * size);
  train_transform(bgr, box, false, size, plain.data());
  train_transform(bgr, box, true, size, flipped.data());
  EXPECT_LT(at(plain, size, kRed, 0, 0), at(plain, size, kRed, size - 1, 0));
  EXPECT_GT(at(flipped, size, kRed, 0, 0), at(flipped, size, kRed, size - 1, 0));
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        ASSERT_FLOAT_EQ(at(flipped, size, c, x, y), at(plain, size, c, size - 1 - x, y));
      }
    }
  }
}

TEST(TrainTransform, ResizesTheCropToTheOutputSize) {
  const cv::Mat bgr = gradient_image(80, 60);
  const CropBox box{10, 0, 64, 32};  // x, y, width, height
  const int size = 16;  // 4x narrower, 2x shorter
  std::vector<float> out(3 * size * size);
  train_transform(bgr, box, false, size, out.data());
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      // Output pixel centres map to source column 10 + 4x + 1.5 and row 2y + 0.5.
      EXPECT_NEAR(at(out, size, kRed, x, y) + kMeanRgb[0], 3.0 * (10 + 4 * x + 1.5), 1.0);
      EXPECT_NEAR(at(out, size, kGreen, x, y) + kMeanRgb[1], 2.0 * (2 * y + 0.5), 1.0);
    }
  }
}

TEST(EvalTransform, ResizesShortSideAndCropsTheCentre) {
  // 512 x 256: red = column / 2, green = row; resize_short 128 halves it to 256 x 128 and the
  // 112 x 112 centre crop starts at resized column 72, row 8.
  cv::Mat bgr(256, 512, CV_8UC3);
  for (int y = 0; y < 256; ++y) {
    for (int x = 0; x < 512; ++x) bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(7, y, x / 2);
  }
  const int size = 112;
  std::vector<float> out(3 * size * size);
  eval_transform(bgr, 128, size, out.data());
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      ASSERT_NEAR(at(out, size, kRed, x, y) + kMeanRgb[0], x + 72, 1.0) << x << "," << y;
      ASSERT_NEAR(at(out, size, kGreen, x, y) + kMeanRgb[1], 2 * (y + 8) + 0.5, 1.0)
          << x << "," << y;
      ASSERT_FLOAT_EQ(at(out, size, kBlue, x, y), 7.0f - kMeanRgb[2]);
    }
  }
}

TEST(EvalTransform, Keeps512x256AtShortSide256AndCropsItsCentre) {
  // Already at short side 256: only the centre 224 x 224 (columns 144..367, rows 16..239) remains.
  cv::Mat bgr(256, 512, CV_8UC3, cv::Scalar(0, 0, 0));
  bgr(cv::Rect(144, 16, 224, 224)).setTo(cv::Scalar(30, 60, 90));
  const int size = 224;
  std::vector<float> out(3 * size * size);
  eval_transform(bgr, 256, size, out.data());
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      ASSERT_FLOAT_EQ(at(out, size, kRed, x, y), 90.0f - kMeanRgb[0]) << x << "," << y;
      ASSERT_FLOAT_EQ(at(out, size, kBlue, x, y), 30.0f - kMeanRgb[2]) << x << "," << y;
    }
  }
}

TEST(EvalTransform, PortraitImagesCropTheVerticalCentre) {
  // 100 x 300, short side 100 -> 50: resized 50 x 150, crop 40 x 40 at column 5, row 55.
  cv::Mat bgr(300, 100, CV_8UC3, cv::Scalar(0, 0, 0));
  bgr(cv::Rect(0, 100, 100, 100)).setTo(cv::Scalar(0, 0, 250));  // the middle third is red
  const int size = 40;
  std::vector<float> out(3 * size * size);
  eval_transform(bgr, 50, size, out.data());
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const float red = at(out, size, kRed, x, y) + kMeanRgb[0];
      // Resized rows 50..99 are red; rows 55..94 are cropped, away from the blurred edges.
      ASSERT_NEAR(red, 250.0f, 1.0f) << x << "," << y;
    }
  }
}

}  // namespace
}  // namespace mlh::imagenet
