#include "workloads/transformer/transformer.h"

#include <cmath>
#include <string>

namespace mlh::transformer {

namespace {

constexpr double kLayerNormEpsilon = 1e-6;
constexpr double kNegativeInfinityBias = -1e9;

torch::nn::Linear dense(int64_t in, int64_t out, bool bias) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

torch::nn::LayerNorm layer_norm(int64_t size) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({size}).eps(kLayerNormEpsilon));
}

// [B, T, D] -> [B, heads, T, D / heads]
torch::Tensor split_heads(const torch::Tensor& x, int64_t heads) {
  return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}

torch::Tensor combine_heads(const torch::Tensor& x) {
  const torch::Tensor t = x.transpose(1, 2);
  return t.reshape({t.size(0), t.size(1), t.size(2) * t.size(3)});
}

torch::Tensor residual(const torch::Tensor& x, const torch::Tensor& sublayer_output, double dropout,
                       bool training) {
  return x + torch::dropout(sublayer_output, dropout, training);
}

}  // namespace

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t model_size, int64_t heads_, double dropout_)
    : heads(heads_), dropout(dropout_) {
  TORCH_CHECK(model_size % heads == 0, "model size ", model_size, " is not a multiple of ", heads, " heads");
  q = register_module("q", dense(model_size, model_size, false));
  k = register_module("k", dense(model_size, model_size, false));
  v = register_module("v", dense(model_size, model_size, false));
  output = register_module("output_transform", dense(model_size, model_size, false));
}

torch::Tensor MultiHeadAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& memory,
                                              const torch::Tensor& bias, AttentionCache* cache,
                                              bool static_memory) {
  torch::Tensor key, value;
  if (cache != nullptr && static_memory && cache->key.defined()) {
    key = cache->key;
    value = cache->value;
  } else {
    key = split_heads(k(memory), heads);
    value = split_heads(v(memory), heads);
    if (cache != nullptr) {
      if (!static_memory && cache->key.defined()) {
        key = torch::cat({cache->key, key}, 2);
        value = torch::cat({cache->value, value}, 2);
      }
      cache->key = key;
      cache->value = value;
    }
  }
  const int64_t depth = query.size(2) / heads;
  const torch::Tensor scaled_query = split_heads(q(query), heads) * std::pow(static_cast<double>(depth), -0.5);
  torch::Tensor logits = torch::matmul(scaled_query, key.transpose(2, 3));
  if (bias.defined()) logits = logits + bias;
  torch::Tensor weights = torch::softmax(logits, -1, logits.scalar_type());
  weights = torch::dropout(weights, dropout, is_training());
  return output(combine_heads(torch::matmul(weights, value)));
}

FeedForwardImpl::FeedForwardImpl(int64_t model_size, int64_t feed_forward_size, double relu_dropout_)
    : relu_dropout(relu_dropout_) {
  filter = register_module("filter_layer", dense(model_size, feed_forward_size, true));
  output = register_module("output_layer", dense(feed_forward_size, model_size, true));
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
  return output(torch::dropout(torch::relu(filter(x)), relu_dropout, is_training()));
}

EncoderLayerImpl::EncoderLayerImpl(const TransformerOptions& o) : residual_dropout(o.residual_dropout()) {
  attention_norm = register_module("self_attention_norm", layer_norm(o.model_size()));
  self_attention = register_module("self_attention",
                                   MultiHeadAttention(o.model_size(), o.heads(), o.attention_dropout()));
  feed_forward_norm = register_module("ffn_norm", layer_norm(o.model_size()));
  feed_forward = register_module("ffn", FeedForward(o.model_size(), o.feed_forward_size(), o.relu_dropout()));
}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& source_bias) {
  const torch::Tensor normed = attention_norm(x);
  torch::Tensor y = residual(x, self_attention(normed, normed, source_bias), residual_dropout, is_training());
  return residual(y, feed_forward(feed_forward_norm(y)), residual_dropout, is_training());
}

