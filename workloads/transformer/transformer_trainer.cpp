#include "workloads/transformer/transformer_trainer.h"

#include "harness/device.h"

namespace mlh::transformer {

TransformerTrainer::TransformerTrainer(const TransformerTrainerOptions& options, const World& world)
    : model_(options.model()), device_(options.step().device), label_smoothing_(options.label_smoothing()) {
  model_->to(device_);
  step_ = std::make_unique<TrainStep>(model_->parameters(),
                                      make_adam({ParameterGroup{model_->parameters()}}, options.adam()), world,
                                      options.step());
}

torch::Tensor TransformerTrainer::train_on(const TranslationBatch& batch) {
  return step_->run(batch.shards, static_cast<double>(batch.loss_divisor), [&](int64_t k) -> torch::Tensor {
    const auto [source_ids, target_ids] = batch.shard(k);
    if (!source_ids.defined()) return {};
    const torch::Tensor source = stage_to_device(source_ids, device_), target = stage_to_device(target_ids, device_);
    const torch::Tensor logits = model_->forward(source, target).to(torch::kFloat);
    return smoothed_cross_entropy_sum(logits.reshape({-1, logits.size(-1)}), target.reshape({-1}), label_smoothing_);
  });
}

}  // namespace mlh::transformer
