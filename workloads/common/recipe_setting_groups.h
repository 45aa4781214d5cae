// Groups of recipe settings the workloads share beyond the engine's (harness/setting_groups.h):
// the label smoothing of a cross-entropy, how the translation workloads (Transformer, GNMT)
// evaluate, the ranks the image workloads' BatchNorm statistics span, and the detection workloads'
// batch and rate.
// A workload's settings struct derives from the groups it has and calls their bind from its own.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>

#include "compliance/mllog_keys.h"
#include "compliance/mllogger.h"
#include "harness/settings.h"
#include "harness/sync_batchnorm.h"
#include "harness/world.h"
#include "workloads/common/batch_scaling.h"

namespace mlh {

// label_smoothing.
struct LabelSmoothingSettings {
  double label_smoothing = 0.1;

  void bind(ConfigMap& c) {
    c.bind("label_smoothing", label_smoothing, "label smoothing of the cross-entropy",
           in_range(0.0, 1.0, Ends::kOpenHigh));
  }
  void log_label_smoothing(MLLogger& log) const { log.event(keys::kLabelSmoothing, label_smoothing); }
};

// batchnorm_group: the ranks whose BatchNorm statistics a training step shares. 1 (every config's
// value): each rank's own, BatchNorm2d's. N > 1: synchronised over consecutive groups of N ranks
// (harness/sync_batchnorm.h), as NVIDIA's SSD does for per-GPU batches too small for BatchNorm. The
// span logged as model_bn_span is then the per-shard batch times N.
struct BatchNormGroupSettings {
  int64_t batchnorm_group = 1;

  void bind(ConfigMap& c) {
    c.bind("batchnorm_group", batchnorm_group,
           "ranks whose BatchNorm statistics a step shares: 1 = each rank its own; N = synchronised over groups of N "
           "consecutive ranks (N divides the ranks)",
           at_least(1));
  }
  // Gives every SyncBatchNorm2d of `model` the group of `world`; a UserError naming the key when it
  // does not divide the ranks.
  void apply_batchnorm_group(torch::nn::Module& model, const World& world) const {
    set_batchnorm_group(model, make_batchnorm_group(world, batchnorm_group, "batchnorm_group"));
  }
  int64_t batchnorm_span(int64_t shard_batch) const { return shard_batch * batchnorm_group; }
};

// Beam search over the test set, scored by BLEU: beam_size, length_penalty_alpha, eval_batch_size,
// eval_sentences, target_bleu.
struct TranslationEvalSettings {
  int64_t beam_size;
  double length_penalty_alpha = 0.6;
  int64_t eval_batch_size;
  int64_t eval_sentences = 0;
  double target_bleu;

  TranslationEvalSettings(int64_t beam, int64_t batch, double bleu)
      : beam_size(beam), eval_batch_size(batch), target_bleu(bleu) {}

  void bind(ConfigMap& c) {
    c.bind("beam_size", beam_size, "beam width of evaluation decoding", at_least(1));
    c.bind("length_penalty_alpha", length_penalty_alpha, "alpha of the length penalty ((5 + length) / 6)^alpha",
           at_least(0.0));
    c.bind("eval_batch_size", eval_batch_size, "sentences per beam-search batch, per rank", at_least(1));
    c.bind("eval_sentences", eval_sentences, "test sentences scored (0 = all)", at_least(0));
    c.bind("target_bleu", target_bleu, "uncased BLEU at which the run has converged",
           in_range(0.0, 100.0, Ends::kOpen));
  }
};

// The detection workloads' batch and rate (SSD, Mask R-CNN): global_batch_size, batch_size_per_device,
// gradient_shards, eval_batch_size, base_learning_rate, momentum. global_batch_size and the recipe's
// rate and step counts go together; batch_size_per_device > 0 makes the global batch per-device x
// ranks, scales the rate linearly with it and keeps the images each step count covers
// (common/batch_scaling.h).
struct DetectionBatchSettings {
  int64_t global_batch_size;
  int64_t batch_size_per_device = 0;
  int64_t gradient_shards = 0;
  int64_t eval_batch_size;
  double base_learning_rate;
  double momentum = 0.9;

  DetectionBatchSettings(int64_t global_batch, int64_t eval_batch, double learning_rate)
      : global_batch_size(global_batch), eval_batch_size(eval_batch), base_learning_rate(learning_rate) {}

  void bind(ConfigMap& c) {
    c.bind("global_batch_size", global_batch_size,
           "training images per step over all ranks; with batch_size_per_device, the batch base_learning_rate and "
           "the step counts (warm-up, decay) are for",
           at_least(1));
    c.bind("batch_size_per_device", batch_size_per_device,
           "training images per step per rank (global batch = this x ranks; the rate scales linearly with it, step "
           "counts keep their images); 0 = global_batch_size as written",
           at_least(0));
    c.bind("gradient_shards", gradient_shards,
           "gradient shards per global batch, each one reference GPU's batch: a multiple of the ranks, or 0 = one per "
           "rank",
           at_least(0));
    c.bind("eval_batch_size", eval_batch_size, "evaluation images per forward pass, per rank", at_least(1));
    c.bind("base_learning_rate", base_learning_rate, "learning rate after warm-up, at this global batch", above(0.0));
    c.bind("momentum", momentum, "SGD momentum", at_least(0.0));
  }

  // The recipe at world_size ranks.
  struct AtRanks {
    int64_t global_batch;
    double base_learning_rate;
    int64_t recipe_global_batch;
    bool scaled;
    // A step count of the recipe (warm-up, a decay step) at this global batch: the same images.
    int64_t steps(int64_t recipe_steps) const {
      return scaled ? common::warmup_steps_at_batch(recipe_steps, recipe_global_batch, global_batch) : recipe_steps;
    }
  };
  AtRanks at_ranks(int world_size) const {
    const int64_t global = common::global_batch_size(batch_size_per_device, global_batch_size, world_size);
    const bool scaled = batch_size_per_device != 0;
    return {global,
            scaled ? common::linearly_scaled_learning_rate(base_learning_rate, global_batch_size, global) : base_learning_rate,
            global_batch_size, scaled};
  }
};

}  // namespace mlh
