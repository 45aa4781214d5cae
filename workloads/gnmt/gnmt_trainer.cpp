#include "workloads/gnmt/gnmt_trainer.h"

#include "harness/device.h"

namespace mlh::gnmt {

GnmtTrainer::GnmtTrainer(const GnmtTrainerOptions& options, const World& world)
    : model_(options.model()), device_(options.step().device), label_smoothing_(options.label_smoothing()) {
  model_->to(device_);
  step_ = std::make_unique<TrainStep>(model_->parameters(),
                                      make_adam({ParameterGroup{model_->parameters()}}, options.adam()), world,
                                      options.step());
}

torch::Tensor GnmtTrainer::train_on(const TranslationBatch& batch) {
  return step_->run(batch.shards, static_cast<double>(batch.loss_divisor), [&](int64_t k) -> torch::Tensor {
    const auto [source, target_ids] = batch.shard(k);
    if (!source.defined()) return {};
    const torch::Tensor target = stage_to_device(target_ids, device_);
    const int64_t t = target.size(1);
    const torch::Tensor logits =
        model_->forward(stage_to_device(source, device_), lengths_of(source), target.slice(1, 0, t - 1)).to(torch::kFloat);
    return label_smoothed_loss_sum(logits.reshape({-1, logits.size(-1)}), target.slice(1, 1, t).reshape({-1}),
                                   label_smoothing_);
  });
}

}  // namespace mlh::gnmt
