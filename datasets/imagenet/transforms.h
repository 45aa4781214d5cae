// The MLPerf ResNet-50 preprocessing (the TF reference's imagenet_preprocessing.py) on decoded 8-bit
// images: a random distorted-bounding-box crop plus left-right flip for training, resize-256 and
// centre-crop-224 for evaluation. The transforms write 8-bit RGB, HWC (a quarter of float's bytes);
// the model's input is those values on the 0-255 scale minus the per-channel mean (no division by a
// standard deviation), CHW: normalize_to_chw here defines it on plain buffers, and
// datasets/imagenet/normalize.h computes the same floats as a tensor op on the device.
//
// Resizing is OpenCV's bilinear (INTER_LINEAR: half-pixel centres, no antialiasing) on 8-bit pixels,
// so values are whole numbers before the mean is subtracted; the TF reference resizes in float with
// TF1's sampling (no half-pixel offset), so outputs are close to the reference's, not bit-identical.
//
// An image may come decoded at 1/reduction of its size (libjpeg's DCT scaling: image_files.h,
// ReducedImage). The crop and the resize are then the same geometry in the original image's
// coordinates (the same box from the same seed): an affine map from each output pixel's centre to the
// reduced image, sampled bilinearly (OpenCV's warpAffine, positions to 1/32 pixel). Only the pixels
// the resize reads differ: the reduced decode averages each r x r block first, which a plain
// bilinear resize of the full decode does not.
#pragma once

#include <cstdint>

#include <opencv2/core/mat.hpp>

#include "datasets/image_files.h"

namespace mlh::imagenet {

inline constexpr float kMeanRgb[3] = {123.68f, 116.78f, 103.94f};  // subtracted on the 0-255 scale

struct CropBox {
  int x = 0, y = 0, width = 0, height = 0;
};

// The training crop, as tf.image.sample_distorted_bounding_box over the whole image with
// min_object_covered 0.1, aspect_ratio_range [0.75, 1.33], area_range [0.05, 1.0], 100 attempts,
// falling back to the whole image. Attempt a draws counter_random(seed, stream, 2a) for the area
// fraction f, uniform in [0.05, 1], and draw 2a+1 for the aspect ratio r (width / height), uniform in
// [0.75, 1.33]; w = round(sqrt(f*W*H*r)), h = round(sqrt(f*W*H/r)). It is accepted when
// 1 <= w <= W, 1 <= h <= H and w*h >= 0.1*W*H (min_object_covered for a whole-image box); then
// draws 200 and 201 place it: x uniform in [0, W-w], y uniform in [0, H-h]. If no attempt is
// accepted the box is the whole image. A pure function of (W, H, seed, stream). W, H >= 1.
CropBox sample_train_crop(int image_width, int image_height, uint64_t seed, uint64_t stream);

// The augmentation of sample `index` (an index into the dataset) in `epoch`: the crop is
// sample_train_crop(W, H, sample_seed, 0) and the flip the top bit of counter_random(sample_seed, 1, 0)
// (never when random_flip is false), where sample_seed = counter_random(seed, kAugmentStreamBase +
// epoch, index). It depends on nothing else: not on threads, batch composition or rank.
struct TrainAugmentation {
  CropBox crop;
  bool flip = false;
};
inline constexpr uint64_t kAugmentStreamBase = 0x696d6167656e6574ULL;  // "imagenet"
TrainAugmentation draw_train_augmentation(int image_width, int image_height, uint64_t seed,
                                          int64_t epoch, int64_t index, bool random_flip);

// The largest reduction (8, 4, 2, else 1) at which the training crop `box` still spans at least
// out_size pixels in both dimensions, so that the resize never enlarges what the reduced decode lost.
int train_reduction(const CropBox& box, int out_size);
// The largest reduction (8, 4, 2, else 1) at which the short side of a width x height image keeps at
// least resize_short pixels.
int eval_reduction(int width, int height, int resize_short);

// Crops `box` (in the original image's coordinates) of a decoded 8-bit BGR image (OpenCV's channel
// order), whole or a part decoded at 1/reduction (ReducedImage, datasets/image_files.h) that holds
// the box (and at reduction > 1 a reduced pixel around it where the image has one), bilinear-resizes
// the crop to out_size x out_size (aspect not kept), flips left-right if asked, and writes RGB, HWC:
// out_hwc[(y*S + x)*3 + c], S = out_size. At reduction 1 the crop is a view (only the box is read)
// and the resize is cv::resize's; the flip follows the resize (half-pixel bilinear sampling is
// mirror-symmetric, so this matches flipping before it up to weight rounding).
void train_transform(const ReducedImage& image, const CropBox& box, bool flip, int out_size, uint8_t* out_hwc);
// The whole image decoded at full size.
void train_transform(const cv::Mat& bgr, const CropBox& box, bool flip, int out_size, uint8_t* out_hwc);

// Aspect-preserving bilinear resize so that the original image's short side is resize_short (the
// other side truncated, as the reference's tf.cast does), then the centre out_size x out_size crop
// (offsets rounded down), written as train_transform writes, from the whole image decoded at
// 1/reduction. Needs resize_short >= out_size.
void eval_transform(const ReducedImage& image, int resize_short, int out_size, uint8_t* out_hwc);
// The whole image decoded at full size.
void eval_transform(const cv::Mat& bgr, int resize_short, int out_size, uint8_t* out_hwc);

// The model's input from a transform's output: out_chw[c*S*S + y*S + x] =
// float(rgb_hwc[(y*S + x)*3 + c]) - kMeanRgb[c], S = size. One float subtraction of whole numbers, so
// any implementation that subtracts in float gives these floats bit for bit.
void normalize_to_chw(const uint8_t* rgb_hwc, int size, float* out_chw);

}  // namespace mlh::imagenet
