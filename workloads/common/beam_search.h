// Batched beam search with the GNMT length penalty ((5 + length) / 6)^alpha, as the MLPerf
// transformer's beam_search.py runs it: each step extends every alive hypothesis, keeps the best
// 2 x beam continuations, moves those ending in EOS to the finished set (scored log-prob / penalty)
// and the best `beam` others on; a sentence stops when no alive hypothesis can still beat its worst
// finished one, or at max_length. Model-agnostic: the model is an IncrementalDecoder.
// With coverage_penalty_beta > 0 (GNMT, Wu et al. 2016 eq. 14, as MLPerf's rnn_translator scores),
// a hypothesis that ends also gets beta * sum_j log(min(sum_t attention_tj, 1)) over the source
// positions j it attended at all (log 0 counts 0); the decoder then reports each step's attention.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace mlh {

// A model's decoding state over rows = sentences x beam (row = sentence * beam + k).
class IncrementalDecoder {
 public:
  virtual ~IncrementalDecoder() = default;
  // Log-probabilities [rows, vocabulary] (float) of the token after `last_tokens` [rows] (int64) at
  // position `step` (0-based; at step 0 the tokens are the start id 0).
  virtual torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step) = 0;
  // Keeps the rows at `rows` (int64 indices into the current rows), in that order.
  virtual void select_rows(const torch::Tensor& rows) = 0;
  // Attention weights [rows, source length] (float) over the source of the last next_log_probs call;
  // read only with a coverage penalty.
  virtual torch::Tensor last_attention() { return {}; }
};

struct BeamSearchOptions {
  int64_t beam_size = 4;
  double length_penalty_alpha = 0.6;
  int64_t eos_id = 1;
  int64_t max_length = 100;  // decoding steps at most
  double coverage_penalty_beta = 0;  // 0 = none
};

// beta * sum_j log(min(coverage_j, 1)) over the last dimension, with log 0 counted as 0.
torch::Tensor coverage_penalty(const torch::Tensor& coverage, double beta);

// ((5 + length) / 6)^alpha.
double length_penalty(int64_t length, double alpha);

struct BeamHypothesis {
  std::vector<int64_t> tokens;  // without the EOS
  double score = 0;             // log-probability / length penalty (+ coverage penalty); alive: log-probability
};

// The best hypothesis per sentence. `decoder` must start with sentences x beam_size rows, the beam
// copies of each sentence next to each other.
std::vector<BeamHypothesis> beam_search(IncrementalDecoder& decoder, int64_t sentences,
                                        const BeamSearchOptions& options);

}  // namespace mlh
