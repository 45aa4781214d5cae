// ImageNet weights for the ResNet trunks of the detection workloads (SSD's ResNet-34, spec/workloads.md
// §3; Mask R-CNN's ResNet-50, §4), as MLPerf lets them start: a torchvision state dict.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/common/resnet.h"

namespace mlh::common {

// Copies `backbone`'s tensors from a torchvision `<torchvision_name>` (e.g. "resnet34") state dict saved
// as a plain dict with torch.save(dict(torchvision.models.<name>(weights="IMAGENET1K_V1").state_dict()),
// path) (LibTorch cannot read the OrderedDict that state_dict() returns); the file's tensors the trunk
// lacks (layer4 of a cut trunk, fc) are ignored. Every parameter and BatchNorm buffer of the trunk must
// be there with its shape. Checks every tensor before copying any. Throws UserError naming the file
// and the first missing or mis-shaped key. Returns the tensors copied.
int64_t load_torchvision_resnet(ResNet& backbone, const std::string& path, const std::string& torchvision_name);

}  // namespace mlh::common
