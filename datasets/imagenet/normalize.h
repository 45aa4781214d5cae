// The ResNet model's input from the ImageNet loader's 8-bit batches, as one tensor op on whatever
// device holds the batch (the GPU that trains, or the CPU): the loader's threads only decode and
// resample, and the bytes that cross to the device are a quarter of float's.
#pragma once

#include <torch/types.h>

namespace mlh::imagenet {

// uint8 [n, S, S, 3] (RGB, HWC per image, as BatchLoader delivers) -> float [n, 3, S, S] with
// value float(byte) - kMeanRgb[c] (datasets/imagenet/transforms.h): bit for bit normalize_to_chw's
// floats, since each is one float subtraction of whole numbers. The result has channels-last strides
// (it is computed on the permuted bytes); make it contiguous in the model's memory format. Runs on the
// current stream of rgb_nhwc's device and never waits for it.
torch::Tensor normalize_images(const torch::Tensor& rgb_nhwc);

}  // namespace mlh::imagenet
