// The SSD300 preprocessing of the MLPerf reference (single_stage_detector/ssd/utils.py, SSDCropping
// and SSDTransformer; spec/workloads.md §3 "Data") on decoded 8-bit images. Training: the SSD random
// crop, a left-right flip, a resize to out_size x out_size (aspect not kept), torchvision's
// ColorJitter, then RGB floats in [0, 1] normalised per channel as torchvision's ImageNet models
// (common::kTorchvisionMeanRgb, kTorchvisionStdRgb). Evaluation: the resize and the
// normalisation only. Output is float CHW in RGB order. No LibTorch here: plain float buffers.
//
// Boxes are normalised ltrb: x1, y1, x2, y2 as fractions of the image's width and height, 4 floats a
// box, with one int64 label each.
//
// Differences from the reference, which works on PIL images: resizing is OpenCV's bilinear
// (INTER_LINEAR, no antialiasing; PIL's bilinear antialiases when shrinking), and the jitter's grey and
// HSV conversions are OpenCV's; each jitter step still rounds to 8 bits as PIL's do. The flip is
// applied while writing the output, after the jitter (all four jitter steps commute with a mirror).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "workloads/common/torchvision_normalize.h"

namespace mlh::ssd {

// torchvision ColorJitter's arguments: factors uniform in [max(0, 1 - s), 1 + s] for brightness,
// contrast and saturation, a hue shift uniform in [-hue, hue] (of a full turn, hue <= 0.5). A
// strength of 0 leaves that step out, as torchvision does.
struct ColorJitterStrengths {
  double brightness = 0.125;
  double contrast = 0.5;
  double saturation = 0.5;
  double hue = 0.05;
};

// Every knob of the pipeline, the reference's values by default.
struct SsdTransformOptions {
  int out_size = 300;      // output side, pixels
  bool random_crop = true;
  int crop_max_samples = 1;    // crop attempts per drawn option (the v0.7 rules allow 1 or 50)
  int crop_max_rounds = 1000;  // option draws before the whole image is kept (never loop forever)
  double crop_min_side = 0.3;  // crop width and height are uniform in [crop_min_side, 1]
  double crop_min_aspect = 0.5;  // accepted crop width / height range (in normalised units)
  double crop_max_aspect = 2.0;
  bool random_flip = true;  // p 0.5
  bool color_jitter = true;
  ColorJitterStrengths jitter;
};

// Throws UserError naming the option (prefixed by `where`) for a value out of range.
void check_ssd_transform_options(const SsdTransformOptions& options, const char* where);

// The crop window in normalised image coordinates; the whole image when whole_image.
struct SsdCrop {
  bool whole_image = true;
  double left = 0, top = 0, right = 1, bottom = 1;
  double min_iou = 0;  // the drawn option's minimum IoU that the window met (-inf: none)
};

// The reference's SSDCropping. Each round draws one of 7 options uniformly: keep the whole image; a
// minimum IoU of 0.1, 0.3, 0.5, 0.7 or 0.9; or no IoU constraint. For a crop option it makes up to
// crop_max_samples attempts: width and height uniform in [crop_min_side, 1], rejected unless the
// aspect lies in [crop_min_aspect, crop_max_aspect]; left uniform in [0, 1 - width], top in
// [0, 1 - height]; accepted when every box has IoU with the window above the minimum and at least one
// box centre lies strictly inside. Rounds repeat until one is accepted, up to crop_max_rounds, after
// which the whole image is kept. With no boxes the whole image is kept. The draws are those of the
// counter stream `key` (counter_random.h): a pure function of the boxes, the options and the key.
SsdCrop sample_ssd_crop(const std::vector<float>& boxes_ltrb, const SsdTransformOptions& options,
                        uint64_t key);

// Applies the crop to the boxes as the reference does: keeps the boxes whose centre lies strictly
// inside the window (with their labels), clips them to it and renormalises them to the window.
void crop_boxes(const SsdCrop& crop, std::vector<float>& boxes_ltrb, std::vector<int64_t>& labels);

// The pixel rectangle of a crop of a width x height image, as the reference cuts it: each edge at the
// integer part of its normalised coordinate times the side (at least one pixel wide and high).
cv::Rect crop_pixels(const SsdCrop& crop, int width, int height);

// Mirrors boxes left-right: x1, x2 become 1 - x2, 1 - x1.
void flip_boxes(std::vector<float>& boxes_ltrb);

// One draw of ColorJitter: the order of its four steps and their factors.
struct ColorJitterDraw {
  enum Step : int { kBrightness = 0, kContrast = 1, kSaturation = 2, kHue = 3 };
  std::array<int, 4> order = {kBrightness, kContrast, kSaturation, kHue};  // a permutation
  // Whether each step applies (its strength is non-zero), by Step.
  std::array<bool, 4> enabled = {false, false, false, false};
  double brightness = 1, contrast = 1, saturation = 1;  // blend factors
  double hue_shift = 0;                                  // fraction of a full turn
};

// Draws the permutation (keyed_shuffle with stream_key(key, 0)) and then the brightness, contrast,
// saturation and hue draws in that order (stream_key(key, 1)): a pure function of its arguments.
ColorJitterDraw draw_color_jitter(const ColorJitterStrengths& strengths, uint64_t key);

// Applies the enabled steps in order, in place, to an 8-bit 3-channel BGR image, each back to 8
// bits: brightness blends with black, contrast with the (rounded) mean of the grey image,
// saturation with the grey image (blends truncate to 8 bits as PIL's do), and hue adds
// trunc(hue_shift * 255), modulo 256, to the hue channel of OpenCV's full-range 8-bit HSV (as
// torchvision adds np.uint8(hue_factor * 255) to PIL's).
void apply_color_jitter(const ColorJitterDraw& draw, cv::Mat& bgr);

// The random choices of sample `index` in `epoch`. sample_seed = counter_random(seed,
// kSsdAugmentStreamBase + epoch, index); the crop uses stream_key(sample_seed, 0), the flip the top
// bit of counter_random(sample_seed, 1, 0), the jitter stream_key(sample_seed, 2). They depend on
// nothing else: not on threads, batch composition or rank.
struct SsdAugmentation {
  SsdCrop crop;
  bool flip = false;
  ColorJitterDraw jitter;
};
inline constexpr uint64_t kSsdAugmentStreamBase = 0x73736433303063ULL;  // "ssd300c"
SsdAugmentation draw_ssd_augmentation(const std::vector<float>& boxes_ltrb,
                                      const SsdTransformOptions& options, uint64_t seed,
                                      int64_t epoch, int64_t index);

// The training transform of one image: crops a decoded 8-bit BGR image and its boxes, flips them if
// asked, resizes the crop to out_size x out_size, jitters its colours and writes normalised RGB
// planes: out_chw[c*S*S + y*S + x], S = out_size. The boxes and labels are updated in place.
void ssd_train_transform(const cv::Mat& bgr, const SsdAugmentation& augmentation,
                         const SsdTransformOptions& options, std::vector<float>& boxes_ltrb,
                         std::vector<int64_t>& labels, float* out_chw);

// The evaluation transform: resize to out_size x out_size and normalise, same layout. Normalised
// boxes need no change.
void ssd_eval_transform(const cv::Mat& bgr, int out_size, float* out_chw);

}  // namespace mlh::ssd
