#include "workloads/common/beam_search.h"

#include <cmath>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh {

namespace {
// The reference's stand-in for infinity: large, but far from float overflow when added to scores.
constexpr double kInfinity = 1e7;
}  // namespace

double length_penalty(int64_t length, double alpha) {
  return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

torch::Tensor coverage_penalty(const torch::Tensor& coverage, double beta) {
  const torch::Tensor log_coverage = coverage.clamp(0.0, 1.0).log();
  return beta * log_coverage.masked_fill(coverage.le(0.0), 0.0).sum(-1);
}

std::vector<BeamHypothesis> beam_search(IncrementalDecoder& decoder, int64_t sentences,
                                        const BeamSearchOptions& options) {
  MLH_ASSERT(options.beam_size >= 1 && options.max_length >= 1);
  torch::NoGradGuard no_grad;
  const int64_t beam = options.beam_size;
  const int64_t batch = sentences;
  const auto long_options = torch::TensorOptions().dtype(torch::kLong);

  // Alive hypotheses: only beam 0 is live at the start.
  torch::Tensor alive_seq = torch::zeros({batch, beam, 0}, long_options);
  torch::Tensor alive_log_probs = torch::full({batch, beam}, -kInfinity, torch::kFloat);
  alive_log_probs.select(1, 0).fill_(0.0);
  torch::Tensor last_tokens = torch::zeros({batch * beam}, long_options);
  // Finished hypotheses, padded to the current length.
  torch::Tensor finished_seq = torch::zeros({batch, beam, 0}, long_options);
  torch::Tensor finished_scores = torch::full({batch, beam}, -kInfinity, torch::kFloat);
  torch::Tensor finished_flags = torch::zeros({batch, beam}, torch::kBool);
  const torch::Tensor sentence_offsets = (torch::arange(batch, long_options) * beam).unsqueeze(1);
  // Attention summed over the steps of each alive hypothesis [batch, beam, source length].
  const bool coverage = options.coverage_penalty_beta > 0;
  torch::Tensor alive_coverage;

  for (int64_t step = 0; step < options.max_length; ++step) {
    // Stop when, for every sentence, the worst finished beats the best alive at its best length.
    const double max_penalty = length_penalty(options.max_length, options.length_penalty_alpha);
    const torch::Tensor best_alive = alive_log_probs.select(1, 0) / max_penalty;
    torch::Tensor lowest_finished = (finished_scores * finished_flags.to(torch::kFloat)).amin(1);
    lowest_finished = lowest_finished + (~finished_flags.any(1)).to(torch::kFloat) * -kInfinity;
    if (lowest_finished.gt(best_alive).all().item<bool>()) break;

    // Grow: the best 2 x beam continuations of the alive hypotheses.
    torch::Tensor log_probs = decoder.next_log_probs(last_tokens, step).to(torch::kCPU, torch::kFloat);
    const int64_t vocabulary = log_probs.size(1);
    log_probs = log_probs.view({batch, beam, vocabulary}) + alive_log_probs.unsqueeze(2);
    const int64_t candidates = std::min<int64_t>(2 * beam, beam * vocabulary);
    auto [top_log_probs, top_indices] = log_probs.view({batch, beam * vocabulary}).topk(candidates, 1);
    const torch::Tensor top_beams = top_indices.div(vocabulary, "floor");
    const torch::Tensor top_ids = top_indices.remainder(vocabulary);
    const torch::Tensor top_seq =
        torch::cat({alive_seq.gather(1, top_beams.unsqueeze(2).expand({batch, candidates, alive_seq.size(2)})),
                    top_ids.unsqueeze(2)},
                   2);
    const torch::Tensor top_finished = top_ids.eq(options.eos_id);
    torch::Tensor top_coverage;  // [batch, candidates, source length]
    if (coverage) {
      const torch::Tensor attention = decoder.last_attention().to(torch::kCPU, torch::kFloat);
      MLH_ASSERT(attention.defined() && attention.size(0) == batch * beam);
      torch::Tensor summed = attention.view({batch, beam, attention.size(1)});
      if (alive_coverage.defined()) summed = summed + alive_coverage;
      top_coverage = summed.gather(1, top_beams.unsqueeze(2).expand({batch, candidates, summed.size(2)}));
    }

    // Alive: the best `beam` that did not end.
    const torch::Tensor alive_candidates = top_log_probs + top_finished.to(torch::kFloat) * -kInfinity;
    auto [next_alive_log_probs, alive_pick] = alive_candidates.topk(beam, 1);
    alive_seq = top_seq.gather(1, alive_pick.unsqueeze(2).expand({batch, beam, top_seq.size(2)}));
    alive_log_probs = next_alive_log_probs;
    const torch::Tensor source_beams = top_beams.gather(1, alive_pick);
    if (coverage)
      alive_coverage = top_coverage.gather(1, alive_pick.unsqueeze(2).expand({batch, beam, top_coverage.size(2)}));
    decoder.select_rows((source_beams + sentence_offsets).reshape({-1}));
    last_tokens = alive_seq.select(2, step).reshape({-1}).contiguous();

    // Finished: the best `beam` of the old finished and the ones that just ended.
    const double penalty = length_penalty(step + 1, options.length_penalty_alpha);
    torch::Tensor new_scores = top_log_probs / penalty + (~top_finished).to(torch::kFloat) * -kInfinity;
    if (coverage) new_scores = new_scores + coverage_penalty(top_coverage, options.coverage_penalty_beta);
    const torch::Tensor padded_finished =
        torch::cat({finished_seq, torch::zeros({batch, beam, 1}, long_options)}, 2);
    const torch::Tensor all_seq = torch::cat({padded_finished, top_seq}, 1);
    const torch::Tensor all_scores = torch::cat({finished_scores, new_scores}, 1);
    const torch::Tensor all_flags = torch::cat({finished_flags, top_finished}, 1);
    auto [next_finished_scores, finished_pick] = all_scores.topk(beam, 1);
    finished_seq = all_seq.gather(1, finished_pick.unsqueeze(2).expand({batch, beam, all_seq.size(2)}));
    finished_scores = next_finished_scores;
    finished_flags = all_flags.gather(1, finished_pick);
  }

  std::vector<BeamHypothesis> best(static_cast<size_t>(batch));
  const torch::Tensor any_finished = finished_flags.any(1);
  for (int64_t b = 0; b < batch; ++b) {
    const bool finished = any_finished[b].item<bool>();
    const torch::Tensor seq = (finished ? finished_seq : alive_seq)[b][0].contiguous();
    BeamHypothesis& hypothesis = best[static_cast<size_t>(b)];
    hypothesis.score = (finished ? finished_scores : alive_log_probs)[b][0].item<double>();
    const int64_t* ids = seq.data_ptr<int64_t>();
    for (int64_t t = 0; t < seq.size(0) && ids[t] != options.eos_id; ++t) hypothesis.tokens.push_back(ids[t]);
  }
  return best;
}

}  // namespace mlh
