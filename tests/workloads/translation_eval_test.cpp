// The translation workloads' shared evaluation, with a decoder that copies its source: every output
// must meet its own reference, although sentences are decoded in length order and in batches.
#include "workloads/common/translation_eval.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace mlh {
namespace {

constexpr int64_t kEos = 1;
constexpr int64_t kVocabulary = 30;

// Letters a..z are ids 3..28, a space is 2.
wmt::TokenIds encode(const std::string& line) {
  wmt::TokenIds ids;
  for (char c : line) ids.push_back(c == ' ' ? 2 : 3 + (c - 'a'));
  ids.push_back(kEos);
  return ids;
}

std::string decode(const wmt::TokenIds& ids) {
  std::string line;
  for (int32_t id : ids) line.push_back(id == 2 ? ' ' : static_cast<char>('a' + id - 3));
  return line;
}

// Emits its source row token by token (EOS after it), with certainty.
class CopyDecoder final : public IncrementalDecoder {
 public:
  CopyDecoder(const torch::Tensor& source, int64_t beam) : source_(source.repeat_interleave(beam, 0)) {}
  torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step) override {
    torch::Tensor log_probs = torch::full({source_.size(0), kVocabulary}, -1e9f);
    for (int64_t row = 0; row < source_.size(0); ++row) {
      const int64_t token = step < source_.size(1) ? source_[row][step].item<int64_t>() : kEos;
      log_probs[row][token == 0 ? kEos : token] = 0.0f;
    }
    return log_probs;
  }
  void select_rows(const torch::Tensor& rows) override { source_ = source_.index_select(0, rows); }

 private:
  torch::Tensor source_;
};

wmt::ParallelText copy_task() {
  wmt::ParallelText text;
  text.source = {"a much longer sentence than the others", "hi", "a middle one", "x", "two words"};
  text.target = text.source;
  return text;
}

DecoderFactory copy_decoders() {
  return [](const torch::Tensor& source, BeamSearchOptions& options) {
    options.max_length = source.size(1) + 2;
    return std::make_unique<CopyDecoder>(source, options.beam_size);
  };
}

double copy_bleu(const TranslationTestSet& test, int64_t batch) {
  BeamSearchOptions options;
  options.beam_size = 2;
  options.eos_id = kEos;
  const wmt::BleuStatistics statistics = test.corpus_statistics(
      World::single_process(), batch, options, Precision::kFp32, torch::kCPU, copy_decoders(),
      [](const wmt::TokenIds& output, const std::string& reference) {
        return wmt::t2t_bleu_statistics(decode(output), reference);
      });
  return wmt::t2t_bleu(statistics);
}

TEST(TranslationTestSet, EveryOutputMeetsItsOwnReferenceInAnyBatching) {
  const TranslationTestSet test(copy_task(), 0, encode);
  ASSERT_EQ(test.size(), 5u);
  for (int64_t batch : {1, 2, 5}) EXPECT_NEAR(copy_bleu(test, batch), 100.0, 1e-9) << "batch " << batch;
}

TEST(TranslationTestSet, KeepsTheFirstSentencesAskedFor) {
  const TranslationTestSet test(copy_task(), 2, encode);
  ASSERT_EQ(test.size(), 2u);
  EXPECT_EQ(test.references()[1], "hi");
  EXPECT_EQ(test.ids()[1], encode("hi"));
}

TEST(TranslationTestSet, AWrongReferenceLowersTheScore) {
  wmt::ParallelText text = copy_task();
  text.target[0] = "nothing alike at all here";
  const TranslationTestSet test(text, 0, encode);
  EXPECT_LT(copy_bleu(test, 2), 90.0);
}

TEST(BleuQuality, LogsBleuOverOneHundred) {
  const Quality quality = bleu_quality(25.5);
  EXPECT_DOUBLE_EQ(quality.values.at("bleu/100"), 0.255);
  EXPECT_DOUBLE_EQ(quality.values.at("bleu"), 25.5);
}

}  // namespace
}  // namespace mlh