DecoderLayerImpl::DecoderLayerImpl(const TransformerOptions& o) : residual_dropout(o.residual_dropout()) {
  self_attention_norm = register_module("self_attention_norm", layer_norm(o.model_size()));
  self_attention = register_module("self_attention",
                                   MultiHeadAttention(o.model_size(), o.heads(), o.attention_dropout()));
  encoder_attention_norm = register_module("encdec_attention_norm", layer_norm(o.model_size()));
  encoder_attention = register_module("encdec_attention",
                                      MultiHeadAttention(o.model_size(), o.heads(), o.attention_dropout()));
  feed_forward_norm = register_module("ffn_norm", layer_norm(o.model_size()));
  feed_forward = register_module("ffn", FeedForward(o.model_size(), o.feed_forward_size(), o.relu_dropout()));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& encoded,
                                        const torch::Tensor& self_bias, const torch::Tensor& source_bias,
                                        DecoderLayerCache* cache) {
  const torch::Tensor normed = self_attention_norm(x);
  torch::Tensor y = residual(
      x, self_attention(normed, normed, self_bias, cache != nullptr ? &cache->self : nullptr, false),
      residual_dropout, is_training());
  y = residual(y,
               encoder_attention(encoder_attention_norm(y), encoded, source_bias,
                                 cache != nullptr ? &cache->encoder : nullptr, true),
               residual_dropout, is_training());
  return residual(y, feed_forward(feed_forward_norm(y)), residual_dropout, is_training());
}

void DecodingState::select_rows(const torch::Tensor& rows) {
  encoded = encoded.index_select(0, rows);
  source_bias = source_bias.index_select(0, rows);
  for (DecoderLayerCache& layer : layers)
    for (AttentionCache* cache : {&layer.self, &layer.encoder})
      if (cache->key.defined()) {
        cache->key = cache->key.index_select(0, rows);
        cache->value = cache->value.index_select(0, rows);
      }
}

TransformerImpl::TransformerImpl(const TransformerOptions& options_) : options(options_) {
  TORCH_CHECK(options.model_size() % 2 == 0, "model size must be even for the position encoding");
  embedding = register_parameter("embedding_shared_weights",
                                 torch::empty({options.vocabulary_size(), options.model_size()}));
  encoder_layers = register_module("encoder_stack", torch::nn::ModuleList());
  decoder_layers = register_module("decoder_stack", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.layers(); ++i) {
    encoder_layers->push_back(EncoderLayer(options));
    decoder_layers->push_back(DecoderLayer(options));
  }
  encoder_norm = register_module("encoder_output_norm", layer_norm(options.model_size()));
  decoder_norm = register_module("decoder_output_norm", layer_norm(options.model_size()));
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (auto& item : named_parameters()) {
    torch::Tensor& p = item.value();
    const std::string& name = item.key();
    if (p.is_same(embedding)) {
      p.normal_(0.0, std::pow(static_cast<double>(options.model_size()), -0.5));
    } else if (name.find("norm") != std::string::npos) {
      name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0 ? p.fill_(1.0) : p.zero_();
    } else if (p.dim() == 1) {
      p.zero_();
    } else {
      // variance_scaling(1.0, fan_avg, uniform): limit sqrt(3 / ((fan_in + fan_out) / 2)).
      const double limit = std::sqrt(6.0 / static_cast<double>(p.size(0) + p.size(1)));
      p.uniform_(-limit, limit);
    }
  }
}

torch::Tensor TransformerImpl::embed(const torch::Tensor& ids) {
  const torch::Tensor mask = ids.ne(0).unsqueeze(-1).to(embedding.scalar_type());
  return torch::embedding(embedding, ids) * mask * std::sqrt(static_cast<double>(options.model_size()));
}

std::pair<torch::Tensor, torch::Tensor> TransformerImpl::encode(const torch::Tensor& source) {
  const torch::Tensor bias = padding_bias(source);
  torch::Tensor x = embed(source);
  x = x + position_encoding(source.size(1), options.model_size()).to(x.device(), x.scalar_type());
  x = torch::dropout(x, options.residual_dropout(), is_training());
  for (const auto& layer : *encoder_layers) x = layer->as<EncoderLayer>()->forward(x, bias);
  return {encoder_norm(x), bias};
}

torch::Tensor TransformerImpl::decode(const torch::Tensor& target_input, const torch::Tensor& encoded,
                                      const torch::Tensor& source_bias) {
  torch::Tensor x = embed(target_input);
  const int64_t length = target_input.size(1);
  x = x + position_encoding(length, options.model_size()).to(x.device(), x.scalar_type());
  x = torch::dropout(x, options.residual_dropout(), is_training());
  const torch::Tensor self_bias = causal_bias(length).to(x.device());
  for (const auto& layer : *decoder_layers)
    x = layer->as<DecoderLayer>()->forward(x, encoded, self_bias, source_bias);
  return decoder_norm(x);
}

