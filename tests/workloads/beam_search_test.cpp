#include <gtest/gtest.h>

#include <map>
#include <vector>

#include <torch/torch.h>

#include "workloads/common/beam_search.h"

namespace mlh {
namespace {

// A hand-built language model over {0 = start/pad, 1 = EOS, 2 = a, 3 = b, 4 = c}: the next-token
// distribution depends on the whole prefix, given as a table; unknown prefixes get `otherwise` (by
// default: end with certainty).
class TableDecoder final : public IncrementalDecoder {
 public:
  using Prefix = std::vector<int64_t>;
  TableDecoder(std::map<Prefix, std::vector<double>> table, int64_t rows,
               std::vector<double> otherwise = {0, 1, 0, 0, 0})
      : table_(std::move(table)), otherwise_(std::move(otherwise)), prefixes_(static_cast<size_t>(rows)) {}

  torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step) override {
    const int64_t rows = last_tokens.size(0);
    torch::Tensor out = torch::empty({rows, 5}, torch::kFloat);
    for (int64_t r = 0; r < rows; ++r) {
      Prefix& prefix = prefixes_[static_cast<size_t>(r)];
      if (step > 0) prefix.push_back(last_tokens[r].item<int64_t>());
      auto it = table_.find(prefix);
      std::vector<double> p = it != table_.end() ? it->second : otherwise_;
      for (int64_t v = 0; v < 5; ++v) out[r][v] = std::log(std::max(p[static_cast<size_t>(v)], 1e-30));
    }
    return out;
  }
  void select_rows(const torch::Tensor& rows) override {
    std::vector<Prefix> next;
    for (int64_t i = 0; i < rows.size(0); ++i) next.push_back(prefixes_[static_cast<size_t>(rows[i].item<int64_t>())]);
    prefixes_ = std::move(next);
  }

 private:
  std::map<Prefix, std::vector<double>> table_;
  std::vector<double> otherwise_;
  std::vector<Prefix> prefixes_;
};

// Greedy takes "a" (0.6) but every continuation of "a" is poor; "b c" has probability 0.4 * 0.9 * 1.
std::map<TableDecoder::Prefix, std::vector<double>> garden_path() {
  return {
      {{}, {0, 0, 0.6, 0.4, 0}},
      {{2}, {0, 0, 0.3, 0.4, 0.3}},
      {{3}, {0, 0.05, 0.05, 0, 0.9}},
      {{3, 4}, {0, 1, 0, 0, 0}},
      {{2, 2}, {0, 1, 0, 0, 0}},
      {{2, 3}, {0, 1, 0, 0, 0}},
      {{2, 4}, {0, 1, 0, 0, 0}},
  };
}

TEST(BeamSearch, FindsTheBestSequenceThatGreedyMisses) {
  BeamSearchOptions options;
  options.beam_size = 2;
  options.length_penalty_alpha = 0.0;
  options.max_length = 10;
  TableDecoder greedy_model(garden_path(), 1);
  BeamSearchOptions greedy = options;
  greedy.beam_size = 1;
  EXPECT_EQ(beam_search(greedy_model, 1, greedy)[0].tokens, (std::vector<int64_t>{2, 3}));

  TableDecoder model(garden_path(), 2);
  const BeamHypothesis best = beam_search(model, 1, options)[0];
  EXPECT_EQ(best.tokens, (std::vector<int64_t>{3, 4}));
  EXPECT_NEAR(best.score, std::log(0.4 * 0.9), 1e-5);
}

TEST(BeamSearch, LengthPenaltyFavoursLongerHypotheses) {
  // "a EOS" has probability 0.5, "b b EOS" 0.5 * 0.9 = 0.45.
  std::map<TableDecoder::Prefix, std::vector<double>> table = {
      {{}, {0, 0, 0.5, 0.5, 0}},
      {{2}, {0, 1, 0, 0, 0}},
      {{3}, {0, 0.1, 0, 0.9, 0}},
      {{3, 3}, {0, 1, 0, 0, 0}},
  };
  BeamSearchOptions options;
  options.beam_size = 3;
  options.max_length = 10;
  options.length_penalty_alpha = 0.0;
  TableDecoder plain(table, 3);
  EXPECT_EQ(beam_search(plain, 1, options)[0].tokens, (std::vector<int64_t>{2}));
  // alpha 2: log(0.5) / (7/6)^2 = -0.509 against log(0.45) / (8/6)^2 = -0.449.
  options.length_penalty_alpha = 2.0;
  TableDecoder penalised(table, 3);
  EXPECT_EQ(beam_search(penalised, 1, options)[0].tokens, (std::vector<int64_t>{3, 3}));
}

TEST(BeamSearch, DecodesSentencesOfABatchIndependently) {
  BeamSearchOptions options;
  options.beam_size = 2;
  options.length_penalty_alpha = 0.6;
  options.max_length = 10;
  TableDecoder batch(garden_path(), 6);
  const auto results = beam_search(batch, 3, options);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) EXPECT_EQ(r.tokens, (std::vector<int64_t>{3, 4}));
}

