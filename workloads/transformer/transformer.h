// Transformer "big", as the MLPerf reference defines it (spec/workloads.md §6; TensorFlow official
// transformer, model/transformer.py): 6 + 6 pre-layer-norm layers (LN -> sublayer -> dropout ->
// residual add, a final LN on each stack, eps 1e-6), d_model 1024, feed-forward 4096 with ReLU, 16
// heads, q/k/v/output projections without bias, sinusoidal positions (sines then cosines), and one
// embedding matrix shared by source, target and the pre-softmax projection (normal, std d^-0.5;
// embeddings times sqrt(d), padding id 0 embeds to zero). Other weights Glorot-uniform, biases zero.
// At 33,708 subwords it has 210,804,736 parameters. The mini config scales layers, widths and
// vocabulary through the same options.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace mlh::transformer {

struct TransformerOptions {
  explicit TransformerOptions(int64_t vocabulary_size) : vocabulary_size_(vocabulary_size) {}
  TORCH_ARG(int64_t, vocabulary_size);
  TORCH_ARG(int64_t, layers) = 6;             // in each of the encoder and decoder
  TORCH_ARG(int64_t, model_size) = 1024;      // d_model
  TORCH_ARG(int64_t, feed_forward_size) = 4096;
  TORCH_ARG(int64_t, heads) = 16;
  TORCH_ARG(double, residual_dropout) = 0.1;  // after each sublayer, and on embeddings + positions
  TORCH_ARG(double, attention_dropout) = 0.1; // on attention weights
  TORCH_ARG(double, relu_dropout) = 0.1;      // after the feed-forward ReLU
};

// Keys and values of one attention layer kept across decoding steps, [rows, heads, length, depth].
struct AttentionCache {
  torch::Tensor key, value;
};

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  MultiHeadAttentionImpl(int64_t model_size, int64_t heads, double dropout);
  // query [B, Tq, D] attends over memory [B, Tk, D]; `bias` (0 or -1e9) broadcasts to
  // [B, heads, Tq, Tk]. With a cache, self-attention appends this step's keys and values to it;
  // with `static_memory` the memory's keys and values are computed once and then reused.
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& memory, const torch::Tensor& bias,
                        AttentionCache* cache = nullptr, bool static_memory = false);

  torch::nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, output{nullptr};
  int64_t heads;
  double dropout;
};
TORCH_MODULE(MultiHeadAttention);

class FeedForwardImpl : public torch::nn::Module {
 public:
  FeedForwardImpl(int64_t model_size, int64_t feed_forward_size, double relu_dropout);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear filter{nullptr}, output{nullptr};
  double relu_dropout;
};
TORCH_MODULE(FeedForward);

class EncoderLayerImpl : public torch::nn::Module {
 public:
  explicit EncoderLayerImpl(const TransformerOptions& options);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& source_bias);
  torch::nn::LayerNorm attention_norm{nullptr}, feed_forward_norm{nullptr};
  MultiHeadAttention self_attention{nullptr};
  FeedForward feed_forward{nullptr};
  double residual_dropout;
};
TORCH_MODULE(EncoderLayer);

// Decoding state of one decoder layer: its self-attention cache and the encoder-output keys/values.
struct DecoderLayerCache {
  AttentionCache self, encoder;
};

class DecoderLayerImpl : public torch::nn::Module {
 public:
  explicit DecoderLayerImpl(const TransformerOptions& options);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& encoded, const torch::Tensor& self_bias,
                        const torch::Tensor& source_bias, DecoderLayerCache* cache = nullptr);
  torch::nn::LayerNorm self_attention_norm{nullptr}, encoder_attention_norm{nullptr}, feed_forward_norm{nullptr};
  MultiHeadAttention self_attention{nullptr}, encoder_attention{nullptr};
  FeedForward feed_forward{nullptr};
  double residual_dropout;
};
TORCH_MODULE(DecoderLayer);

// What incremental decoding carries from step to step, per row (sentence x beam).
struct DecodingState {
  torch::Tensor encoded;      // [rows, source length, D]
  torch::Tensor source_bias;  // [rows, 1, 1, source length]
  std::vector<DecoderLayerCache> layers;
  // Keeps the rows at `rows` (int64 indices), in that order: beam search's reordering.
  void select_rows(const torch::Tensor& rows);
};

class TransformerImpl : public torch::nn::Module {
 public:
  explicit TransformerImpl(const TransformerOptions& options);

  // Training and scoring: source [B, S] and target [B, T] ids (0 = padding, targets end with EOS).
  // Returns logits [B, T, V] for predicting target[t] from target[< t].
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target);

  // The encoder stack's output [B, S, D] and the source padding bias [B, 1, 1, S].
  std::pair<torch::Tensor, torch::Tensor> encode(const torch::Tensor& source);
  // Starts incremental decoding over an encoded batch.
  DecodingState start_decoding(const torch::Tensor& encoded, const torch::Tensor& source_bias);
  // Log-probabilities [rows, V] of the token after `last_tokens` [rows] at position `step` (0-based;
  // step 0 takes the padding id, as the shifted-right training input starts with it).
  torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step, DecodingState& state);

  // Glorot-uniform weights, zero biases, unit layer norms, normal(0, d^-0.5) embeddings.
  void reset_parameters();

  TransformerOptions options;
  torch::Tensor embedding;  // [V, D], shared by source, target and output projection
  torch::nn::ModuleList encoder_layers{nullptr}, decoder_layers{nullptr};
  torch::nn::LayerNorm encoder_norm{nullptr}, decoder_norm{nullptr};

 private:
  torch::Tensor embed(const torch::Tensor& ids);
  torch::Tensor decode(const torch::Tensor& target_input, const torch::Tensor& encoded,
                       const torch::Tensor& source_bias);
};
TORCH_MODULE(Transformer);

// Sinusoidal position signal [length, channels]: sin(p * r_i) in the first half, cos in the second,
// with r_i = exp(-i * ln(1e4) / (channels / 2 - 1)).
torch::Tensor position_encoding(int64_t length, int64_t channels);

// Padding bias [B, 1, 1, S]: -1e9 where ids == 0, else 0.
torch::Tensor padding_bias(const torch::Tensor& ids);

// Causal bias [1, 1, T, T]: -1e9 above the diagonal.
torch::Tensor causal_bias(int64_t length);

// The reference's label-smoothed loss, summed over non-padding targets: cross-entropy against
// (1 - s) on the label and s / (V - 1) elsewhere, minus that distribution's entropy (so a perfect
// prediction scores 0). logits [N, V] (float), labels [N] int64, padding labels (0) ignored.
torch::Tensor smoothed_cross_entropy_sum(const torch::Tensor& logits, const torch::Tensor& labels,
                                         double smoothing);

// The reference's learning rate at `step` (0-based: the first update uses step 0, as TF's global
// step): base * d^-0.5 * min(step / warmup, 1) * max(step, warmup)^-0.5.
double inverse_sqrt_learning_rate(double base, int64_t model_size, int64_t warmup_steps, int64_t step);

}  // namespace mlh::transformer
