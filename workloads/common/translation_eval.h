// The evaluation the translation workloads (Transformer, GNMT) share: the test set decoded by beam
// search in length order, in batches of a fixed size for any rank count (so each sentence is decoded
// with the same padding and the score does not depend on the ranks; rank r decodes batches r,
// r + ranks, ...), every output scored against its reference, the BLEU counts summed over ranks.
// The workload brings its decoder, its detokenisation and its BLEU flavour.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "datasets/wmt/bleu.h"
#include "datasets/wmt/parallel_text.h"
#include "datasets/wmt/sentence_pair.h"
#include "harness/mixed_precision.h"
#include "harness/quality.h"
#include "harness/world.h"
#include "workloads/common/beam_search.h"

namespace mlh {

// A model's decoder for one batch of sources: ids [sentences, longest] padded with 0, on the CPU.
// It may set the batch's decoding limit (options.max_length) from the batch.
using DecoderFactory =
    std::function<std::unique_ptr<IncrementalDecoder>(const torch::Tensor& source, BeamSearchOptions& options)>;

// Beam search over `sources`, `batch` sentences at a time, under the precision's autocast: the best
// hypothesis' tokens of each source, in order.
std::vector<wmt::TokenIds> translate(const std::vector<const wmt::TokenIds*>& sources, int64_t batch,
                                     const BeamSearchOptions& options, Precision precision,
                                     const torch::Device& device, const DecoderFactory& make_decoder);

// The BLEU statistics of one output against its reference (detokenised as the reference scores it).
using SentenceScore = std::function<wmt::BleuStatistics(const wmt::TokenIds& output, const std::string& reference)>;

class TranslationTestSet {
 public:
  TranslationTestSet() = default;
  // Keeps the first `max_sentences` pairs of `text` (0: all); `encode` turns a source line into the
  // ids the model reads.
  TranslationTestSet(wmt::ParallelText text, int64_t max_sentences,
                     const std::function<wmt::TokenIds(const std::string&)>& encode);

  size_t size() const { return ids_.size(); }
  const std::vector<std::string>& sources() const { return sources_; }
  const std::vector<std::string>& references() const { return references_; }
  const std::vector<wmt::TokenIds>& ids() const { return ids_; }

  // Decodes this rank's share and scores it; the corpus statistics, summed over ranks (a collective).
  wmt::BleuStatistics corpus_statistics(const World& world, int64_t batch, const BeamSearchOptions& options,
                                        Precision precision, const torch::Device& device,
                                        const DecoderFactory& make_decoder, const SentenceScore& score) const;

 private:
  std::vector<std::string> sources_, references_;
  std::vector<wmt::TokenIds> ids_;
  std::vector<size_t> length_order_;  // sentence indices by source length, stable
};

// The Quality of a BLEU score (0..100): {"bleu/100": bleu / 100 (the logged eval_accuracy), "bleu"}.
Quality bleu_quality(double bleu);

}  // namespace mlh
