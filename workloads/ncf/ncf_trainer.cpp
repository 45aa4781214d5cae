#include "workloads/ncf/ncf_trainer.h"

#include <utility>

namespace mlh::ncf {

namespace {

NeuMF moved_to(NeuMF model, const torch::Device& device) {
  model->to(device);
  return model;
}

}  // namespace

NcfTrainer::NcfTrainer(NeuMF model, AdamOptions adam, const World& world, Precision precision, torch::Device device)
    : model_(moved_to(std::move(model), device)),
      step_(model_->parameters(), make_adam({ParameterGroup{model_->parameters()}}, adam), world,
            TrainStepOptions{precision, device}) {}

torch::Tensor NcfTrainer::train_on(const NcfBatch& batch) {
  return step_.run(static_cast<int64_t>(batch.shards.size()), static_cast<double>(batch.global_count),
                   [&](int64_t k) {
                     const NcfShard& shard = batch.shards[static_cast<size_t>(k)];
                     const torch::Tensor logits = model_->forward(shard.user, shard.item);
                     return torch::binary_cross_entropy_with_logits(logits.to(torch::kFloat), shard.label, {}, {},
                                                                    torch::Reduction::Sum);
                   });
}

}  // namespace mlh::ncf
