#include "workloads/common/translation_eval.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

namespace mlh {

namespace {

// sources[begin, end) padded with 0 to the longest: int64 [end - begin, longest] on the CPU.
torch::Tensor padded_batch(const std::vector<const wmt::TokenIds*>& sources, size_t begin, size_t end) {
  size_t longest = 0;
  for (size_t i = begin; i < end; ++i) longest = std::max(longest, sources[i]->size());
  torch::Tensor batch = torch::zeros({static_cast<int64_t>(end - begin), static_cast<int64_t>(longest)}, torch::kLong);
  auto accessor = batch.accessor<int64_t, 2>();
  for (size_t i = begin; i < end; ++i)
    for (size_t t = 0; t < sources[i]->size(); ++t)
      accessor[static_cast<int64_t>(i - begin)][static_cast<int64_t>(t)] = (*sources[i])[t];
  return batch;
}

}  // namespace

std::vector<wmt::TokenIds> translate(const std::vector<const wmt::TokenIds*>& sources, int64_t batch,
                                     const BeamSearchOptions& options, Precision precision,
                                     const torch::Device& device, const DecoderFactory& make_decoder) {
  std::vector<wmt::TokenIds> out;
  for (size_t begin = 0; begin < sources.size(); begin += static_cast<size_t>(batch)) {
    const size_t end = std::min(sources.size(), begin + static_cast<size_t>(batch));
    AutocastScope autocast(precision, device);
    BeamSearchOptions batch_options = options;
    const std::unique_ptr<IncrementalDecoder> decoder = make_decoder(padded_batch(sources, begin, end), batch_options);
    for (const BeamHypothesis& best : beam_search(*decoder, static_cast<int64_t>(end - begin), batch_options))
      out.emplace_back(best.tokens.begin(), best.tokens.end());
  }
  return out;
}

TranslationTestSet::TranslationTestSet(wmt::ParallelText text, int64_t max_sentences,
                                       const std::function<wmt::TokenIds(const std::string&)>& encode) {
  if (max_sentences > 0 && static_cast<int64_t>(text.source.size()) > max_sentences) {
    text.source.resize(static_cast<size_t>(max_sentences));
    text.target.resize(static_cast<size_t>(max_sentences));
  }
  sources_ = std::move(text.source);
  references_ = std::move(text.target);
  for (const std::string& line : sources_) ids_.push_back(encode(line));
  length_order_.resize(ids_.size());
  for (size_t i = 0; i < length_order_.size(); ++i) length_order_[i] = i;
  std::stable_sort(length_order_.begin(), length_order_.end(),
                   [&](size_t a, size_t b) { return ids_[a].size() < ids_[b].size(); });
}

wmt::BleuStatistics TranslationTestSet::corpus_statistics(const World& world, int64_t batch,
                                                          const BeamSearchOptions& options, Precision precision,
                                                          const torch::Device& device,
                                                          const DecoderFactory& make_decoder,
                                                          const SentenceScore& score) const {
  // Batch b of the length order goes to rank b mod ranks.
  std::vector<size_t> sentences;
  const size_t step = static_cast<size_t>(batch);
  for (size_t first = static_cast<size_t>(world.rank()) * step; first < length_order_.size();
       first += static_cast<size_t>(world.size()) * step)
    for (size_t i = first; i < std::min(length_order_.size(), first + step); ++i) sentences.push_back(length_order_[i]);
  std::vector<const wmt::TokenIds*> sources;
  for (const size_t sentence : sentences) sources.push_back(&ids_[sentence]);
  const std::vector<wmt::TokenIds> outputs = translate(sources, batch, options, precision, device, make_decoder);
  wmt::BleuStatistics local;
  for (size_t i = 0; i < outputs.size(); ++i) local.add(score(outputs[i], references_[sentences[i]]));
  std::array<int64_t, wmt::BleuStatistics::kNumCounts> counts = local.counts();
  for (int64_t& count : counts) count = std::llround(world.allreduce_sum(static_cast<double>(count)));
  return wmt::BleuStatistics::from_counts(counts);
}

Quality bleu_quality(double bleu) {
  Quality quality;
  quality.values["bleu/100"] = bleu / 100.0;
  quality.values["bleu"] = bleu;
  return quality;
}

}  // namespace mlh
