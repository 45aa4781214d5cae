// Groups of settings the workloads share beyond the engine's (harness/setting_groups.h): the label
// smoothing of a cross-entropy, and how the translation workloads (Transformer, GNMT) evaluate.
// A workload's settings struct derives from the groups it has and calls their bind from its own.
#pragma once

#include <cstdint>

#include "compliance/mllog_keys.h"
#include "compliance/mllogger.h"
#include "harness/settings.h"

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
