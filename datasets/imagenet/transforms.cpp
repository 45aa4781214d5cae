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

// Writes an 8-bit BGR image as RGB, HWC into out_hwc (of bgr's size), mirrored if asked.
void write_rgb(const cv::Mat& bgr, bool flip, uint8_t* out_hwc) {
  cv::Mat rgb(bgr.rows, bgr.cols, CV_8UC3, out_hwc);
  if (!flip) {
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return;
  }
  thread_local cv::Mat mirrored;
  cv::flip(bgr, mirrored, 1);
  cv::cvtColor(mirrored, rgb, cv::COLOR_BGR2RGB);
}

// Samples out_width x out_height pixels of an image decoded at 1/reduction (reduction > 1): output
// pixel (u, v) takes the original image's point (x0 + (u + 0.5) * scale_x, y0 + (v + 0.5) * scale_y),
// which lies at that point / reduction - 0.5 in the whole reduced image's pixel indices, less the
// decoded part's offset.
void resample_reduced(const ReducedImage& image, double x0, double y0, double scale_x, double scale_y,
                      int out_width, int out_height, cv::Mat* out) {
  const double r = image.reduction;
  const cv::Matx23d output_to_decoded(scale_x / r, 0, (x0 + 0.5 * scale_x) / r - 0.5 - image.offset_x,  //
                                      0, scale_y / r, (y0 + 0.5 * scale_y) / r - 0.5 - image.offset_y);
  cv::warpAffine(image.bgr, *out, output_to_decoded, cv::Size(out_width, out_height),
                 cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
}

ReducedImage whole(const cv::Mat& bgr) {
  ReducedImage image;
  image.bgr = bgr;
  image.original_width = bgr.cols;
  image.original_height = bgr.rows;
  return image;
}

int largest_reduction_keeping(int pixels, int needed) {
  for (const int reduction : {8, 4, 2}) {
    if (pixels >= int64_t{reduction} * needed) return reduction;
  }
  return 1;
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

int train_reduction(const CropBox& box, int out_size) {
  return largest_reduction_keeping(std::min(box.width, box.height), out_size);
}

int eval_reduction(int width, int height, int resize_short) {
  return largest_reduction_keeping(std::min(width, height), resize_short);
}

void train_transform(const ReducedImage& image, const CropBox& box, bool flip, int out_size, uint8_t* out_hwc) {
  const cv::Mat& bgr = image.bgr;
  MLH_ASSERT(bgr.type() == CV_8UC3 && out_size >= 1 && image.reduction >= 1);
  MLH_ASSERT(box.x >= 0 && box.y >= 0 && box.width >= 1 && box.height >= 1 &&
             box.x + box.width <= image.original_width && box.y + box.height <= image.original_height);
  thread_local cv::Mat resized;
  if (image.reduction > 1) {
    resample_reduced(image, box.x, box.y, static_cast<double>(box.width) / out_size,
                     static_cast<double>(box.height) / out_size, out_size, out_size, &resized);
    write_rgb(resized, flip, out_hwc);
    return;
  }
  const cv::Rect part(box.x - image.offset_x, box.y - image.offset_y, box.width, box.height);
  MLH_ASSERT(part.x >= 0 && part.y >= 0 && part.x + part.width <= bgr.cols && part.y + part.height <= bgr.rows);
  const cv::Mat crop = bgr(part);
  if (crop.cols == out_size && crop.rows == out_size) {
    write_rgb(crop, flip, out_hwc);
    return;
  }
  cv::resize(crop, resized, cv::Size(out_size, out_size), 0, 0, cv::INTER_LINEAR);
  write_rgb(resized, flip, out_hwc);
}

void train_transform(const cv::Mat& bgr, const CropBox& box, bool flip, int out_size, uint8_t* out_hwc) {
  train_transform(whole(bgr), box, flip, out_size, out_hwc);
}

void eval_transform(const ReducedImage& image, int resize_short, int out_size, uint8_t* out_hwc) {
  const cv::Mat& bgr = image.bgr;
  MLH_ASSERT(bgr.type() == CV_8UC3 && bgr.cols >= 1 && bgr.rows >= 1 && image.reduction >= 1);
  MLH_ASSERT(out_size >= 1 && resize_short >= out_size);
  MLH_ASSERT(image.offset_x == 0 && image.offset_y == 0);
  const int original_width = image.original_width, original_height = image.original_height;
  const int64_t short_side = std::min(original_width, original_height);
  // Integer arithmetic: the short side becomes exactly resize_short, the long side is truncated.
  const int width = static_cast<int>(int64_t{original_width} * resize_short / short_side);
  const int height = static_cast<int>(int64_t{original_height} * resize_short / short_side);
  const int left = (width - out_size) / 2, top = (height - out_size) / 2;
  thread_local cv::Mat resized;
  if (image.reduction > 1) {
    const double scale_x = static_cast<double>(original_width) / width;
    const double scale_y = static_cast<double>(original_height) / height;
    resample_reduced(image, left * scale_x, top * scale_y, scale_x, scale_y, out_size, out_size, &resized);
    write_rgb(resized, false, out_hwc);
    return;
  }
  MLH_ASSERT(bgr.cols == original_width && bgr.rows == original_height);
  if (width == bgr.cols && height == bgr.rows) {
    write_rgb(bgr(cv::Rect(left, top, out_size, out_size)), false, out_hwc);
    return;
  }
  cv::resize(bgr, resized, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
  write_rgb(resized(cv::Rect(left, top, out_size, out_size)), false, out_hwc);
}

void eval_transform(const cv::Mat& bgr, int resize_short, int out_size, uint8_t* out_hwc) {
  eval_transform(whole(bgr), resize_short, out_size, out_hwc);
}

void normalize_to_chw(const uint8_t* rgb_hwc, int size, float* out_chw) {
  const size_t plane = static_cast<size_t>(size) * size;
  for (size_t pixel = 0; pixel < plane; ++pixel) {
    for (size_t channel = 0; channel < 3; ++channel) {
      out_chw[channel * plane + pixel] = static_cast<float>(rgb_hwc[pixel * 3 + channel]) - kMeanRgb[channel];
    }
  }
}

}  // namespace mlh::imagenet
