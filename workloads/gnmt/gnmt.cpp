#include "workloads/gnmt/gnmt.h"

#include <cmath>
#include <string>

#include "base/user_error.h"
#include "datasets/wmt/gnmt_vocabulary.h"
#include "harness/device.h"

namespace mlh::gnmt {

namespace {

// The reference fills masked scores with the most negative fp16 value, so fp16 and fp32 agree.
constexpr double kMaskedScore = -65504.0;

torch::nn::LSTM lstm(int64_t in, int64_t hidden, bool bidirectional = false) {
  return torch::nn::LSTM(
      torch::nn::LSTMOptions(in, hidden).num_layers(1).batch_first(true).bidirectional(bidirectional));
}

// Runs an LSTM over [B, T, in] from zero states, or from and into `state` when given.
torch::Tensor run_lstm(torch::nn::LSTM& layer, const torch::Tensor& x,
                       std::tuple<torch::Tensor, torch::Tensor>* state = nullptr) {
  if (state == nullptr || !std::get<0>(*state).defined()) {
    auto [output, final_state] = layer->forward(x);
    if (state != nullptr) *state = final_state;
    return output;
  }
  auto [output, final_state] = layer->forward(x, *state);
  *state = final_state;
  return output;
}

}  // namespace

BahdanauAttentionImpl::BahdanauAttentionImpl(int64_t query_size, int64_t key_size, int64_t units) {
  linear_q = register_module("linear_q", torch::nn::Linear(torch::nn::LinearOptions(query_size, units).bias(false)));
  linear_k = register_module("linear_k", torch::nn::Linear(torch::nn::LinearOptions(key_size, units).bias(false)));
  linear_att = register_parameter("linear_att", torch::empty({units}));
  normalize_scalar = register_parameter("normalize_scalar", torch::empty({1}));
  normalize_bias = register_parameter("normalize_bias", torch::empty({units}));
}

std::pair<torch::Tensor, torch::Tensor> BahdanauAttentionImpl::forward(const torch::Tensor& query,
                                                                       const torch::Tensor& keys,
                                                                       const torch::Tensor& projected_keys,
                                                                       const torch::Tensor& mask) {
  const torch::Tensor k = projected_keys.defined() ? projected_keys : linear_k(keys);  // [B, Tk, U]
  const torch::Tensor q = linear_q(query);                                            // [B, Tq, U]
  const torch::Tensor v = linear_att / linear_att.norm() * normalize_scalar;
  // [B, Tq, Tk, U] -> [B, Tq, Tk]
  const torch::Tensor sum = q.unsqueeze(2) + k.unsqueeze(1) + normalize_bias;
  torch::Tensor scores = torch::matmul(torch::tanh(sum), v);
  if (mask.defined()) scores = scores.masked_fill(mask.unsqueeze(1), kMaskedScore);
  const torch::Tensor weights = torch::softmax(scores, -1);
  return {torch::bmm(weights, keys), weights};
}

void DecodingState::select_rows(const torch::Tensor& rows) {
  encoded = encoded.index_select(0, rows);
  projected_keys = projected_keys.index_select(0, rows);
  mask = mask.index_select(0, rows);
  for (auto& [h, c] : layers) {
    h = h.index_select(1, rows);
    c = c.index_select(1, rows);
  }
  if (last_attention.defined()) last_attention = last_attention.index_select(0, rows);
}

GnmtImpl::GnmtImpl(const GnmtOptions& options_) : options(options_) {
  const int64_t h = options.hidden_size();
  TORCH_CHECK(options.encoder_layers() >= 2 && options.decoder_layers() >= 2,
              "GNMT needs at least 2 encoder and 2 decoder layers");
  embedding = register_module(
      "embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(options.vocabulary_size(), h).padding_idx(0)));
  encoder_layers = register_module("encoder_layers", torch::nn::ModuleList());
  encoder_layers->push_back(lstm(h, h, /*bidirectional=*/true));
  encoder_layers->push_back(lstm(2 * h, h));
  for (int64_t i = 2; i < options.encoder_layers(); ++i) encoder_layers->push_back(lstm(h, h));
  attention_layer = register_module("attention_layer", lstm(h, h));
  attention = register_module("attention", BahdanauAttention(h, h, h));
  decoder_layers = register_module("decoder_layers", torch::nn::ModuleList());
  for (int64_t i = 1; i < options.decoder_layers(); ++i) decoder_layers->push_back(lstm(2 * h, h));
  classifier = register_module("classifier", torch::nn::Linear(h, options.vocabulary_size()));

  torch::NoGradGuard no_grad;
  const double range = options.init_range();
  for (torch::Tensor& p : parameters()) p.uniform_(-range, range);
  attention->normalize_scalar.fill_(options.attention_scale_init() > 0 ? options.attention_scale_init()
                                                                       : 1.0 / std::sqrt(static_cast<double>(h)));
  attention->normalize_bias.zero_();
}

torch::Tensor GnmtImpl::encode(const torch::Tensor& source, const torch::Tensor& source_lengths) {
  const double p = options.dropout();
  torch::Tensor x = torch::dropout(embedding(source), p, is_training());
  // The bidirectional layer over packed sequences: the backward direction starts at each
  // sentence's last token, not at the padding.
  auto first = encoder_layers->ptr<torch::nn::LSTMImpl>(0);
  const auto packed = torch::nn::utils::rnn::pack_padded_sequence(x, source_lengths.to(torch::kCPU),
                                                                 /*batch_first=*/true, /*enforce_sorted=*/false);
  const auto packed_output = std::get<0>(first->forward_with_packed_input(packed));
  x = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(packed_output, /*batch_first=*/true,
                                                             /*padding_value=*/0.0, source.size(1)));
  for (size_t i = 1; i < encoder_layers->size(); ++i) {
    torch::nn::LSTM layer(encoder_layers->ptr<torch::nn::LSTMImpl>(i));
    const torch::Tensor output = run_lstm(layer, torch::dropout(x, p, is_training()));
    x = i >= 2 ? output + x : output;
  }
  return x;
}

torch::Tensor GnmtImpl::decode_upper(torch::Tensor x, const torch::Tensor& context,
                                     std::vector<std::tuple<torch::Tensor, torch::Tensor>>* states) {
  const double p = options.dropout();
  for (size_t i = 0; i < decoder_layers->size(); ++i) {
    torch::nn::LSTM layer(decoder_layers->ptr<torch::nn::LSTMImpl>(i));
    const torch::Tensor input = torch::dropout(torch::cat({x, context}, 2), p, is_training());
    const torch::Tensor output = run_lstm(layer, input, states != nullptr ? &(*states)[i + 1] : nullptr);
    // Decoder layer i + 2 of the reference: residuals from its third layer on.
    x = i >= 1 ? output + x : output;
  }
  return x;
}

torch::Tensor GnmtImpl::forward(const torch::Tensor& source, const torch::Tensor& source_lengths,
                                const torch::Tensor& decoder_input) {
  const torch::Tensor encoded = encode(source, source_lengths);
  const torch::Tensor mask = padding_mask(stage_to_device(source_lengths, encoded.device()), source.size(1));
  torch::Tensor x = torch::dropout(embedding(decoder_input), options.dropout(), is_training());
  x = run_lstm(attention_layer, x);
  auto [context, weights] = attention(x, encoded, torch::Tensor(), mask);
  last_attention_weights = weights.detach();
  return classifier(decode_upper(x, context, nullptr));
}

DecodingState GnmtImpl::start_decoding(const torch::Tensor& encoded, const torch::Tensor& source_lengths) {
  DecodingState state;
  state.encoded = encoded;
  state.projected_keys = attention->project_keys(encoded);
  state.mask = padding_mask(source_lengths.to(encoded.device()), encoded.size(1));
  state.layers.resize(decoder_layers->size() + 1);
  return state;
}

torch::Tensor GnmtImpl::next_log_probs(const torch::Tensor& tokens, DecodingState& state) {
  torch::Tensor x = embedding(tokens.unsqueeze(1));  // [rows, 1, H]
  x = run_lstm(attention_layer, x, &state.layers[0]);
  auto [context, weights] = attention(x, state.encoded, state.projected_keys, state.mask);
  state.last_attention = weights.squeeze(1);
  x = decode_upper(x, context, &state.layers);
  return torch::log_softmax(classifier(x).squeeze(1).to(torch::kFloat), -1);
}

torch::Tensor padding_mask(const torch::Tensor& lengths, int64_t source_length) {
  const torch::Tensor positions = torch::arange(source_length, lengths.options().dtype(torch::kLong));
  return positions.unsqueeze(0).ge(lengths.to(torch::kLong).unsqueeze(1));
}

torch::Tensor lengths_of(const torch::Tensor& cpu_ids) {
  MLH_ASSERT(cpu_ids.device().is_cpu());
  return cpu_ids.ne(wmt::kGnmtPadId).sum(1).to(torch::kLong);
}

torch::Tensor label_smoothed_loss_sum(const torch::Tensor& logits, const torch::Tensor& labels, double smoothing) {
  const torch::Tensor log_probs = torch::log_softmax(logits, -1);
  const torch::Tensor nll = -log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1);
  const torch::Tensor smooth = -log_probs.mean(-1);
  const torch::Tensor loss = (1.0 - smoothing) * nll + smoothing * smooth;
  return (loss * labels.ne(0).to(loss.scalar_type())).sum();
}

