#include "workloads/ssd/ssd_transforms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "datasets/counter_random.h"

namespace mlh::ssd {
namespace {

// SSDCropping's options: keep the image, a minimum IoU, or no constraint (-inf).
constexpr int kCropOptionCount = 7;
constexpr double kCropMinIou[kCropOptionCount] = {
    0,  // unused: option 0 keeps the whole image
    0.1, 0.3, 0.5, 0.7, 0.9, -std::numeric_limits<double>::infinity()};

// Streams under a sample's own seed.
constexpr uint64_t kCropStream = 0;
constexpr uint64_t kFlipStream = 1;
constexpr uint64_t kJitterStream = 2;

double keyed_uniform(uint64_t key, uint64_t& draw, double low, double high) {
  return low + (high - low) * unit_interval(keyed_random(key, draw++));
}

double iou(const float* box, const SsdCrop& window) {
  const double inter_width = std::max(0.0, std::min<double>(box[2], window.right) -
                                               std::max<double>(box[0], window.left));
  const double inter_height = std::max(0.0, std::min<double>(box[3], window.bottom) -
                                                std::max<double>(box[1], window.top));
  const double intersection = inter_width * inter_height;
  const double box_area = (double{box[2]} - box[0]) * (double{box[3]} - box[1]);
  const double window_area = (window.right - window.left) * (window.bottom - window.top);
  return intersection / (box_area + window_area - intersection);
}

bool centre_inside(const float* box, const SsdCrop& window) {
  const double centre_x = 0.5 * (double{box[0]} + box[2]);
  const double centre_y = 0.5 * (double{box[1]} + box[3]);
  return centre_x > window.left && centre_x < window.right && centre_y > window.top &&
         centre_y < window.bottom;
}

uint8_t truncate_to_8_bits(float value) {
  if (value <= 0.0f) return 0;
  if (value >= 255.0f) return 255;
  return static_cast<uint8_t>(value);
}

// PIL's Image.blend(degenerate, image, factor) with a constant degenerate image.
void blend_with_constant(cv::Mat& bgr, float degenerate, float factor) {
  for (int y = 0; y < bgr.rows; ++y) {
    uint8_t* row = bgr.ptr<uint8_t>(y);
    for (int i = 0; i < 3 * bgr.cols; ++i) {
      row[i] = truncate_to_8_bits(degenerate + factor * (static_cast<float>(row[i]) - degenerate));
    }
  }
}

cv::Mat grey_of(const cv::Mat& bgr) {
  cv::Mat grey;
  cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
  return grey;
}

void adjust_contrast(cv::Mat& bgr, float factor) {
  // PIL's ImageEnhance.Contrast: the grey image's mean, rounded to an integer.
  const double mean = cv::mean(grey_of(bgr))[0];
  blend_with_constant(bgr, static_cast<float>(static_cast<int>(mean + 0.5)), factor);
}

void adjust_saturation(cv::Mat& bgr, float factor) {
  const cv::Mat grey = grey_of(bgr);
  for (int y = 0; y < bgr.rows; ++y) {
    uint8_t* row = bgr.ptr<uint8_t>(y);
    const uint8_t* grey_row = grey.ptr<uint8_t>(y);
    for (int x = 0; x < bgr.cols; ++x) {
      const float degenerate = grey_row[x];
      for (int c = 0; c < 3; ++c) {
        uint8_t& value = row[3 * x + c];
        value = truncate_to_8_bits(degenerate + factor * (static_cast<float>(value) - degenerate));
      }
    }
  }
}

void adjust_hue(cv::Mat& bgr, double hue_shift) {
  // np.uint8(hue_factor * 255): truncation toward zero, then modulo 256.
  const auto shift = static_cast<uint8_t>(static_cast<int>(hue_shift * 255.0) & 0xFF);
  if (shift == 0) return;
  cv::Mat hsv;
  cv::cvtColor(bgr, hsv, cv::COLOR_BGR2HSV_FULL);
  for (int y = 0; y < hsv.rows; ++y) {
    uint8_t* row = hsv.ptr<uint8_t>(y);
    for (int x = 0; x < hsv.cols; ++x) row[3 * x] = static_cast<uint8_t>(row[3 * x] + shift);
  }
  cv::cvtColor(hsv, bgr, cv::COLOR_HSV2BGR_FULL);
}

// Writes an 8-bit BGR image of out_size x out_size as normalised RGB planes, mirrored if asked.
void write_normalised_rgb_planes(const cv::Mat& bgr, bool flip, float* out_chw) {
  const int size = bgr.cols;
  const size_t plane = static_cast<size_t>(size) * size;
  // value / 255 then (v - mean) / std, as one multiply-add per value.
  float scale[3], offset[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * common::kTorchvisionStdRgb[c]);
    offset[c] = -common::kTorchvisionMeanRgb[c] / common::kTorchvisionStdRgb[c];
  }
  float* red = out_chw;
  float* green = out_chw + plane;
  float* blue = out_chw + 2 * plane;
  for (int y = 0; y < size; ++y) {
    const uint8_t* row = bgr.ptr<uint8_t>(y);
    const size_t offset_row = static_cast<size_t>(y) * size;
    for (int x = 0; x < size; ++x) {
      const uint8_t* pixel = row + 3 * (flip ? size - 1 - x : x);
      red[offset_row + x] = static_cast<float>(pixel[2]) * scale[0] + offset[0];
      green[offset_row + x] = static_cast<float>(pixel[1]) * scale[1] + offset[1];
      blue[offset_row + x] = static_cast<float>(pixel[0]) * scale[2] + offset[2];
    }
  }
}

// The image resized to out_size x out_size, in memory of its own (jitter writes to it).
cv::Mat resized_copy(const cv::Mat& bgr, int out_size) {
  cv::Mat resized;
  if (bgr.cols == out_size && bgr.rows == out_size) {
    bgr.copyTo(resized);
  } else {
    cv::resize(bgr, resized, cv::Size(out_size, out_size), 0, 0, cv::INTER_LINEAR);
  }
  return resized;
}

void check(bool holds, const char* where, const std::string& message) {
  if (!holds) throw UserError(std::string(where) + ": " + message);
}

}  // namespace

