#include "datasets/imagenet/transforms.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "datasets/counter_random.h"

namespace mlh::imagenet {
namespace {

constexpr double kMinObjectCovered = 0.1;
constexpr double kMinAreaFraction = 0.05;
constexpr double kMaxAreaFraction = 1.0;
constexpr double kMinAspectRatio = 0.75;
constexpr double kMaxAspectRatio = 1.33;
constexpr int kMaxAttempts = 100;
constexpr uint64_t kPlacementDraw = 2 * kMaxAttempts;  // draws 200 (x) and 201 (y)
// Streams under a sample's own seed.
constexpr uint64_t kCropStream = 0;
constexpr uint64_t kFlipStream = 1;

double uniform(uint64_t seed, uint64_t stream, uint64_t index, double low, double high) {
  return low + (high - low) * unit_interval(counter_random(seed, stream, index));
}

// An integer uniform in [0, count).
int uniform_below(uint64_t seed, uint64_t stream, uint64_t index, int count) {
  const int draw = static_cast<int>(unit_interval(counter_random(seed, stream, index)) * count);
  return std::min(draw, count - 1);
}

// Writes an 8-bit BGR image of out_size x out_size as RGB planes minus the mean, mirrored if asked.
void write_rgb_planes(const cv::Mat& bgr, bool flip, float* out_chw) {
  const int size = bgr.cols;
  const size_t plane = static_cast<size_t>(size) * size;
  float* red = out_chw;
  float* green = out_chw + plane;
  float* blue = out_chw + 2 * plane;
  for (int y = 0; y < size; ++y) {
    const uint8_t* row = bgr.ptr<uint8_t>(y);
    const size_t offset = static_cast<size_t>(y) * size;
    for (int x = 0; x < size; ++x) {
      const uint8_t* pixel = row + 3 * (flip ? size - 1 - x : x);
      red[offset + x] = static_cast<float>(pixel[2]) - kMeanRgb[0];
      green[offset + x] = static_cast<float>(pixel[1]) - kMeanRgb[1];
      blue[offset + x] = static_cast<float>(pixel[0]) - kMeanRgb[2];
    }
  }
}

}  // namespace

CropBox sample_train_crop(int image_width, int image_height, uint64_t seed, uint64_t stream) {
  MLH_ASSERT(image_width >= 1 && image_height >= 1);
  const double image_area = static_cast<double>(image_width) * image_height;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const uint64_t draw = 2 * static_cast<uint64_t>(attempt);
    const double area =
        image_area * uniform(seed, stream, draw, kMinAreaFraction, kMaxAreaFraction);
    const double aspect_ratio = uniform(seed, stream, draw + 1, kMinAspectRatio, kMaxAspectRatio);
    const int64_t width = std::llround(std::sqrt(area * aspect_ratio));
    const int64_t height = std::llround(std::sqrt(area / aspect_ratio));
    if (width < 1 || height < 1 || width > image_width || height > image_height) continue;
    if (static_cast<double>(width * height) < kMinObjectCovered * image_area) continue;
    CropBox box;
    box.width = static_cast<int>(width);
    box.height = static_cast<int>(height);
    box.x = uniform_below(seed, stream, kPlacementDraw, image_width - box.width + 1);
    box.y = uniform_below(seed, stream, kPlacementDraw + 1, image_height - box.height + 1);
    return box;
  }
  CropBox whole;
  whole.width = image_width;
  whole.height = image_height;
  return whole;
}

TrainAugmentation draw_train_augmentation(int image_width, int image_height, uint64_t seed,
                                          int64_t epoch, int64_t index, bool random_flip) {
  const uint64_t sample_seed = counter_random(
      seed, kAugmentStreamBase + static_cast<uint64_t>(epoch), static_cast<uint64_t>(index));
  TrainAugmentation augmentation;
  augmentation.crop = sample_train_crop(image_width, image_height, sample_seed, kCropStream);
  augmentation.flip = random_flip && (counter_random(sample_seed, kFlipStream, 0) >> 63) != 0;
  return augmentation;
}

void train_transform(const cv::Mat& bgr, const CropBox& box, bool flip, int out_size,
                     float* out_chw) {
  MLH_ASSERT(bgr.type() == CV_8UC3 && out_size >= 1);
  MLH_ASSERT(box.x >= 0 && box.y >= 0 && box.width >= 1 && box.height >= 1 &&
             box.x + box.width <= bgr.cols && box.y + box.height <= bgr.rows);
  const cv::Mat crop = bgr(cv::Rect(box.x, box.y, box.width, box.height));
  if (crop.cols == out_size && crop.rows == out_size) {
    write_rgb_planes(crop, flip, out_chw);
    return;
  }
  cv::Mat resized;
  cv::resize(crop, resized, cv::Size(out_size, out_size), 0, 0, cv::INTER_LINEAR);
  write_rgb_planes(resized, flip, out_chw);
}

void eval_transform(const cv::Mat& bgr, int resize_short, int out_size, float* out_chw) {
  MLH_ASSERT(bgr.type() == CV_8UC3 && bgr.cols >= 1 && bgr.rows >= 1);
  MLH_ASSERT(out_size >= 1 && resize_short >= out_size);
  const int64_t short_side = std::min(bgr.cols, bgr.rows);
  // Integer arithmetic: the short side becomes exactly resize_short, the long side is truncated.
  const int width = static_cast<int>(int64_t{bgr.cols} * resize_short / short_side);
  const int height = static_cast<int>(int64_t{bgr.rows} * resize_short / short_side);
  cv::Mat resized;
  if (width == bgr.cols && height == bgr.rows) {
    resized = bgr;
  } else {
    cv::resize(bgr, resized, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
  }
  const cv::Rect centre((width - out_size) / 2, (height - out_size) / 2, out_size, out_size);
  write_rgb_planes(resized(centre), false, out_chw);
}

}  // namespace mlh::imagenet
