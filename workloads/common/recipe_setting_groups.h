// Groups of recipe settings the workloads share beyond the engine's (harness/setting_groups.h):
// the label smoothing of a cross-entropy, how the translation workloads (Transformer, GNMT)
// evaluate, and the ranks the image workloads' BatchNorm statistics span.
// A workload's settings struct derives from the groups it has and calls their bind from its own.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>

#include "compliance/mllog_keys.h"
#include "compliance/mllogger.h"
#include "harness/settings.h"
#include "harness/sync_batchnorm.h"
#include "harness/world.h"

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

}  // namespace mlh
