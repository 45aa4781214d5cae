// Corpus BLEU-4 (x100) the two ways the MLPerf translation references score it
// (spec/workloads.md §5 and §6 Metric):
//   - t2t: the Transformer's compute_bleu.py (uncased bleu_wrapper, bleu_tokenize, Tensor2Tensor's
//     compute_bleu), and
//   - sacreBLEU 1.2.10's corpus_bleu with "exp" smoothing, as GNMT's
//     `sacrebleu --score-only -lc --tokenize intl` runs it.
// Both split into per-sentence statistics that sum over sentences, so ranks that score shards of an
// eval set can all-reduce BleuStatistics::counts() and compute the score once.
// Text is UTF-8; invalid UTF-8 throws UserError. Unicode classes and lowercasing come from ICU,
// which may be a Unicode version apart from the references' Python (only newly assigned characters
// can differ).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlh::wmt {

// The sufficient statistics of corpus BLEU-4; both flavours count them the same way from tokens.
struct BleuStatistics {
  static constexpr int kMaxOrder = 4;
  static constexpr int kNumCounts = 2 * kMaxOrder + 2;

  // matches[n-1]: hypothesis n-grams also in the reference, each clipped to its reference count.
  std::array<int64_t, kMaxOrder> matches{};
  // possible[n-1]: the hypothesis's n-grams.
  std::array<int64_t, kMaxOrder> possible{};
  int64_t hypothesis_length = 0;  // tokens
  int64_t reference_length = 0;   // tokens

  void add(const BleuStatistics& other);
  // Flat form for an all-reduce (sum): matches, possible, hypothesis_length, reference_length.
  std::array<int64_t, kNumCounts> counts() const;
  static BleuStatistics from_counts(const std::array<int64_t, kNumCounts>& counts);

  bool operator==(const BleuStatistics& other) const;
  bool operator!=(const BleuStatistics& other) const { return !(*this == other); }
};

// ---- t2t (MLPerf Transformer) ----

// bleu_tokenize of the mteval-v14 international rules as t2t/compute_bleu.py write them: punctuation
// splits off unless it sits between digits, symbols always split, then split on whitespace. Like
// theirs it never splits a backslash (their regex character class turns "\]" into an escape) and
// treats only decimal digits (Nd) as digits. Does not lowercase.
std::vector<std::string> t2t_bleu_tokenize(const std::string& text);

// One sentence pair, uncased: both sides lowercased (Python's str.lower()) and tokenized as given.
BleuStatistics t2t_bleu_statistics(const std::string& hypothesis, const std::string& reference);

// compute_bleu's score x100: a zero match count at order n counts as 1/(2^k * possible), k the
// number of such orders so far; an order without hypothesis n-grams is left out of the sum of logs
// but the sum is still divided by 4 (so a corpus of 2-token hypotheses can score 100); brevity
// penalty exp(1 - ref/hyp) when hyp < ref. No hypothesis tokens: 0; no reference tokens: no
// brevity penalty (MLPerf's copy divides by zero in both cases; T2T's 2020 compute_bleu does as
// here). Rounded through float32 like the reference's np.float32.
double t2t_bleu(const BleuStatistics& statistics);

// The uncased corpus score of line-aligned hypotheses and references. Throws UserError when the
// counts differ or a line is not UTF-8 (naming the line).
double t2t_corpus_bleu(const std::vector<std::string>& hypotheses,
                       const std::vector<std::string>& references);

// ---- sacreBLEU 1.2.10 (GNMT) ----

enum class SacreBleuTokenizer {
  k13a,   // mteval-v13a: ASCII punctuation rules, "&quot;" etc. unescaped, "<skipped>" dropped
  kIntl,  // mteval-v14 international: the same rules as t2t_bleu_tokenize
};

// Defaults are GNMT's: `--tokenize intl -lc`.
struct SacreBleuOptions {
  SacreBleuTokenizer tokenizer = SacreBleuTokenizer::kIntl;
  bool lowercase = true;
};

// The tokenizer alone (no lowercasing or stripping), split into tokens.
std::vector<std::string> sacrebleu_tokenize(const std::string& text, SacreBleuTokenizer tokenizer);

// One sentence pair as corpus_bleu treats each line: lowercased if asked, trailing whitespace
// stripped, tokenized.
BleuStatistics sacrebleu_statistics(const std::string& hypothesis, const std::string& reference,
                                    const SacreBleuOptions& options = {});

// corpus_bleu's score (0..100) with smooth="exp": a zero match count at order n counts as
// 100/(2^k * possible), k the number of such orders so far (so a hypothesis with no match at all
// still scores above 0, unlike sacreBLEU >= 1.4); any order without hypothesis n-grams gives 0;
// brevity penalty exp(1 - ref/hyp) when hyp < ref, 0 without hypothesis tokens.
double sacrebleu_bleu(const BleuStatistics& statistics);

// The corpus score of line-aligned hypotheses and references. Throws UserError when the counts
// differ or a line is not UTF-8 (naming the line).
double sacrebleu_corpus_bleu(const std::vector<std::string>& hypotheses,
                             const std::vector<std::string>& references,
                             const SacreBleuOptions& options = {});

}  // namespace mlh::wmt