double StepSchedule::at(int64_t step) const {
  if (step <= warmup_steps) {
    if (warmup_steps == 0) return base;
    return base * std::pow(0.01, static_cast<double>(warmup_steps - step) / static_cast<double>(warmup_steps));
  }
  if (step >= remain_steps) {
    const int64_t decays = std::min((step - remain_steps) / std::max<int64_t>(decay_interval, 1) + 1, decay_steps);
    return base * std::pow(decay_factor, static_cast<double>(decays));
  }
  return base;
}

StepSchedule resolve_step_schedule(double base, double warmup, double remain, int64_t decay_interval,
                                   int64_t decay_steps, double decay_factor, int64_t total_steps) {
  const auto steps = [&](double value) {
    return value < 1.0 ? static_cast<int64_t>(value * static_cast<double>(total_steps)) : static_cast<int64_t>(value);
  };
  StepSchedule s;
  s.base = base;
  s.remain_steps = steps(remain);
  s.warmup_steps = std::min(steps(warmup), s.remain_steps);
  s.decay_steps = decay_steps;
  s.decay_factor = decay_factor;
  s.decay_interval = decay_interval > 0 ? decay_interval
                                        : std::max<int64_t>((total_steps - s.remain_steps) / std::max<int64_t>(decay_steps, 1), 1);
  return s;
}

}  // namespace mlh::gnmt
