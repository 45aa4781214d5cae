#include "workloads/ssd/ssd300.h"

#include <cmath>

#include "base/user_error.h"

namespace mlh::ssd {
namespace {

constexpr int64_t kExtraMid[] = {256, 256, 128, 128, 128};
constexpr int64_t kExtraOut[] = {512, 512, 256, 256, 256};

int64_t scaled(int64_t channels, double width) { return std::max<int64_t>(1, std::llround(channels * width)); }

// The side of a map after a k x k conv with this stride and padding.
int64_t conv_out(int64_t side, int64_t kernel, int64_t stride, int64_t padding) {
  return (side + 2 * padding - kernel) / stride + 1;
}

}  // namespace

common::ResNetOptions ssd_backbone_options(double width) {
  common::ResNetOptions o(34);
  o.layers({3, 4, 6}).strides({1, 2, 1}).num_classes(0).width(width).conv_init(common::ConvInit::kKaimingNormalFanOut);
  return o;
}

Ssd300Impl::Ssd300Impl(const Ssd300Options& options_) : options(options_) {
  const std::vector<int64_t>& strides = options.extra_strides();
  const std::vector<int64_t>& boxes = options.boxes_per_location();
  if (strides.size() > std::size(kExtraOut))
    throw UserError("extra_strides: at most " + std::to_string(std::size(kExtraOut)) + " extra blocks, got " +
                    std::to_string(strides.size()));
  if (boxes.size() != strides.size() + 1)
    throw UserError("SSD: " + std::to_string(boxes.size()) + " default-box shapes per location (one per map) for " +
                    std::to_string(strides.size() + 1) + " maps (the backbone's and one per extra block)");
  if (options.num_classes() < 2) throw UserError("SSD: num_classes must count the background and one class at least");

  backbone = register_module("backbone", common::ResNet(ssd_backbone_options(options.width())));
  // The backbone's map: conv1 /2, max-pool /2, layer2 /2.
  int64_t side = conv_out(options.image_size(), 7, 2, 3);
  side = conv_out(side, 3, 2, 1);
  side = conv_out(side, 3, 2, 1);
  feature_sizes_.push_back(side);

  // Registered as additional_blocks.<k>, loc.<k> and conf.<k>, the reference's names.
  auto extra_list = register_module("additional_blocks", torch::nn::ModuleList());
  auto location_list = register_module("loc", torch::nn::ModuleList());
  auto class_list = register_module("conf", torch::nn::ModuleList());
  std::vector<int64_t> channels{backbone->out_channels()};
  for (size_t k = 0; k < strides.size(); ++k) {
    const int64_t stride = strides[k];
    if (stride != 1 && stride != 2)
      throw UserError("extra_strides[" + std::to_string(k) + "]: " + std::to_string(stride) + " is not 1 or 2");
    const int64_t padding = stride == 2 ? 1 : 0;
    side = conv_out(side, 3, stride, padding);
    if (side < 1)
      throw UserError("SSD: image_size " + std::to_string(options.image_size()) + " is too small for " +
                      std::to_string(strides.size()) + " extra blocks (map " + std::to_string(k + 2) +
                      " would have no pixels)");
    feature_sizes_.push_back(side);
    const int64_t mid = scaled(kExtraMid[k], options.width()), out = scaled(kExtraOut[k], options.width());
    extras.push_back(torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(channels.back(), mid, 1)), torch::nn::ReLU(),
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(mid, out, 3).stride(stride).padding(padding)),
                              torch::nn::ReLU()));
    extra_list->push_back(extras.back());
    channels.push_back(out);
  }
  for (size_t k = 0; k < boxes.size(); ++k) {
    if (boxes[k] < 1) throw UserError("SSD: boxes per location must be positive");
    auto head = [&](int64_t per_box) {
      return torch::nn::Conv2d(torch::nn::Conv2dOptions(channels[k], boxes[k] * per_box, 3).padding(1));
    };
    location_heads.push_back(head(4));
    class_heads.push_back(head(options.num_classes()));
    location_list->push_back(location_heads.back());
    class_list->push_back(class_heads.back());
  }
  reset_head_parameters();
}

int64_t Ssd300Impl::num_default_boxes() const {
  int64_t total = 0;
  for (size_t k = 0; k < feature_sizes_.size(); ++k)
    total += options.boxes_per_location()[k] * feature_sizes_[k] * feature_sizes_[k];
  return total;
}

void Ssd300Impl::reset_head_parameters() {
  torch::NoGradGuard no_grad;
  auto xavier = [](torch::nn::Module& module) {
    for (auto& p : module.parameters())
      if (p.dim() > 1) torch::nn::init::xavier_uniform_(p);
  };
  for (auto& block : extras) xavier(*block);
  for (auto& head : location_heads) xavier(*head);
  for (auto& head : class_heads) xavier(*head);
}

std::pair<torch::Tensor, torch::Tensor> Ssd300Impl::forward(torch::Tensor images) {
  const int64_t n = images.size(0);
  torch::Tensor x = backbone->features(std::move(images)).back();
  std::vector<torch::Tensor> locations, scores;
  for (size_t k = 0; k < location_heads.size(); ++k) {
    if (k > 0) x = extras[k - 1]->forward(x);
    // Boxes of the map counted, not inferred (-1): an empty batch (synchronised BatchNorm runs one) has none to infer from.
    const int64_t boxes = x.size(2) * x.size(3) * options.boxes_per_location()[k];
    locations.push_back(location_heads[k]->forward(x).reshape({n, 4, boxes}));
    scores.push_back(class_heads[k]->forward(x).reshape({n, options.num_classes(), boxes}));
  }
  return {torch::cat(locations, 2), torch::cat(scores, 2)};
}

}  // namespace mlh::ssd
