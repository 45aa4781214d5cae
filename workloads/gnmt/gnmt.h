// GNMT v2, as the MLPerf reference defines it (spec/workloads.md §5; PyTorch rnn_translator,
// seq2seq/models/{gnmt,encoder,decoder,attention}.py):
// - one embedding [V, H] shared by encoder and decoder (padding id 0);
// - encoder: a bidirectional LSTM (H -> 2H, over packed sequences so padding never enters the
//   backward direction), an LSTM 2H -> H, then LSTMs H -> H with residual connections from the
//   third layer on; dropout on every layer's input;
// - decoder: an LSTM H -> H whose outputs query normalised Bahdanau attention over the encoder
//   outputs; the attention context is concatenated to the input of every further layer (2H -> H,
//   "gnmt_v2"), residuals from the third layer on, dropout on every layer's input; a classifier
//   H -> V with bias;
// - everything uniform(-0.1, 0.1) except the attention's scale (1 / sqrt(H), or the option) and bias (0); zero
//   initial states, and the encoder's final states are not handed to the decoder.
// At V = 32,320 and H = 1024 with 4 + 4 layers it has 160,671,297 parameters. The mini config
// scales layers, width and vocabulary through the same options.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace mlh::gnmt {

struct GnmtOptions {
  explicit GnmtOptions(int64_t vocabulary_size) : vocabulary_size_(vocabulary_size) {}
  TORCH_ARG(int64_t, vocabulary_size);
  TORCH_ARG(int64_t, hidden_size) = 1024;
  TORCH_ARG(int64_t, encoder_layers) = 4;  // >= 2: the bidirectional one and the 2H -> H one
  TORCH_ARG(int64_t, decoder_layers) = 4;  // >= 2: the attention one and at least one 2H -> H
  TORCH_ARG(double, dropout) = 0.2;
  TORCH_ARG(double, init_range) = 0.1;     // uniform(-init_range, init_range)
  // The attention's scale g at initialisation; 0 = the reference's 1 / sqrt(hidden_size).
  TORCH_ARG(double, attention_scale_init) = 0.0;
};

// Normalised Bahdanau attention: score(q, k) = g * (v / |v|) . tanh(W_q q + W_k k + b), softmax over
// the valid source positions. W_q, W_k have no bias; g starts at 1 / sqrt(units), b at 0.
class BahdanauAttentionImpl : public torch::nn::Module {
 public:
  BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t units);
  // query [B, Tq, Hq], keys [B, Tk, Hk] (or keys already projected by project_keys, with
  // `keys_projected`), mask [B, Tk] true at padding. Returns the context [B, Tq, Hk] and the
  // weights [B, Tq, Tk] (each row sums to 1 over the valid positions, 0 at padding).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query, const torch::Tensor& keys,
                                                  const torch::Tensor& projected_keys, const torch::Tensor& mask);
  torch::Tensor project_keys(const torch::Tensor& keys) { return linear_k(keys); }

  torch::nn::Linear linear_q{nullptr}, linear_k{nullptr};
  torch::Tensor linear_att, normalize_scalar, normalize_bias;
};
TORCH_MODULE(BahdanauAttention);

// What incremental decoding carries from step to step, per row (sentence x beam).
struct DecodingState {
  torch::Tensor encoded;         // [rows, S, H]
  torch::Tensor projected_keys;  // [rows, S, H]: W_k applied once
  torch::Tensor mask;            // [rows, S], true at padding
  std::vector<std::tuple<torch::Tensor, torch::Tensor>> layers;  // (h, c) [1, rows, H] per decoder layer
  torch::Tensor last_attention;  // [rows, S]: the weights of the last step
  // Keeps the rows at `rows` (int64 indices), in that order: beam search's reordering.
  void select_rows(const torch::Tensor& rows);
};

class GnmtImpl : public torch::nn::Module {
 public:
  explicit GnmtImpl(const GnmtOptions& options);

  // Training: source [B, S] ids with lengths [B] (int64, on the CPU; padding id 0 after them),
  // decoder input [B, T] (BOS then the target without its EOS). Returns logits [B, T, V].
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& source_lengths,
                        const torch::Tensor& decoder_input);

  // The encoder stack's output [B, S, H]; positions past a sentence's length hold padding outputs
  // the attention mask hides.
  torch::Tensor encode(const torch::Tensor& source, const torch::Tensor& source_lengths);
  // Starts incremental decoding over encoder outputs and their lengths.
  DecodingState start_decoding(const torch::Tensor& encoded, const torch::Tensor& source_lengths);
  // Log-probabilities [rows, V] of the token after `tokens` [rows]; records the step's attention in
  // state.last_attention.
  torch::Tensor next_log_probs(const torch::Tensor& tokens, DecodingState& state);

  // Attention weights [B, T, S] of the last forward (for tests and the coverage penalty).
  torch::Tensor last_attention_weights;

  GnmtOptions options;
  torch::nn::Embedding embedding{nullptr};
  torch::nn::ModuleList encoder_layers{nullptr};  // LSTMs; the first bidirectional
  torch::nn::LSTM attention_layer{nullptr};       // decoder layer 1
  BahdanauAttention attention{nullptr};
  torch::nn::ModuleList decoder_layers{nullptr};  // decoder layers 2.., each 2H -> H
  torch::nn::Linear classifier{nullptr};

 private:
  // Decoder layers 2.. over the attention layer's output x and the context; `states` (one per
  // layer, or empty for zero states) is updated in place.
  torch::Tensor decode_upper(torch::Tensor x, const torch::Tensor& context,
                             std::vector<std::tuple<torch::Tensor, torch::Tensor>>* states);
};
TORCH_MODULE(Gnmt);

// Padding mask [B, S]: true at positions >= length.
torch::Tensor padding_mask(const torch::Tensor& lengths, int64_t source_length);

// Lengths [rows] (int64) of padded id rows on the CPU: the count of non-padding (0) ids. Taken before
// the ids move to the device, so packing the encoder input never waits for the device.
torch::Tensor lengths_of(const torch::Tensor& cpu_ids);

// The reference's label-smoothed loss, summed over non-padding targets:
// (1 - s) * NLL(label) + s * mean over the vocabulary of -log p. logits [N, V] (float), labels [N]
// int64, padding labels (0) ignored.
torch::Tensor label_smoothed_loss_sum(const torch::Tensor& logits, const torch::Tensor& labels, double smoothing);

// The reference's step schedule (lr_scheduler.py WarmupMultiStepLR) at `step` (0-based: the first
// update uses step 0):
//   step <= warmup:            base * 0.01^((warmup - step) / warmup)   (exponential warm-up)
//   step >= remain:            base * factor^min(floor((step - remain) / interval) + 1, decays)
//   otherwise:                 base
struct StepSchedule {
  double base = 1e-3;
  int64_t warmup_steps = 200;
  int64_t remain_steps = 0;     // decay starts here
  int64_t decay_interval = 1;   // steps between decays (>= 1)
  int64_t decay_steps = 4;      // decays at most
  double decay_factor = 0.5;
  double at(int64_t step) const;
};

// The reference's resolution of its options over `total_steps` (epochs x steps per epoch): a
// fraction (< 1) of warmup or remain is that share of the total steps; decay_interval 0 spreads
// `decay_steps` decays evenly over the steps after remain; warmup is capped at remain.
StepSchedule resolve_step_schedule(double base, double warmup, double remain, int64_t decay_interval,
                                   int64_t decay_steps, double decay_factor, int64_t total_steps);

}  // namespace mlh::gnmt
