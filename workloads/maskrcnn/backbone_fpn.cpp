#include "workloads/maskrcnn/backbone_fpn.h"

#include <string>

#include "base/user_error.h"

namespace mlh::maskrcnn {
namespace {

torch::nn::Conv2d fpn_conv(int64_t in, int64_t out, int64_t kernel) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(true));
  torch::NoGradGuard no_grad;
  torch::nn::init::kaiming_uniform_(conv->weight, /*a=*/1.0);
  conv->bias.zero_();
  return conv;
}

void freeze(torch::nn::Module& module) {
  for (auto& p : module.parameters()) p.requires_grad_(false);
}

}  // namespace

ResNetFpnImpl::ResNetFpnImpl(const BackboneOptions& options_) : options(options_) {
  if (options.layers().size() != 4)
    throw UserError("key 'layers' has " + std::to_string(options.layers().size()) +
                    " stages; the FPN reads four (C2..C5)");
  if (options.fpn_channels() < 1) throw UserError("key 'fpn_channels' must be at least 1");
  if (options.frozen_stages() < 0 || options.frozen_stages() > 5)
    throw UserError("key 'frozen_stages' is " + std::to_string(options.frozen_stages()) +
                    "; 0 (none) to 5 (the stem and all four stages)");
  common::ResNetOptions trunk(50);
  trunk.layers(options.layers())
      .num_classes(0)
      .width(options.width())
      .stride_in_1x1(options.stride_in_1x1())
      .norm(options.norm())
      .conv_init(common::ConvInit::kKaimingUniformFanIn);
  body = register_module("body", common::ResNet(trunk));
  if (options.frozen_stages() >= 1) {
    freeze(*body->conv1);
    freeze(*body->bn1);
  }
  for (int64_t stage = 1; stage < options.frozen_stages(); ++stage) freeze(*body->stages[static_cast<size_t>(stage - 1)]);

  const int64_t out = options.fpn_channels();
  for (size_t level = 0; level < 4; ++level) {
    const int64_t in = (body->stem_channels() << level) * common::BottleneckImpl::kExpansion;
    inner_blocks.push_back(register_module("fpn_inner" + std::to_string(level + 1), fpn_conv(in, out, 1)));
    layer_blocks.push_back(register_module("fpn_layer" + std::to_string(level + 1), fpn_conv(out, out, 3)));
  }
}

std::vector<torch::Tensor> ResNetFpnImpl::forward(const torch::Tensor& images) {
  const std::vector<torch::Tensor> c = body->features(images);  // C2..C5
  std::vector<torch::Tensor> p(5);
  torch::Tensor top_down = inner_blocks[3]->forward(c[3]);
  p[3] = layer_blocks[3]->forward(top_down);
  for (int level = 2; level >= 0; --level) {
    const torch::Tensor lateral = inner_blocks[static_cast<size_t>(level)]->forward(c[static_cast<size_t>(level)]);
    top_down = lateral + torch::upsample_nearest2d(top_down, {lateral.size(2), lateral.size(3)});
    p[static_cast<size_t>(level)] = layer_blocks[static_cast<size_t>(level)]->forward(top_down);
  }
  p[4] = torch::max_pool2d(p[3], /*kernel_size=*/1, /*stride=*/2);
  return p;
}

std::vector<torch::Tensor> trainable_parameters(torch::nn::Module& module) {
  std::vector<torch::Tensor> trainable;
  for (auto& p : module.parameters())
    if (p.requires_grad()) trainable.push_back(p);
  return trainable;
}

}  // namespace mlh::maskrcnn