void check_ssd_transform_options(const SsdTransformOptions& options, const char* where) {
  check(options.out_size >= 1, where,
        "out_size is " + std::to_string(options.out_size) + "; it must be positive");
  check(options.crop_max_samples >= 1, where,
        "crop_max_samples is " + std::to_string(options.crop_max_samples) +
            "; make at least 1 attempt per drawn option");
  check(options.crop_max_rounds >= 1, where,
        "crop_max_rounds is " + std::to_string(options.crop_max_rounds) + "; it must be at least 1");
  check(options.crop_min_side > 0 && options.crop_min_side <= 1, where,
        "crop_min_side is " + std::to_string(options.crop_min_side) + "; it must lie in (0, 1]");
  check(options.crop_min_aspect > 0 && options.crop_min_aspect <= options.crop_max_aspect, where,
        "crop aspect range [" + std::to_string(options.crop_min_aspect) + ", " +
            std::to_string(options.crop_max_aspect) + "] is empty or not positive");
  const ColorJitterStrengths& jitter = options.jitter;
  check(jitter.brightness >= 0 && jitter.contrast >= 0 && jitter.saturation >= 0, where,
        "jitter brightness, contrast and saturation must not be negative");
  check(jitter.hue >= 0 && jitter.hue <= 0.5, where,
        "jitter hue is " + std::to_string(jitter.hue) + "; it must lie in [0, 0.5]");
}

