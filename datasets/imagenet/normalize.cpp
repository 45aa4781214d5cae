#include "datasets/imagenet/normalize.h"

#include <torch/torch.h>

#include "base/user_error.h"
#include "datasets/imagenet/transforms.h"

namespace mlh::imagenet {

torch::Tensor normalize_images(const torch::Tensor& rgb_nhwc) {
  MLH_ASSERT(rgb_nhwc.dim() == 4 && rgb_nhwc.size(3) == 3 && rgb_nhwc.scalar_type() == torch::kByte);
  torch::Tensor images = rgb_nhwc.permute({0, 3, 1, 2}).to(torch::kFloat);
  // A scalar per channel, not a mean tensor: nothing is copied to the device to subtract it.
  for (int64_t channel = 0; channel < 3; ++channel) images.select(1, channel).sub_(kMeanRgb[channel]);
  return images;
}

}  // namespace mlh::imagenet
