// The pixels torchvision's ImageNet models were trained on (its ToTensor, then Normalize with these
// statistics): RGB on the [0, 1] scale, less the mean, over the std, per channel. The detection
// trunks that start from torchvision's weights (SSD's resnet34, Mask R-CNN's resnet50 under
// trunk_convention torchvision) feed their images so.
#pragma once

#include <array>

namespace mlh::common {

inline constexpr std::array<float, 3> kTorchvisionMeanRgb = {0.485f, 0.456f, 0.406f};
inline constexpr std::array<float, 3> kTorchvisionStdRgb = {0.229f, 0.224f, 0.225f};

}  // namespace mlh::common
