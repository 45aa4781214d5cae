#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "workloads/ncf/neumf.h"
#include "workloads/transformer/transformer.h"

namespace mlh::transformer {
namespace {

TransformerOptions tiny_options(int64_t vocabulary = 40) {
  return TransformerOptions(vocabulary).layers(2).model_size(16).feed_forward_size(32).heads(4);
}

TEST(Transformer, BigParameterCountAtTheReferenceVocabularyMatchesTheSpec) {
  // spec/workloads.md §6: 210,804,736 at 33,708 subwords.
  Transformer model(TransformerOptions(33708));
  EXPECT_EQ(ncf::count_parameters(*model), 210804736);
}

TEST(Transformer, LogitsHaveOneRowPerTargetPosition) {
  torch::manual_seed(1);
  Transformer model(tiny_options());
  const torch::Tensor source = torch::randint(2, 40, {3, 7}, torch::kLong);
  const torch::Tensor target = torch::randint(2, 40, {3, 5}, torch::kLong);
  EXPECT_EQ(model->forward(source, target).sizes(), (std::vector<int64_t>{3, 5, 40}));
}

TEST(Transformer, DecoderDoesNotPeekAtFutureTargets) {
  torch::manual_seed(2);
  Transformer model(tiny_options());
  model->eval();
  const torch::Tensor source = torch::randint(2, 40, {2, 6}, torch::kLong);
  torch::Tensor target = torch::randint(2, 40, {2, 8}, torch::kLong);
  const torch::Tensor before = model->forward(source, target);
  torch::Tensor changed = target.clone();
  changed.narrow(1, 4, 4).fill_(7);  // positions 4.. change
  const torch::Tensor after = model->forward(source, changed);
  // Logits at t predict target[t] from target[< t]: positions 0..4 see only target[0..3].
  EXPECT_TRUE(torch::allclose(before.narrow(1, 0, 5), after.narrow(1, 0, 5), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(before.narrow(1, 5, 3), after.narrow(1, 5, 3), 1e-5, 1e-6));
}

TEST(Transformer, SourcePaddingIsIgnored) {
  torch::manual_seed(3);
  Transformer model(tiny_options());
  model->eval();
  const torch::Tensor source = torch::randint(2, 40, {2, 5}, torch::kLong);
  const torch::Tensor padded = torch::constant_pad_nd(source, {0, 4}, 0);
  const torch::Tensor target = torch::randint(2, 40, {2, 6}, torch::kLong);
  EXPECT_TRUE(torch::allclose(model->forward(source, target), model->forward(padded, target), 1e-5, 1e-5));
}

TEST(Transformer, TargetPaddingDoesNotChangeEarlierLogits) {
  torch::manual_seed(4);
  Transformer model(tiny_options());
  model->eval();
  const torch::Tensor source = torch::randint(2, 40, {1, 5}, torch::kLong);
  const torch::Tensor target = torch::randint(2, 40, {1, 4}, torch::kLong);
  const torch::Tensor padded = torch::constant_pad_nd(target, {0, 3}, 0);
  EXPECT_TRUE(torch::allclose(model->forward(source, target),
                              model->forward(source, padded).narrow(1, 0, 4), 1e-5, 1e-6));
}

TEST(Transformer, IncrementalDecodingMatchesTheFullDecoder) {
  torch::manual_seed(5);
  Transformer model(tiny_options());
  model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor source = torch::constant_pad_nd(torch::randint(2, 40, {2, 4}, torch::kLong), {0, 2}, 0);
  const torch::Tensor target = torch::randint(2, 40, {2, 5}, torch::kLong);
  const torch::Tensor full = torch::log_softmax(model->forward(source, target), -1);
  auto [encoded, bias] = model->encode(source);
  DecodingState state = model->start_decoding(encoded, bias);
  torch::Tensor last = torch::zeros({2}, torch::kLong);
  for (int64_t t = 0; t < 5; ++t) {
    const torch::Tensor step = model->next_log_probs(last, t, state);
    EXPECT_TRUE(torch::allclose(step, full.select(1, t), 1e-4, 1e-5)) << "step " << t;
    last = target.select(1, t).contiguous();
  }
}

TEST(Transformer, PaddingEmbedsToZeroAndEmbeddingsAreScaled) {
  torch::manual_seed(6);
  Transformer model(tiny_options());
  const torch::Tensor w = model->embedding;
  EXPECT_NEAR(w.std().item<double>(), std::pow(16.0, -0.5), 0.05);
  EXPECT_NEAR(model->encoder_layers[0]->as<EncoderLayer>()->self_attention->q->weight.abs().max().item<double>(),
              std::sqrt(6.0 / 32.0), 0.02);
}

TEST(PositionEncoding, SinesThenCosines) {
  const torch::Tensor signal = position_encoding(3, 8);
  // Channel 0 has rate 1, channel 3 rate 1e-4; the cosines start at channel 4.
  EXPECT_NEAR(signal[2][0].item<double>(), std::sin(2.0), 1e-6);
  EXPECT_NEAR(signal[2][3].item<double>(), std::sin(2.0 * 1e-4), 1e-6);
  EXPECT_NEAR(signal[2][4].item<double>(), std::cos(2.0), 1e-6);
  EXPECT_NEAR(signal[1][5].item<double>(), std::cos(std::exp(-std::log(1e4) / 3.0)), 1e-6);
}

TEST(SmoothedCrossEntropy, ZeroForAPerfectPredictionOfTheSmoothedTarget) {
  const int64_t vocabulary = 5;
  const double s = 0.1;
  // Logits whose softmax is exactly the smoothed target of label 3.
  torch::Tensor probs = torch::full({1, vocabulary}, s / (vocabulary - 1), torch::kDouble);
  probs[0][3] = 1 - s;
  const torch::Tensor loss = smoothed_cross_entropy_sum(probs.log(), torch::tensor({3}, torch::kLong), s);
  EXPECT_NEAR(loss.item<double>(), 0.0, 1e-9);
}

TEST(SmoothedCrossEntropy, IgnoresPaddingAndMatchesTheFormula) {
  const torch::Tensor logits = torch::tensor({{1.0, 2.0, 0.5}, {0.3, 0.1, 0.9}}, torch::kDouble);
  const torch::Tensor labels = torch::tensor({1, 0}, torch::kLong);
  const double s = 0.2;
  const torch::Tensor lp = torch::log_softmax(logits[0], 0);
  const double low = s / 2, conf = 1 - s;
  const double ce = -(low * lp[0].item<double>() + conf * lp[1].item<double>() + low * lp[2].item<double>());
  const double entropy = -(conf * std::log(conf) + 2 * low * std::log(low));
  EXPECT_NEAR(smoothed_cross_entropy_sum(logits, labels, s).item<double>(), ce - entropy, 1e-9);
}

TEST(InverseSqrtLearningRate, RisesLinearlyThenDecaysAsTheReference) {
  // Peak at step 16000 for d = 1024 and base 2.0: 2 / 32 / sqrt(16000) = 4.941e-4.
  EXPECT_DOUBLE_EQ(inverse_sqrt_learning_rate(2.0, 1024, 16000, 0), 0.0);
  EXPECT_NEAR(inverse_sqrt_learning_rate(2.0, 1024, 16000, 16000), 4.941e-4, 1e-7);
  EXPECT_NEAR(inverse_sqrt_learning_rate(2.0, 1024, 16000, 8000), 4.941e-4 / 2, 1e-7);
  EXPECT_NEAR(inverse_sqrt_learning_rate(2.0, 1024, 16000, 64000), 4.941e-4 / 2, 1e-7);
}

}  // namespace
}  // namespace mlh::transformer
