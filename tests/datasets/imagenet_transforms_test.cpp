#include "datasets/imagenet/transforms.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace mlh::imagenet {
namespace {

constexpr int kRed = 0, kGreen = 1, kBlue = 2;  // output planes

// Output value of plane `channel` at (x, y) in an S x S CHW buffer.
float at(const std::vector<float>& chw, int size, int channel, int x, int y) {
  return chw[static_cast<size_t>(channel) * size * size + static_cast<size_t>(y) * size + x];
}

// The model's input from the transforms: their 8-bit RGB, HWC output through normalize_to_chw.
void train_input(const cv::Mat& bgr, const CropBox& box, bool flip, int size, float* out_chw) {
  std::vector<uint8_t> rgb(static_cast<size_t>(3 * size * size));
  train_transform(bgr, box, flip, size, rgb.data());
  normalize_to_chw(rgb.data(), size, out_chw);
}

void eval_input(const cv::Mat& bgr, int resize_short, int size, float* out_chw) {
  std::vector<uint8_t> rgb(static_cast<size_t>(3 * size * size));
  eval_transform(bgr, resize_short, size, rgb.data());
  normalize_to_chw(rgb.data(), size, out_chw);
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
    train_input(bgr, box, flip, size, out.data());
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
  train_input(bgr, box, false, size, out.data());
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
  train_input(bgr, box, false, size, plain.data());
  train_input(bgr, box, true, size, flipped.data());
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
  train_input(bgr, box, false, size, out.data());
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
  eval_input(bgr, 128, size, out.data());
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
  eval_input(bgr, 256, size, out.data());
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
  eval_input(bgr, 50, size, out.data());
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const float red = at(out, size, kRed, x, y) + kMeanRgb[0];
      // Resized rows 50..99 are red; rows 55..94 are cropped, away from the blurred edges.
      ASSERT_NEAR(red, 250.0f, 1.0f) << x << "," << y;
    }
  }
}

TEST(NormalizeToChw, SubtractsTheMeanPerChannelAndMovesChannelsFirst) {
  const int size = 2;
  const std::vector<uint8_t> rgb = {0, 1, 2, 10, 11, 12, 20, 21, 22, 255, 254, 253};  // 4 pixels, HWC
  std::vector<float> chw(12);
  normalize_to_chw(rgb.data(), size, chw.data());
  for (int pixel = 0; pixel < 4; ++pixel) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(chw[static_cast<size_t>(c * 4 + pixel)], static_cast<float>(rgb[static_cast<size_t>(pixel * 3 + c)]) - kMeanRgb[c]);
    }
  }
}

TEST(Reduction, IsTheLargestThatKeepsTheOutputSizeInBothDimensions) {
  EXPECT_EQ(train_reduction(CropBox{0, 0, 447, 1000}, 224), 1);
  EXPECT_EQ(train_reduction(CropBox{0, 0, 448, 448}, 224), 2);
  EXPECT_EQ(train_reduction(CropBox{5, 9, 1000, 900}, 224), 4);
  EXPECT_EQ(train_reduction(CropBox{0, 0, 1792, 1792}, 224), 8);
  EXPECT_EQ(train_reduction(CropBox{0, 0, 4000, 3000}, 224), 8);
  EXPECT_EQ(eval_reduction(500, 375, 256), 1);  // ImageNet's typical size: never reduced for eval
  EXPECT_EQ(eval_reduction(1024, 512, 256), 2);
  EXPECT_EQ(eval_reduction(511, 2000, 256), 1);
  EXPECT_EQ(eval_reduction(4000, 3000, 256), 8);
}

// A smooth image (red = column / 8, green = row / 8) and its block average at 1/r, which is what
// libjpeg's DCT scaling approximates.
cv::Mat smooth_image(int width, int height) {
  cv::Mat bgr(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(40, y / 8, x / 8);
  }
  return bgr;
}

ReducedImage block_average(const cv::Mat& bgr, int reduction) {
  ReducedImage image;
  cv::resize(bgr, image.bgr, cv::Size(bgr.cols / reduction, bgr.rows / reduction), 0, 0, cv::INTER_AREA);
  image.original_width = bgr.cols;
  image.original_height = bgr.rows;
  image.reduction = reduction;
  return image;
}

// The part [left, left + width) x [top, top + height) of `image`, as a region decode gives it.
ReducedImage part_of(const ReducedImage& image, int left, int top, int width, int height) {
  ReducedImage part = image;
  part.bgr = image.bgr(cv::Rect(left, top, width, height)).clone();
  part.offset_x = image.offset_x + left;
  part.offset_y = image.offset_y + top;
  return part;
}

// The same box of the same image gives the same picture whether it is resampled from the full
// decode or from one at 1/2, 1/4 or 1/8: the geometry is the original's. On this image a pixel's
// red is column / 8 and its green row / 8, so a shift of one output pixel (a box of 1,760 columns
// at 128 outputs: 13.75 columns, 1.7 red levels) would show beyond the 1-level tolerance, which
// allows for rounding.
TEST(TrainTransform, AReducedDecodeKeepsTheCropsGeometry) {
  const cv::Mat full = smooth_image(1920, 1600);
  const CropBox box{96, 40, 1760, 1400};
  const int size = 128;
  for (const bool flip : {false, true}) {
    std::vector<uint8_t> expected(3 * size * size), got(3 * size * size);
    train_transform(full, box, flip, size, expected.data());
    for (const int reduction : {2, 4, 8}) {
      const ReducedImage reduced = block_average(full, reduction);
      train_transform(reduced, box, flip, size, got.data());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], expected[i], 1) << "reduction " << reduction << ", value " << i << ", flip " << flip;
      }
      // The box's part alone, with one reduced pixel around it, gives the same bytes.
      const int left = box.x / reduction - 1, top = box.y / reduction - 1;
      const int right = (box.x + box.width + reduction - 1) / reduction + 1;
      const int bottom = (box.y + box.height + reduction - 1) / reduction + 1;
      std::vector<uint8_t> from_part(got.size());
      train_transform(part_of(reduced, left, top, right - left, bottom - top), box, flip, size, from_part.data());
      EXPECT_EQ(from_part, got) << "reduction " << reduction;
    }
    // At full size the box alone, at an offset, gives the same bytes as the whole image.
    std::vector<uint8_t> from_part(expected.size());
    train_transform(part_of(block_average(full, 1), box.x, box.y, box.width, box.height), box, flip, size,
                    from_part.data());
    EXPECT_EQ(from_part, expected);
  }
}

TEST(EvalTransform, AReducedDecodeKeepsTheResizeAndCentreCrop) {
  const cv::Mat full = smooth_image(1600, 1040);  // short side 1040 -> 256: 393 x 256
  const int size = 224;
  std::vector<uint8_t> expected(3 * size * size), got(3 * size * size);
  eval_transform(full, 256, size, expected.data());
  for (const int reduction : {2, 4}) {
    eval_transform(block_average(full, reduction), 256, size, got.data());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], 1) << "reduction " << reduction << ", " << i;
  }
}

}  // namespace
}  // namespace mlh::imagenet
