// What the translation workloads (GNMT, Transformer) share around their models, on top of
// WorkloadBase: the data folder (data_path, or the synthetic corpus prepared under --data-dir) and
// its files, `mlharness prepare`, the parsed training pairs and test set, the epoch's common fields,
// and the test set's evaluation under beam search. A workload brings its vocabulary, batcher,
// decoder, BLEU flavour and schedule.
//
// `Settings` is also TranslationDataSettings and TranslationEvalSettings (eval_batch_size).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "datasets/wmt/bleu.h"
#include "datasets/wmt/prepare.h"
#include "datasets/wmt/sentence_pair.h"
#include "workloads/common/beam_search.h"
#include "workloads/common/synthetic_translation_corpus.h"
#include "workloads/common/translation_eval.h"
#include "workloads/common/translation_prepare.h"
#include "workloads/common/translation_steps.h"
#include "workloads/common/workload_base.h"

namespace mlh {

template <class Settings, class Trainer>
class TranslationWorkload : public WorkloadBase<Settings, Trainer> {
 public:
  explicit TranslationWorkload(wmt::TranslationFormat format) : prepare_(format) {}

  std::vector<std::string> data_files() const override { return regular_files_in(folder_); }

  bool bind_prepare_options(ConfigMap& options) override {
    prepare_.bind(options);
    return true;
  }
  std::string prepare() override { return prepare_.run(this->benchmark()); }

  int64_t steps_per_epoch() const override { return steps_per_epoch_; }

 protected:
  // The fields of epoch `epoch` both workloads fill alike: seed, gradient shards and `samples`.
  TranslationEpoch epoch_plan(int64_t epoch, int64_t samples) const {
    TranslationEpoch e;
    e.seed = this->seed_;
    e.epoch = epoch;
    e.gradient_shards = this->gradient_shards_;
    e.samples = samples;
    return e;
  }

  // The test set decoded with the model in eval mode, without gradients, eval_batch_size sentences
  // a batch, scored by `score`: the corpus statistics over all ranks (a collective).
  wmt::BleuStatistics test_statistics(const BeamSearchOptions& options, const DecoderFactory& decoders,
                                      const SentenceScore& score) const {
    this->trainer_->model()->eval();
    torch::NoGradGuard no_grad;
    return test_.corpus_statistics(*this->world_, this->settings_.eval_batch_size, options, this->precision_,
                                   this->device_, decoders, score);
  }

  std::filesystem::path folder_;  // set by prepare_data (TranslationDataSettings::folder)
  std::vector<wmt::EncodedPair> train_pairs_;
  TranslationTestSet test_;
  int64_t steps_per_epoch_ = 0;

 private:
  TranslationPrepare prepare_;
};

}  // namespace mlh
