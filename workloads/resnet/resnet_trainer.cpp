#include "workloads/resnet/resnet_trainer.h"

#include <utility>

namespace mlh::resnet {

std::vector<ParameterGroup> parameter_groups(common::ResNet& model, double weight_decay) {
  ParameterGroup weights{{}, weight_decay, 1.0, /*lars_adapted=*/true};
  ParameterGroup biases{{}, weight_decay};
  ParameterGroup batch_norm{{}, 0.0};
  for (const auto& module : model->modules(/*include_self=*/false)) {
    const bool is_batch_norm = module->as<torch::nn::BatchNorm2d>() != nullptr;
    for (const auto& p : module->named_parameters(/*recurse=*/false)) {
      if (is_batch_norm)
        batch_norm.parameters.push_back(p.value());
      else
        (p.value().dim() > 1 ? weights : biases).parameters.push_back(p.value());
    }
  }
  return {weights, biases, batch_norm};
}

ResNetTrainer::ResNetTrainer(common::ResNet model, std::unique_ptr<Optimizer> optimizer, double label_smoothing,
                             const World& world, TrainStepOptions options)
    : model_(std::move(model)),
      label_smoothing_(label_smoothing),
      step_(model_->parameters(), std::move(optimizer), world, options) {}

torch::Tensor ResNetTrainer::train_on(const ResNetBatch& batch) {
  return step_.run(static_cast<int64_t>(batch.shards.size()), static_cast<double>(batch.global_count),
                   [&](int64_t k) -> torch::Tensor {
                     const ImageShard& shard = batch.shards[static_cast<size_t>(k)];
                     if (shard.images.size(0) == 0) {
                       // Synchronised BatchNorm's collectives need every rank's passes, an empty one too.
                       if (!model_->bn1->group().synchronised()) return {};
                       return model_->forward(shard.images).to(torch::kFloat).sum() * 0.0;
                     }
                     return torch::nn::functional::cross_entropy(
                         model_->forward(shard.images).to(torch::kFloat), shard.labels,
                         torch::nn::functional::CrossEntropyFuncOptions()
                             .label_smoothing(label_smoothing_)
                             .reduction(torch::kSum));
                   });
}

}  // namespace mlh::resnet
