#include "workloads/ssd/ssd_trainer.h"

#include <utility>

#include "harness/mixed_precision.h"
#include "workloads/common/box_matching.h"
#include "workloads/common/box_ops.h"
#include "workloads/common/ssd_loss.h"

namespace mlh::ssd {

std::unique_ptr<Optimizer> make_ssd_sgd(Ssd300& model, double learning_rate, double momentum, double weight_decay) {
  return make_sgd({ParameterGroup{model->parameters(), weight_decay}}, SgdOptions{learning_rate, momentum});
}

SsdTrainer::SsdTrainer(Ssd300 model, const common::DefaultBoxes& defaults, std::unique_ptr<Optimizer> optimizer,
                       const World& world, TrainStepOptions options)
    : model_(std::move(model)),
      defaults_(defaults.to(options.device)),
      step_(model_->parameters(), std::move(optimizer), world, options) {}

torch::Tensor SsdTrainer::train_on(const SsdBatch& batch) {
  // Targets first, outside autocast: matched boxes encoded against the default boxes, [N, 4, D].
  std::vector<torch::Tensor> target_offsets, target_labels;
  for (const DetectionShard& shard : batch.shards) {
    if (shard.images.size(0) == 0) {
      target_offsets.emplace_back();
      target_labels.emplace_back();
      continue;
    }
    torch::NoGradGuard no_grad;
    const common::MatchedTargets matched = common::match_targets_batch(shard.boxes_ltrb, shard.labels, defaults_);
    target_offsets.push_back(common::encode_boxes(matched.boxes_xywh, defaults_.xywh).transpose(1, 2).contiguous());
    target_labels.push_back(matched.labels);
  }
  return step_.run(static_cast<int64_t>(batch.shards.size()), static_cast<double>(batch.global_count),
                   [&](int64_t k) -> torch::Tensor {
                     const DetectionShard& shard = batch.shards[static_cast<size_t>(k)];
                     const int64_t n = shard.images.size(0);
                     if (n == 0 && !model_->backbone->bn1->group().synchronised()) return {};
                     auto [locations, scores] = model_->forward(shard.images);
                     // Synchronised BatchNorm's collectives need every rank's passes, an empty one too.
                     if (n == 0) return (locations.sum() + scores.sum()).to(torch::kFloat) * 0.0;
                     // ssd_loss is the shard's mean per image; the step wants the sum.
                     return common::ssd_loss(locations.to(torch::kFloat), scores.to(torch::kFloat),
                                             target_offsets[static_cast<size_t>(k)],
                                             target_labels[static_cast<size_t>(k)]) *
                            static_cast<double>(n);
                   });
}

}  // namespace mlh::ssd
