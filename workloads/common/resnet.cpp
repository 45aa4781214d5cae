#include "workloads/common/resnet.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/user_error.h"

namespace mlh::common {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

torch::nn::Sequential projection(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Sequential(conv(in, out, 1, stride), SyncBatchNorm2d(out));
}

bool needs_projection(int64_t in, int64_t out, int64_t stride) { return stride != 1 || in != out; }

void check_block_options(const ResNetBlockOptions& o) {
  MLH_ASSERT(o.in_channels() >= 1 && o.width() >= 1 && o.stride() >= 1);
}

// TF 1.x truncated_normal(stddev = std / 0.8796): normal draws, those beyond two stddevs drawn again
// (as TF does). The 0.8796 makes the kept values' std come out at `std`.
void tf_truncated_normal_(torch::Tensor w, double std) {
  const double stddev = std / 0.87962566103423978;
  torch::Tensor values = torch::empty({w.numel()}, w.options()).normal_(0.0, stddev);
  torch::Tensor redraw = (values.abs() > 2.0 * stddev).nonzero().squeeze(1);
  while (redraw.numel() > 0) {
    torch::Tensor fresh = torch::empty({redraw.numel()}, values.options()).normal_(0.0, stddev);
    values.index_put_({redraw}, fresh);
    redraw = redraw.masked_select(fresh.abs() > 2.0 * stddev);
  }
  w.copy_(values.view(w.sizes()));
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(const ResNetBlockOptions& options_) : options(options_) {
  check_block_options(options);
  const int64_t in = options.in_channels(), width = options.width(), stride = options.stride();
  conv1 = register_module("conv1", conv(in, width, 3, stride));
  bn1 = register_module("bn1", SyncBatchNorm2d(width));
  conv2 = register_module("conv2", conv(width, width, 3, 1));
  bn2 = register_module("bn2", SyncBatchNorm2d(width));
  if (needs_projection(in, width * kExpansion, stride))
    downsample = register_module("downsample", projection(in, width * kExpansion, stride));
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x) {
  torch::Tensor out = torch::relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  out += downsample ? downsample->forward(x) : x;
  return torch::relu_(out);
}

BottleneckImpl::BottleneckImpl(const ResNetBlockOptions& options_) : options(options_) {
  check_block_options(options);
  const int64_t in = options.in_channels(), width = options.width(), stride = options.stride();
  const bool in_1x1 = options.stride_in_1x1();
  conv1 = register_module("conv1", conv(in, width, 1, in_1x1 ? stride : 1));
  bn1 = register_module("bn1", SyncBatchNorm2d(width));
  conv2 = register_module("conv2", conv(width, width, 3, in_1x1 ? 1 : stride));
  bn2 = register_module("bn2", SyncBatchNorm2d(width));
  conv3 = register_module("conv3", conv(width, width * kExpansion, 1, 1));
  bn3 = register_module("bn3", SyncBatchNorm2d(width * kExpansion));
  if (needs_projection(in, width * kExpansion, stride))
    downsample = register_module("downsample", projection(in, width * kExpansion, stride));
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  torch::Tensor out = torch::relu(bn1(conv1(x)));
  out = torch::relu(bn2(conv2(out)));
  out = bn3(conv3(out));
  out += downsample ? downsample->forward(x) : x;
  return torch::relu_(out);
}

ResNetOptions::ResNetOptions(int64_t depth) {
  block_ = depth < 50 ? ResNetBlock::kBasic : ResNetBlock::kBottleneck;
  switch (depth) {
    case 18: layers_ = {2, 2, 2, 2}; break;
    case 34: layers_ = {3, 4, 6, 3}; break;
    case 50: layers_ = {3, 4, 6, 3}; break;
    case 101: layers_ = {3, 4, 23, 3}; break;
    case 152: layers_ = {3, 8, 36, 3}; break;
    default:
      throw UserError("key 'depth' is " + std::to_string(depth) + "; a ResNet depth is 18, 34, 50, 101 or 152");
  }
}

ResNetImpl::ResNetImpl(const ResNetOptions& options_) : options(options_) {
  const auto& layers = options.layers();
  if (layers.empty()) throw UserError("key 'layers' needs at least one stage");
  for (int64_t n : layers)
    if (n < 1) throw UserError("key 'layers' has a stage of " + std::to_string(n) + " blocks; each needs at least 1");
  std::vector<int64_t> strides = options.strides();
  if (strides.empty()) {
    strides.assign(layers.size(), 2);
    strides[0] = 1;
  }
  if (strides.size() != layers.size())
    throw UserError("key 'strides' has " + std::to_string(strides.size()) + " entries; it needs one per stage (" +
                    std::to_string(layers.size()) + ") or none");
  for (int64_t s : strides)
    if (s < 1) throw UserError("key 'strides' has " + std::to_string(s) + "; strides are at least 1");
  if (options.num_classes() < 0) throw UserError("key 'num_classes' must be positive, or 0 for no classifier");
  if (!(options.width() > 0.0) || !std::isfinite(options.width()))
    throw UserError("key 'width' must be a positive multiplier of the base width 64");
  if (options.in_channels() < 1) throw UserError("key 'in_channels' must be at least 1");
  const bool bottleneck = options.block() == ResNetBlock::kBottleneck;
  if (options.stride_in_1x1() && !bottleneck)
    throw UserError("key 'stride_in_1x1' applies to bottleneck blocks only (depth 50, 101, 152)");

  stem_channels_ = std::max<int64_t>(1, std::llround(64.0 * options.width()));
  conv1 = register_module("conv1", options.small_input() ? conv(options.in_channels(), stem_channels_, 3, 1)
                                                         : conv(options.in_channels(), stem_channels_, 7, 2));
  bn1 = register_module("bn1", SyncBatchNorm2d(stem_channels_));

  int64_t in = stem_channels_;
  for (size_t i = 0; i < layers.size(); ++i) {
    const int64_t width = stem_channels_ << i;
    torch::nn::Sequential stage;
    for (int64_t b = 0; b < layers[i]; ++b) {
      auto block = ResNetBlockOptions(in, width).stride(b == 0 ? strides[i] : 1);
      if (bottleneck) {
        stage->push_back(Bottleneck(block.stride_in_1x1(options.stride_in_1x1())));
        in = width * BottleneckImpl::kExpansion;
      } else {
        stage->push_back(BasicBlock(block));
        in = width * BasicBlockImpl::kExpansion;
      }
    }
    stages.push_back(register_module("layer" + std::to_string(i + 1), stage));
  }
  out_channels_ = in;
  if (options.num_classes() > 0) fc = register_module("fc", torch::nn::Linear(out_channels_, options.num_classes()));
  if (options.norm() == ResNetNorm::kFrozenBatchNorm) {
    for (const auto& module : modules(/*include_self=*/false)) {
      if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
        bn->options.eps(0.0);
        bn->weight.requires_grad_(false);
        bn->bias.requires_grad_(false);
        bn->eval();
      }
    }
  }
  reset_parameters();
}

void ResNetImpl::train(bool on) {
  torch::nn::Module::train(on);
  if (options.norm() != ResNetNorm::kFrozenBatchNorm) return;
  for (const auto& module : modules(/*include_self=*/false))
    if (auto* bn = module->as<torch::nn::BatchNorm2d>()) bn->eval();
}

void ResNetImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (const auto& module : modules(/*include_self=*/false)) {
    if (auto* c = module->as<torch::nn::Conv2d>()) {
      if (options.conv_init() == ConvInit::kTruncatedNormalFanIn) {
        const double fan_in = static_cast<double>(c->weight.numel() / c->weight.size(0));
        tf_truncated_normal_(c->weight, std::sqrt(1.0 / fan_in));
      } else if (options.conv_init() == ConvInit::kKaimingUniformFanIn) {
        torch::nn::init::kaiming_uniform_(c->weight, /*a=*/1.0);
      } else {
        torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
      }
    } else if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
      bn->reset_running_stats();
      bn->weight.fill_(1.0);
      bn->bias.zero_();
    }
  }
  if (options.zero_init_residual()) {
    for (const auto& stage : stages) {
      for (const auto& block : stage->children()) {
        if (auto* b = block->as<BottleneckImpl>()) b->bn3->weight.zero_();
        if (auto* b = block->as<BasicBlockImpl>()) b->bn2->weight.zero_();
      }
    }
  }
  if (fc) {
    fc->weight.normal_(0.0, 0.01);
    fc->bias.zero_();
  }
}

std::vector<torch::Tensor> ResNetImpl::features(torch::Tensor x) {
  x = torch::relu(bn1(conv1(x)));
  if (!options.small_input()) x = torch::max_pool2d(x, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
  std::vector<torch::Tensor> out;
  out.reserve(stages.size());
  for (auto& stage : stages) {
    x = stage->forward(x);
    out.push_back(x);
  }
  return out;
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) {
  torch::Tensor pooled = features(std::move(x)).back().mean({2, 3});
  return fc ? fc(pooled) : pooled;
}

void convert_memory_format(torch::nn::Module& module, torch::MemoryFormat format) {
  torch::NoGradGuard no_grad;
  for (auto& p : module.parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(format));
  for (auto& b : module.buffers())
    if (b.dim() == 4) b.set_data(b.contiguous(format));
}

}  // namespace mlh::common