SsdCrop sample_ssd_crop(const std::vector<float>& boxes_ltrb, const SsdTransformOptions& options,
                        uint64_t key) {
  MLH_ASSERT(boxes_ltrb.size() % 4 == 0);
  const size_t box_count = boxes_ltrb.size() / 4;
  if (box_count == 0) return SsdCrop{};
  uint64_t draw = 0;
  for (int round = 0; round < options.crop_max_rounds; ++round) {
    const auto option = static_cast<int>(keyed_uniform_below(key, draw, kCropOptionCount));
    if (option == 0) return SsdCrop{};
    const double min_iou = kCropMinIou[option];
    for (int attempt = 0; attempt < options.crop_max_samples; ++attempt) {
      const double width = keyed_uniform(key, draw, options.crop_min_side, 1.0);
      const double height = keyed_uniform(key, draw, options.crop_min_side, 1.0);
      if (width / height < options.crop_min_aspect || width / height > options.crop_max_aspect) {
        continue;
      }
      SsdCrop window;
      window.whole_image = false;
      window.min_iou = min_iou;
      window.left = keyed_uniform(key, draw, 0.0, 1.0 - width);
      window.top = keyed_uniform(key, draw, 0.0, 1.0 - height);
      window.right = window.left + width;
      window.bottom = window.top + height;
      bool accepted = true;
      bool any_centre_inside = false;
      for (size_t b = 0; b < box_count && accepted; ++b) {
        const float* box = &boxes_ltrb[4 * b];
        accepted = iou(box, window) > min_iou;
        any_centre_inside = any_centre_inside || centre_inside(box, window);
      }
      if (accepted && any_centre_inside) return window;
    }
  }
  return SsdCrop{};
}

void crop_boxes(const SsdCrop& crop, std::vector<float>& boxes_ltrb, std::vector<int64_t>& labels) {
  MLH_ASSERT(boxes_ltrb.size() == 4 * labels.size());
  if (crop.whole_image) return;
  const double width = crop.right - crop.left;
  const double height = crop.bottom - crop.top;
  size_t kept = 0;
  for (size_t b = 0; b < labels.size(); ++b) {
    const float* box = &boxes_ltrb[4 * b];
    if (!centre_inside(box, crop)) continue;
    const double left = std::max<double>(box[0], crop.left);
    const double top = std::max<double>(box[1], crop.top);
    const double right = std::min<double>(box[2], crop.right);
    const double bottom = std::min<double>(box[3], crop.bottom);
    float* out = &boxes_ltrb[4 * kept];
    out[0] = static_cast<float>((left - crop.left) / width);
    out[1] = static_cast<float>((top - crop.top) / height);
    out[2] = static_cast<float>((right - crop.left) / width);
    out[3] = static_cast<float>((bottom - crop.top) / height);
    labels[kept] = labels[b];
    ++kept;
  }
  boxes_ltrb.resize(4 * kept);
  labels.resize(kept);
}

cv::Rect crop_pixels(const SsdCrop& crop, int width, int height) {
  MLH_ASSERT(width >= 1 && height >= 1);
  if (crop.whole_image) return cv::Rect(0, 0, width, height);
  const auto edge = [](double fraction, int side) {
    return std::clamp(static_cast<int>(fraction * side), 0, side);
  };
  const int left = std::min(edge(crop.left, width), width - 1);
  const int top = std::min(edge(crop.top, height), height - 1);
  const int right = std::max(edge(crop.right, width), left + 1);
  const int bottom = std::max(edge(crop.bottom, height), top + 1);
  return cv::Rect(left, top, right - left, bottom - top);
}

void flip_boxes(std::vector<float>& boxes_ltrb) {
  MLH_ASSERT(boxes_ltrb.size() % 4 == 0);
  for (size_t i = 0; i < boxes_ltrb.size(); i += 4) {
    const float left = boxes_ltrb[i];
    boxes_ltrb[i] = 1.0f - boxes_ltrb[i + 2];
    boxes_ltrb[i + 2] = 1.0f - left;
  }
}

