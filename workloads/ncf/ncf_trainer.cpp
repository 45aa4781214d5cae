#include "workloads/ncf/ncf_trainer.h"

#include <utility>

namespace mlh::ncf {

NcfTrainer::NcfTrainer(NeuMF model, AdamOptions adam, const World& world, Precision precision)
    : model_(std::move(model)),
      step_(model_->parameters(), make_adam({ParameterGroup{model_->parameters()}}, adam), world,
            TrainStepOptions{precision}) {}

torch::Tensor NcfTrainer::train_on(const NcfBatch& batch) {
  return step_.run(static_cast<int64_t>(batch.shards.size()), static_cast<double>(batch.global_count),
                   [&](int64_t k) {
                     const NcfShard& shard = batch.shards[static_cast<size_t>(k)];
                     const torch::Tensor logits = model_->forward(shard.user, shard.item);
                     return torch::binary_cross_entropy_with_logits(logits.to(torch::kFloat), shard.label, {}, {},
                                                                    torch::Reduction::Sum);
                   });
}

std::unique_ptr<DeviceBenchStep> make_ncf_train_bench_step(DeviceBenchStep::Spec spec,
                                                           std::shared_ptr<NcfTrainer> trainer,
                                                           std::function<NcfBatch()> next_batch) {
  return std::make_unique<DeviceBenchStep>(std::move(spec), [trainer = std::move(trainer),
                                                             next_batch = std::move(next_batch)] {
    trainer->model()->train();
    trainer->train_on(next_batch());
  });
}

}  // namespace mlh::ncf
