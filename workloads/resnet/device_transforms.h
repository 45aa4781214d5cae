// The ImageNet transforms of datasets/imagenet/transforms.h on a decoded image tensor, by LibTorch ops
// on the tensor's own device (the GPU decoder's output stays on the GPU): the same crop box, flip,
// sizes and centre crop as the OpenCV path decoding at full size (reduced_decode off), and the same
// sampling (bilinear, half-pixel centres, no antialiasing: OpenCV's INTER_LINEAR, LibTorch's
// align_corners false). The resize is computed in float and rounded to 8 bits, where OpenCV uses
// 11-bit fixed-point weights: a value differs from OpenCV's by at most 1.
#pragma once

#include <torch/types.h>

#include "datasets/imagenet/transforms.h"

namespace mlh::resnet {

// From rgb_hwc (uint8 [H, W, 3], RGB, any strides): crop `box` (inside the image), bilinear resize
// to out_size x out_size, flip left-right if asked. uint8 [out_size, out_size, 3], any strides.
torch::Tensor train_transform_tensor(const torch::Tensor& rgb_hwc, const imagenet::CropBox& box, bool flip,
                                     int out_size);

// From rgb_hwc: resize so that the short side is resize_short (the long side truncated), then the
// centre out_size x out_size crop (offsets rounded down), as imagenet::eval_transform.
torch::Tensor eval_transform_tensor(const torch::Tensor& rgb_hwc, int resize_short, int out_size);

}  // namespace mlh::resnet
