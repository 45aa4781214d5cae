#include "workloads/maskrcnn/maskrcnn_trainer.h"

#include <string>
#include <utility>

#include <ATen/CPUGeneratorImpl.h>
#ifdef MLH_WITH_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

#include "base/user_error.h"

namespace mlh::maskrcnn {

torch::Generator sampling_generator(const torch::Device& device, uint64_t seed) {
  if (device.is_cuda()) {
#ifdef MLH_WITH_CUDA
    torch::Generator generator = at::cuda::detail::createCUDAGenerator(device.index());
    generator.set_current_seed(seed);
    return generator;
#else
    throw UserError("this build has no CUDA; a CUDA device needs the CUDA build");
#endif
  }
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

std::unique_ptr<Optimizer> make_maskrcnn_sgd(MaskRcnn& model, const MaskRcnnSgdOptions& options) {
  ParameterGroup weights{{}, options.weight_decay, 1.0};
  ParameterGroup biases{{}, options.bias_weight_decay, options.bias_learning_rate_factor};
  for (const auto& item : model->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    const std::string& name = item.key();
    const bool bias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
    (bias ? biases : weights).parameters.push_back(item.value());
  }
  return make_sgd({std::move(weights), std::move(biases)}, SgdOptions{options.learning_rate, options.momentum});
}

MaskRcnnTrainer::MaskRcnnTrainer(MaskRcnn model, std::unique_ptr<Optimizer> optimizer, const World& world,
                                 TrainStepOptions options)
    : model_(std::move(model)), step_(trainable_parameters(*model_), std::move(optimizer), world, options) {}

torch::Tensor MaskRcnnTrainer::train_on(const MaskRcnnStepBatch& batch) {
  return step_.run(static_cast<int64_t>(batch.shards.size()), static_cast<double>(batch.global_shards),
                   [&](int64_t k) -> torch::Tensor {
                     const MaskRcnnShard& shard = batch.shards[static_cast<size_t>(k)];
                     if (shard.images.size(0) == 0) return {};
                     torch::Generator generator = sampling_generator(
                         shard.images.device(), batch.sampling_seed * 1000003u + static_cast<uint64_t>(shard.global_index));
                     return model_->losses(shard.images, shard.image_sizes, shard.targets, generator).total();
                   });
}

}  // namespace mlh::maskrcnn
