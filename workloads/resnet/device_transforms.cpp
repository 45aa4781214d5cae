#include "workloads/resnet/device_transforms.h"

#include <algorithm>

#include <torch/nn/functional/upsampling.h>

#include "base/user_error.h"

namespace mlh::resnet {
namespace {

// rgb_hwc resized to height x width (bilinear, rounded to 8 bits); itself when it has that size.
torch::Tensor resized(const torch::Tensor& rgb_hwc, int64_t height, int64_t width) {
  if (rgb_hwc.size(0) == height && rgb_hwc.size(1) == width) return rgb_hwc;
  namespace F = torch::nn::functional;
  const torch::Tensor nchw = rgb_hwc.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat);
  // A convex combination of bytes: rounding keeps it in [0, 255].
  const torch::Tensor out = F::interpolate(nchw, F::InterpolateFuncOptions()
                                                     .size(std::vector<int64_t>{height, width})
                                                     .mode(torch::kBilinear)
                                                     .align_corners(false));
  return out.round_().to(torch::kByte).squeeze(0).permute({1, 2, 0});
}

}  // namespace

torch::Tensor train_transform_tensor(const torch::Tensor& rgb_hwc, const imagenet::CropBox& box, bool flip,
                                     int out_size) {
  MLH_ASSERT(rgb_hwc.dim() == 3 && rgb_hwc.size(2) == 3 && rgb_hwc.scalar_type() == torch::kByte && out_size >= 1);
  MLH_ASSERT(box.x >= 0 && box.y >= 0 && box.width >= 1 && box.height >= 1 && box.x + box.width <= rgb_hwc.size(1) &&
             box.y + box.height <= rgb_hwc.size(0));
  const torch::Tensor crop = rgb_hwc.narrow(0, box.y, box.height).narrow(1, box.x, box.width);
  const torch::Tensor out = resized(crop, out_size, out_size);
  return flip ? out.flip({1}) : out;
}

torch::Tensor eval_transform_tensor(const torch::Tensor& rgb_hwc, int resize_short, int out_size) {
  MLH_ASSERT(rgb_hwc.dim() == 3 && rgb_hwc.size(2) == 3 && rgb_hwc.scalar_type() == torch::kByte);
  MLH_ASSERT(out_size >= 1 && resize_short >= out_size);
  const int64_t original_height = rgb_hwc.size(0), original_width = rgb_hwc.size(1);
  const int64_t short_side = std::min(original_width, original_height);
  const int64_t width = original_width * resize_short / short_side;
  const int64_t height = original_height * resize_short / short_side;
  const int64_t left = (width - out_size) / 2, top = (height - out_size) / 2;
  return resized(rgb_hwc, height, width).narrow(0, top, out_size).narrow(1, left, out_size);
}

}  // namespace mlh::resnet
