#include "datasets/image_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/test_files.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> encoded(const std::string& extension, int width, int height, std::vector<int> params = {}) {
  cv::Mat bgr(height, width, CV_8UC3, cv::Scalar(20, 140, 220));
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(cv::imencode(extension, bgr, bytes, params));
  return bytes;
}

TEST(JpegHeaderSize, ReadsTheFrameOfBaselineAndProgressiveJpegs) {
  for (const int progressive : {0, 1}) {
    const std::vector<uint8_t> jpeg = encoded(".jpg", 123, 45, {cv::IMWRITE_JPEG_PROGRESSIVE, progressive});
    int width = 0, height = 0;
    ASSERT_TRUE(jpeg_header_size(jpeg.data(), jpeg.size(), &width, &height)) << "progressive " << progressive;
    EXPECT_EQ(width, 123);
    EXPECT_EQ(height, 45);
  }
}

TEST(JpegHeaderSize, RefusesWhatHasNoFrameBeforeItsData) {
  int width = 0, height = 0;
  const std::vector<uint8_t> png = encoded(".png", 10, 10);
  EXPECT_FALSE(jpeg_header_size(png.data(), png.size(), &width, &height));
  const std::vector<uint8_t> jpeg = encoded(".jpg", 64, 48);
  for (size_t cut = 0; cut < 24; ++cut) EXPECT_FALSE(jpeg_header_size(jpeg.data(), cut, &width, &height)) << cut;
  const std::vector<uint8_t> scan_first = {0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xC0, 0x00, 0x0B,
                                           0x08, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00};
  EXPECT_FALSE(jpeg_header_size(scan_first.data(), scan_first.size(), &width, &height));
  const std::vector<uint8_t> zero_width = {0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00,
                                           0x10, 0x00, 0x00, 0x01, 0x01, 0x11, 0x00};
  EXPECT_FALSE(jpeg_header_size(zero_width.data(), zero_width.size(), &width, &height));
}

TEST(ReadImageFileReduced, DecodesAJpegAtTheChosenReductionFromItsHeaderSize) {
  const fs::path folder = testing_files::fresh_test_folder("mlh_image_files_test");
  const std::string path = (folder / "photo.jpg").string();
  const std::vector<uint8_t> jpeg = encoded(".jpg", 650, 485);
  write_file(path, jpeg.data(), jpeg.size());
  for (const int reduction : {1, 2, 4, 8}) {
    int asked_width = 0, asked_height = 0;
    const ReducedImage image = read_image_file_reduced(path, "", [&](int width, int height) {
      asked_width = width;
      asked_height = height;
      return DecodeRegion{reduction, 0, 0, 0, 0};
    });
    EXPECT_EQ(asked_width, 650);
    EXPECT_EQ(asked_height, 485);
    EXPECT_EQ(image.reduction, reduction);
    EXPECT_EQ(image.original_width, 650);
    EXPECT_EQ(image.original_height, 485);
    EXPECT_EQ(image.bgr.cols, (650 + reduction - 1) / reduction);
    EXPECT_EQ(image.bgr.rows, (485 + reduction - 1) / reduction);
    const cv::Vec3b centre = image.bgr.at<cv::Vec3b>(image.bgr.rows / 2, image.bgr.cols / 2);
    EXPECT_NEAR(centre[2], 220, 3);
  }
}

TEST(ReadImageFileReduced, DecodesAPngWholeWithoutAskingForAReduction) {
  const fs::path folder = testing_files::fresh_test_folder("mlh_image_files_test_png");
  const std::string path = (folder / "drawing.png").string();
  const std::vector<uint8_t> png = encoded(".png", 300, 200);
  write_file(path, png.data(), png.size());
  bool asked = false;
  const ReducedImage image = read_image_file_reduced(path, "", [&](int, int) {
    asked = true;
    return DecodeRegion{8, 0, 0, 0, 0};
  });
  EXPECT_FALSE(asked);
  EXPECT_EQ(image.reduction, 1);
  EXPECT_EQ(image.bgr.cols, 300);
  EXPECT_EQ(image.original_width, 300);
  EXPECT_EQ(image.original_height, 200);
}

// A part decoded alone holds the same pixels as that part of the whole decode: rows skipped above it
// and iMCU columns cropped around it (libjpeg-turbo's jpeg_skip_scanlines, jpeg_crop_scanline). Only
// the margin around it may differ: at full size libjpeg upsamples the chroma of a cropped decode's
// first column without its left neighbour (measured: up to 10 levels there).
TEST(ReadImageFileReduced, DecodesThePartAskedForAsTheWholeDecodeHoldsIt) {
  const fs::path folder = testing_files::fresh_test_folder("mlh_image_files_test_part");
  cv::Mat bgr(240, 320, CV_8UC3);
  cv::randu(bgr, cv::Scalar::all(0), cv::Scalar::all(256));
  cv::GaussianBlur(bgr, bgr, cv::Size(7, 7), 2.0);
  for (const int progressive : {0, 1}) {
    const std::string path = (folder / ("photo" + std::to_string(progressive) + ".jpg")).string();
    std::vector<uint8_t> jpeg;
    ASSERT_TRUE(cv::imencode(".jpg", bgr, jpeg, {cv::IMWRITE_JPEG_QUALITY, 90, cv::IMWRITE_JPEG_PROGRESSIVE, progressive}));
    write_file(path, jpeg.data(), jpeg.size());
    for (const int reduction : {1, 2, 4}) {
      const ReducedImage whole = read_image_file_reduced(path, "", [&](int, int) { return DecodeRegion{reduction, 0, 0, 0, 0}; });
      const cv::Mat opencv = cv::imread(path, reduction == 1 ? cv::IMREAD_COLOR
                                              : reduction == 2 ? cv::IMREAD_REDUCED_COLOR_2
                                                               : cv::IMREAD_REDUCED_COLOR_4);
      ASSERT_EQ(cv::norm(whole.bgr, opencv, cv::NORM_INF), 0) << "libjpeg as OpenCV calls it, reduction " << reduction;
      const DecodeRegion region{reduction, 101, 37, 150, 120};
      const ReducedImage part = read_image_file_reduced(path, "", [&](int, int) { return region; });
      EXPECT_EQ(part.reduction, reduction);
      EXPECT_EQ(part.original_width, 320);
      // The part asked for, in reduced pixels, and one more around it.
      const int left = 101 / reduction, top = 37 / reduction;
      const int right = (101 + 150 + reduction - 1) / reduction, bottom = (37 + 120 + reduction - 1) / reduction;
      EXPECT_EQ(part.offset_y, top - 1);
      EXPECT_LE(part.offset_x, left - 1);
      EXPECT_GE(part.offset_x + part.bgr.cols, right + 1);
      EXPECT_EQ(part.offset_y + part.bgr.rows, bottom + 1);
      const cv::Rect asked(left, top, right - left, bottom - top);
      const cv::Rect in_part(left - part.offset_x, top - part.offset_y, right - left, bottom - top);
      EXPECT_EQ(cv::norm(part.bgr(in_part), whole.bgr(asked), cv::NORM_INF), 0)
          << "progressive " << progressive << ", reduction " << reduction;
    }
  }
}

}  // namespace
}  // namespace mlh