ColorJitterDraw draw_color_jitter(const ColorJitterStrengths& strengths, uint64_t key) {
  ColorJitterDraw jitter;
  std::vector<int> order(jitter.order.begin(), jitter.order.end());
  keyed_shuffle(order, stream_key(key, 0));
  std::copy(order.begin(), order.end(), jitter.order.begin());
  const uint64_t factor_key = stream_key(key, 1);
  uint64_t draw = 0;
  const auto factor = [&](double strength) {
    return keyed_uniform(factor_key, draw, std::max(0.0, 1.0 - strength), 1.0 + strength);
  };
  jitter.enabled[ColorJitterDraw::kBrightness] = strengths.brightness > 0;
  jitter.enabled[ColorJitterDraw::kContrast] = strengths.contrast > 0;
  jitter.enabled[ColorJitterDraw::kSaturation] = strengths.saturation > 0;
  jitter.enabled[ColorJitterDraw::kHue] = strengths.hue > 0;
  jitter.brightness = factor(strengths.brightness);
  jitter.contrast = factor(strengths.contrast);
  jitter.saturation = factor(strengths.saturation);
  jitter.hue_shift = keyed_uniform(factor_key, draw, -strengths.hue, strengths.hue);
  return jitter;
}

void apply_color_jitter(const ColorJitterDraw& draw, cv::Mat& bgr) {
  MLH_ASSERT(bgr.type() == CV_8UC3);
  for (const int step : draw.order) {
    if (!draw.enabled[static_cast<size_t>(step)]) continue;
    switch (step) {
      case ColorJitterDraw::kBrightness:
        blend_with_constant(bgr, 0.0f, static_cast<float>(draw.brightness));
        break;
      case ColorJitterDraw::kContrast:
        adjust_contrast(bgr, static_cast<float>(draw.contrast));
        break;
      case ColorJitterDraw::kSaturation:
        adjust_saturation(bgr, static_cast<float>(draw.saturation));
        break;
      case ColorJitterDraw::kHue:
        adjust_hue(bgr, draw.hue_shift);
        break;
      default:
        MLH_ASSERT(false);
    }
  }
}

SsdAugmentation draw_ssd_augmentation(const std::vector<float>& boxes_ltrb,
                                      const SsdTransformOptions& options, uint64_t seed,
                                      int64_t epoch, int64_t index) {
  const uint64_t sample_seed = counter_random(
      seed, kSsdAugmentStreamBase + static_cast<uint64_t>(epoch), static_cast<uint64_t>(index));
  SsdAugmentation augmentation;
  if (options.random_crop) {
    augmentation.crop = sample_ssd_crop(boxes_ltrb, options, stream_key(sample_seed, kCropStream));
  }
  augmentation.flip = options.random_flip && (counter_random(sample_seed, kFlipStream, 0) >> 63) != 0;
  if (options.color_jitter) {
    augmentation.jitter = draw_color_jitter(options.jitter, stream_key(sample_seed, kJitterStream));
  }
  return augmentation;
}

void ssd_train_transform(const cv::Mat& bgr, const SsdAugmentation& augmentation,
                         const SsdTransformOptions& options, std::vector<float>& boxes_ltrb,
                         std::vector<int64_t>& labels, float* out_chw) {
  MLH_ASSERT(bgr.type() == CV_8UC3 && bgr.cols >= 1 && bgr.rows >= 1 && options.out_size >= 1);
  crop_boxes(augmentation.crop, boxes_ltrb, labels);
  if (augmentation.flip) flip_boxes(boxes_ltrb);
  cv::Mat image = resized_copy(bgr(crop_pixels(augmentation.crop, bgr.cols, bgr.rows)), options.out_size);
  apply_color_jitter(augmentation.jitter, image);
  write_normalised_rgb_planes(image, augmentation.flip, out_chw);
}

void ssd_eval_transform(const cv::Mat& bgr, int out_size, float* out_chw) {
  MLH_ASSERT(bgr.type() == CV_8UC3 && bgr.cols >= 1 && bgr.rows >= 1 && out_size >= 1);
  if (bgr.cols == out_size && bgr.rows == out_size) {
    write_normalised_rgb_planes(bgr, false, out_chw);
    return;
  }
  cv::Mat resized;
  cv::resize(bgr, resized, cv::Size(out_size, out_size), 0, 0, cv::INTER_LINEAR);
  write_normalised_rgb_planes(resized, false, out_chw);
}

}  // namespace mlh::ssd