TEST(BeamSearch, StopsAtMaxLengthWithTheBestAliveHypothesis) {
  // EOS never has a chance, so nothing finishes: the answer is the best alive hypothesis. (When
  // any hypothesis finished, the reference returns the best finished one, however unlikely.)
  BeamSearchOptions options;
  options.beam_size = 2;
  options.max_length = 4;
  TableDecoder model({}, 2, {0.01, 0, 0.9, 0.05, 0.04});
  EXPECT_EQ(beam_search(model, 1, options)[0].tokens, (std::vector<int64_t>{2, 2, 2, 2}));
}

// Tokens {0 = start, 1 = EOS, 2 = a, 3 = b} over a two-word source. First "a" (0.55) or "b" (0.45),
// attending half to each source word; then EOS, where "a" attends only the first word again (its
// coverage ends at [1, 0.5]) and "b" the second half of each (coverage [1, 1]).
class AttendingDecoder final : public IncrementalDecoder {
 public:
  explicit AttendingDecoder(int64_t rows) : firsts_(static_cast<size_t>(rows), 0) {}
  torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step) override {
    const int64_t rows = last_tokens.size(0);
    torch::Tensor p = torch::full({rows, 4}, 1e-30, torch::kFloat);
    attention_ = torch::full({rows, 2}, 0.5, torch::kFloat);
    for (int64_t r = 0; r < rows; ++r) {
      if (step == 0) {
        p[r][2] = 0.55;
        p[r][3] = 0.45;
        continue;
      }
      if (step == 1) firsts_[static_cast<size_t>(r)] = last_tokens[r].item<int64_t>();
      p[r][1] = 1.0;
      if (firsts_[static_cast<size_t>(r)] == 2) attention_[r][1] = 0.0;
    }
    return p.log();
  }
  void select_rows(const torch::Tensor& rows) override {
    std::vector<int64_t> next;
    for (int64_t i = 0; i < rows.size(0); ++i) next.push_back(firsts_[static_cast<size_t>(rows[i].item<int64_t>())]);
    firsts_ = std::move(next);
    attention_ = attention_.index_select(0, rows);
  }
  torch::Tensor last_attention() override { return attention_; }

 private:
  std::vector<int64_t> firsts_;
  torch::Tensor attention_;
};

TEST(BeamSearch, CoveragePenaltyPrefersTheHypothesisThatCoversTheSource) {
  BeamSearchOptions options;
  options.beam_size = 2;
  options.length_penalty_alpha = 0.0;
  options.max_length = 5;
  AttendingDecoder plain(2);
  EXPECT_EQ(beam_search(plain, 1, options)[0].tokens, (std::vector<int64_t>{2}));
  // "a": log 0.55 + log(min(1, 1)) + log 0.5 = -1.291; "b": log 0.45 + 0 = -0.799.
  options.coverage_penalty_beta = 1.0;
  AttendingDecoder covered(2);
  const BeamHypothesis best = beam_search(covered, 1, options)[0];
  EXPECT_EQ(best.tokens, (std::vector<int64_t>{3}));
  EXPECT_NEAR(best.score, std::log(0.45), 1e-5);
}

TEST(CoveragePenalty, CountsPartlyAttendedPositionsOnly) {
  // Unattended positions (log 0) count 0, positions over 1 are capped at log 1 = 0.
  const torch::Tensor coverage = torch::tensor({0.0, 0.5, 1.0, 2.5}, torch::kFloat);
  EXPECT_NEAR(coverage_penalty(coverage, 0.1).item<double>(), 0.1 * std::log(0.5), 1e-6);
}

TEST(LengthPenalty, IsTheGnmtFormula) {
  EXPECT_DOUBLE_EQ(length_penalty(1, 0.6), 1.0);
  EXPECT_NEAR(length_penalty(7, 0.6), std::pow(2.0, 0.6), 1e-12);
}

}  // namespace
}  // namespace mlh