torch::Tensor TransformerImpl::forward(const torch::Tensor& source, const torch::Tensor& target) {
  auto [encoded, source_bias] = encode(source);
  // Shift right: the input at position t is target[t - 1], and padding (id 0) at t = 0.
  const torch::Tensor target_input =
      torch::constant_pad_nd(target, {1, 0}, 0).narrow(1, 0, target.size(1));
  const torch::Tensor decoded = decode(target_input, encoded, source_bias);
  return torch::matmul(decoded, embedding.t());
}

DecodingState TransformerImpl::start_decoding(const torch::Tensor& encoded, const torch::Tensor& source_bias) {
  DecodingState state;
  state.encoded = encoded;
  state.source_bias = source_bias;
  state.layers.resize(decoder_layers->size());
  return state;
}

torch::Tensor TransformerImpl::next_log_probs(const torch::Tensor& last_tokens, int64_t step,
                                              DecodingState& state) {
  const torch::Tensor input = (step == 0 ? torch::zeros_like(last_tokens) : last_tokens).unsqueeze(1);
  torch::Tensor x = embed(input);
  x = x + position_encoding(step + 1, options.model_size()).narrow(0, step, 1).to(x.device(), x.scalar_type());
  for (size_t i = 0; i < decoder_layers->size(); ++i)
    x = decoder_layers[i]->as<DecoderLayer>()->forward(x, state.encoded, torch::Tensor(),
                                                       state.source_bias, &state.layers[i]);
  const torch::Tensor logits = torch::matmul(decoder_norm(x).squeeze(1), embedding.t());
  return torch::log_softmax(logits.to(torch::kFloat), -1);
}

torch::Tensor position_encoding(int64_t length, int64_t channels) {
  const int64_t timescales = channels / 2;
  const double increment = std::log(1e4) / std::max<double>(1.0, static_cast<double>(timescales - 1));
  const torch::Tensor inverse = torch::exp(torch::arange(timescales, torch::kDouble) * -increment);
  const torch::Tensor scaled = torch::arange(length, torch::kDouble).unsqueeze(1) * inverse.unsqueeze(0);
  return torch::cat({torch::sin(scaled), torch::cos(scaled)}, 1).to(torch::kFloat);
}

torch::Tensor padding_bias(const torch::Tensor& ids) {
  return (ids.eq(0).to(torch::kFloat) * kNegativeInfinityBias).unsqueeze(1).unsqueeze(1);
}

torch::Tensor causal_bias(int64_t length) {
  return (torch::ones({length, length}).triu(1) * kNegativeInfinityBias).unsqueeze(0).unsqueeze(0);
}

torch::Tensor smoothed_cross_entropy_sum(const torch::Tensor& logits, const torch::Tensor& labels,
                                         double smoothing) {
  const int64_t vocabulary = logits.size(-1);
  const double confidence = 1.0 - smoothing;
  const double low = smoothing / static_cast<double>(vocabulary - 1);
  const torch::Tensor log_probs = torch::log_softmax(logits, -1);
  const torch::Tensor label_term = log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1);
  // -sum_j q_j log p_j with q = low everywhere and confidence at the label.
  const torch::Tensor cross_entropy = -(low * log_probs.sum(-1) + (confidence - low) * label_term);
  const double entropy = -(confidence * std::log(confidence) +
                           static_cast<double>(vocabulary - 1) * low * std::log(low + 1e-20));
  const torch::Tensor weights = labels.ne(0).to(cross_entropy.scalar_type());
  return ((cross_entropy - entropy) * weights).sum();
}

double inverse_sqrt_learning_rate(double base, int64_t model_size, int64_t warmup_steps, int64_t step) {
  const double s = static_cast<double>(step);
  const double warmup = static_cast<double>(std::max<int64_t>(warmup_steps, 1));
  return base * std::pow(static_cast<double>(model_size), -0.5) * std::min(s / warmup, 1.0) /
         std::sqrt(std::max(s, warmup));
}

}  // namespace mlh::transformer
