// Transformer-big English -> German wired into the engine (spec/workloads.md §6): token-count
// batches in length buckets, Adam with the inverse-square-root warm-up, label smoothing 0.1, and
// after every epoch beam search over the test set scored with Tensor2Tensor's uncased BLEU
// (eval_accuracy = BLEU / 100). Data: a folder in the MLPerf layout (datasets/wmt/layout.h: TFRecord
// shards + the t2t vocabulary, or what `mlharness prepare` writes with a SentencePiece model), or a
// synthetic corpus that goes through the same prepare and loader.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <torch/torch.h>

#include "compliance/mllog_keys.h"
#include "base/user_error.h"
#include "datasets/sharded_sampler.h"
#include "datasets/wmt/bleu.h"
#include "datasets/wmt/layout.h"
#include "datasets/wmt/parallel_text.h"
#include "datasets/wmt/prepare.h"
#include "datasets/wmt/sentencepiece_codec.h"
#include "datasets/wmt/t2t_subword_codec.h"
#include "datasets/wmt/tfrecord.h"
#include "datasets/wmt/token_batcher.h"
#include "harness/bench.h"
#include "harness/device.h"
#include "harness/fused_adam.h"
#include "harness/setting_groups.h"
#include "harness/train_step.h"
#include "harness/workload.h"
#include "workloads/common/beam_search.h"
#include "workloads/common/recipe_setting_groups.h"
#include "workloads/common/synthetic_translation_corpus.h"
#include "workloads/common/translation_eval.h"
#include "workloads/common/translation_steps.h"
#include "workloads/common/translation_workload.h"
#include "workloads/transformer/transformer.h"
#include "workloads/transformer/transformer_trainer.h"

namespace mlh::transformer {

namespace {

namespace fs = std::filesystem;

// vocab.translate_ende_wmt32k.32768.subwords (spec/workloads.md §6).
constexpr int64_t kReferenceVocabularySize = 33708;

struct TransformerSettings : TranslationDataSettings,
                             AdamSettings,
                             LabelSmoothingSettings,
                             TranslationEvalSettings,
                             ComputeSettings {
  int64_t synthetic_vocabulary_size = 2000;
  int64_t vocabulary_size = 0;
  int64_t layers = 6;
  int64_t model_size = 1024;
  int64_t feed_forward_size = 4096;
  int64_t heads = 16;
  double residual_dropout = 0.1;
  double attention_dropout = 0.1;
  double relu_dropout = 0.1;
  int64_t global_batch_size = 4096;
  int64_t max_length = 256;
  int64_t gradient_shards = 0;
  double learning_rate = 2.0;
  int64_t warmup_steps = 16000;
  int64_t extra_decode_length = 50;
  int64_t bench_sentence_length = 32;

  TransformerSettings()
      : TranslationDataSettings("wmt", ": MLPerf's TFRecords + vocabulary, or `mlharness prepare` output", "transformer"),
        AdamSettings(0.9, 0.997, 1e-9),  // MLPerf v0.7 fixes epsilon at 1e-9
        TranslationEvalSettings(4, 64, 25.0) {}

  void bind(ConfigMap& c) {
    TranslationDataSettings::bind(c);
    c.bind("synthetic_vocabulary_size", synthetic_vocabulary_size, "synthetic: SentencePiece vocabulary size",
           at_least(100));
    c.bind("vocabulary_size", vocabulary_size,
           "embedding rows; 0 = the data's vocabulary (33708 for MLPerf's); never below the data's", at_least(0));
    c.bind("layers", layers, "encoder layers, and as many decoder layers", at_least(1));
    c.bind("model_size", model_size, "d_model", at_least(2));
    c.bind("feed_forward_size", feed_forward_size, "inner size of the feed-forward sublayers", at_least(1));
    c.bind("heads", heads, "attention heads (model_size must be a multiple)", at_least(1));
    const Bounds dropout = in_range(0.0, 1.0, Ends::kOpenHigh);
    c.bind("residual_dropout", residual_dropout, "dropout after each sublayer and on the embeddings", dropout);
    c.bind("attention_dropout", attention_dropout, "dropout on attention weights", dropout);
    c.bind("relu_dropout", relu_dropout, "dropout after the feed-forward ReLU", dropout);
    c.bind("global_batch_size", global_batch_size,
           "tokens per global batch (per side, padding included), all ranks; above max_length", at_least(1));
    c.bind("max_length", max_length, "longest pair kept, in subword tokens with EOS (logged as max_sequence_length)",
           at_least(2));
    c.bind("gradient_shards", gradient_shards, "gradient shards per global batch: a power of two, or 0 = one per rank",
           at_least(0));
    c.bind("learning_rate", learning_rate,
           "base of the schedule base * d^-0.5 * min(step/warmup, 1) * max(step, warmup)^-0.5", above(0.0));
    c.bind("warmup_steps", warmup_steps, "warm-up steps of the inverse-square-root schedule", at_least(0));
    AdamSettings::bind(c);
    LabelSmoothingSettings::bind(c);
    TranslationEvalSettings::bind(c);
    c.bind("extra_decode_length", extra_decode_length, "decoding stops at the batch's longest source + this",
           at_least(0));
    c.bind("bench_sentence_length", bench_sentence_length, "bench: tokens per random sentence", at_least(2));
    ComputeSettings::bind(c);
  }

  void validate() const {
    TranslationDataSettings::validate();
    if (model_size % heads != 0)
      throw UserError("key 'model_size' (" + std::to_string(model_size) + ") must be a multiple of 'heads' (" +
                      std::to_string(heads) + ")");
    if (global_batch_size <= max_length)
      throw UserError("key 'global_batch_size' (" + std::to_string(global_batch_size) +
                      " tokens) must exceed 'max_length' (" + std::to_string(max_length) + ")");
  }

  TransformerOptions model_options(int64_t vocabulary) const {
    return TransformerOptions(vocabulary)
        .layers(layers)
        .model_size(model_size)
        .feed_forward_size(feed_forward_size)
        .heads(heads)
        .residual_dropout(residual_dropout)
        .attention_dropout(attention_dropout)
        .relu_dropout(relu_dropout);
  }

  TransformerTrainerOptions trainer_options(int64_t vocabulary, const torch::Device& device,
                                            Precision precision) const {
    return TransformerTrainerOptions(model_options(vocabulary))
        .adam(adam_options(0.0))
        .label_smoothing(label_smoothing)
        .step(TrainStepOptions{precision, device});
  }
};

// The vocabulary a data folder holds: MLPerf's t2t subwords, else a prepared SentencePiece model.
std::unique_ptr<wmt::SubwordCodec> open_codec(const fs::path& folder) {
  if (!fs::is_directory(folder))
    throw UserError("data folder " + folder.string() + " does not exist");
  if (fs::exists(folder / wmt::kT2tVocabularyFile)) return wmt::load_t2t_subword_codec(folder / wmt::kT2tVocabularyFile);
  if (fs::exists(folder / wmt::kSentencePieceModelFile))
    return wmt::load_sentencepiece_codec(folder / wmt::kSentencePieceModelFile);
  throw UserError(folder.string() + " holds no vocabulary: expected " + wmt::kT2tVocabularyFile +
                  " (MLPerf's t2t subwords; copy " + wmt::kT2tShippedVocabularyFile + " there) or " +
                  wmt::kSentencePieceModelFile + " (from `mlharness prepare`)");
}

// The Transformer's incremental decoding behind beam search's interface.
class TransformerDecoder final : public IncrementalDecoder {
 public:
  TransformerDecoder(Transformer& model, const torch::Tensor& source, int64_t beam_size) : model_(model) {
    auto [encoded, bias] = model_->encode(source);
    state_ = model_->start_decoding(encoded.repeat_interleave(beam_size, 0), bias.repeat_interleave(beam_size, 0));
  }
  torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step) override {
    return model_->next_log_probs(last_tokens.to(state_.encoded.device()), step, state_).to(torch::kCPU);
  }
  void select_rows(const torch::Tensor& rows) override { state_.select_rows(rows.to(state_.encoded.device())); }

 private:
  Transformer& model_;
  DecodingState state_;
};

// Decoders for evaluation: each batch decodes up to its longest source + extra_length tokens.
DecoderFactory transformer_decoders(Transformer& model, const torch::Device& device, int64_t extra_length) {
  return [&model, device, extra_length](const torch::Tensor& source, BeamSearchOptions& options) {
    options.max_length = source.size(1) + extra_length;
    return std::make_unique<TransformerDecoder>(model, source.to(device), options.beam_size);
  };
}

class TransformerWorkload final : public TranslationWorkload<TransformerSettings, TransformerTrainer> {
 public:
  TransformerWorkload() : TranslationWorkload(wmt::TranslationFormat::kTransformer) {}
  std::string benchmark() const override { return "transformer"; }

  void prepare_data(const World& world, const std::string& data_root) override {
    const TransformerSettings& s = settings_;
    wmt::PrepareOptions options;
    options.vocabulary_size = s.synthetic_vocabulary_size;
    folder_ = s.folder(world, data_root, "v" + std::to_string(s.synthetic_vocabulary_size), options);
  }

  WorkloadInfo init(const RunContext& context) override {
    start_run(context);
    load_data();

    wmt::TokenBatchOptions batching;
    batching.max_tokens_per_batch = settings_.global_batch_size;
    batching.max_length = settings_.max_length;
    batching.policy = settings_.length_policy;
    batcher_ = std::make_unique<wmt::TokenBatcher>(train_pairs_, batching);
    steps_per_epoch_ = static_cast<int64_t>(batcher_->epoch_batches(seed_, 1).size());

    torch::manual_seed(seed_);
    trainer_ =
        std::make_unique<TransformerTrainer>(settings_.trainer_options(model_vocabulary_, device_, precision_), *world_);
    log_hyperparameters(context.logger);

    WorkloadInfo info;
    info.global_batch_size = settings_.global_batch_size;
    info.train_samples = batcher_->kept_pairs();
    info.eval_samples = static_cast<int64_t>(test_.size());
    for (const auto& p : trainer_->step().parameters()) info.parameter_count += p.numel();
    info.targets = {{"bleu/100", settings_.target_bleu / 100.0, /*strict=*/true}};  // the reference stops at BLEU > 25
    info.precision = precision_;
    return info;
  }

  std::map<std::string, double> baselines() override {
    return {{"copy-source baseline", wmt::t2t_corpus_bleu(test_.sources(), test_.references()) / 100.0}};
  }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    const TransformerSettings& s = settings_;
    return train_translation_epoch(epoch_plan(epoch, batcher_->kept_pairs()), *world_, *batcher_, *trainer_, [&](int64_t step) {
      return inverse_sqrt_learning_rate(s.learning_rate, s.model_size, s.warmup_steps, step);
    }, step_, progress);
  }

  Quality evaluate(int64_t /*epoch*/) override {
    BeamSearchOptions options;
    options.beam_size = settings_.beam_size;
    options.length_penalty_alpha = settings_.length_penalty_alpha;
    options.eos_id = wmt::kEosId;
    const wmt::BleuStatistics statistics = test_statistics(
        options, transformer_decoders(trainer_->model(), device_, settings_.extra_decode_length),
        [&](const wmt::TokenIds& output, const std::string& reference) {
          return wmt::t2t_bleu_statistics(codec_->decode(output), reference);
        });
    return bleu_quality(wmt::t2t_bleu(statistics));
  }

  // No loader bench: the batches are read into memory at init.
  std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) override;

 private:
  void load_data() {
    codec_ = open_codec(folder_);
    const int64_t data_vocabulary = codec_->vocabulary_size();
    model_vocabulary_ = settings_.vocabulary_size == 0 ? data_vocabulary : settings_.vocabulary_size;
    if (data_vocabulary > model_vocabulary_)
      throw UserError("the vocabulary " + codec_->describe() + " has " + std::to_string(data_vocabulary) +
                      " ids, more than the model's embedding (vocabulary_size " + std::to_string(model_vocabulary_) +
                      "); raise vocabulary_size or set it to 0");
    train_pairs_.clear();
    for (const fs::path& shard : wmt::encoded_shard_files(folder_, wmt::kEncodedPrefix, wmt::kTrainSplit)) {
      std::vector<wmt::EncodedPair> pairs = wmt::read_encoded_examples(shard, data_vocabulary);
      train_pairs_.insert(train_pairs_.end(), std::make_move_iterator(pairs.begin()), std::make_move_iterator(pairs.end()));
    }
    test_ = TranslationTestSet(wmt::read_parallel_text(folder_ / wmt::kTestSourceFile, folder_ / wmt::kTestReferenceFile),
                               settings_.eval_sentences, [&](const std::string& line) { return codec_->encode(line); });
  }

  void log_hyperparameters(MLLogger& log) const {
    const TransformerSettings& s = settings_;
    s.log_adam(log, s.learning_rate);
    log.event(keys::kOptLearningRateWarmupSteps, s.warmup_steps);
    log.event(keys::kMaxSequenceLength, s.max_length, {{keys::kMetaMethod, wmt::length_policy_name(s.length_policy)}});
    s.log_label_smoothing(log);
    log.event(keys::kEvalTarget, s.target_bleu / 100.0);
  }

  std::unique_ptr<wmt::SubwordCodec> codec_;
  int64_t model_vocabulary_ = 0;
  std::unique_ptr<wmt::TokenBatcher> batcher_;
};

// Training: the training step on random sentences of bench_sentence_length tokens, batch = tokens
// per side, cut into the configured gradient shards as training cuts a batch. Inference: beam search
// over batch random sentences, decoding exactly bench_sentence_length steps.
std::unique_ptr<BenchStep> TransformerWorkload::model_bench_step(const BenchSpec& spec, const World& world) {
  const TransformerSettings& s = settings_;
  const bool inference = spec.mode == BenchMode::kInference;
  const torch::Device device = spec.device;
  const Precision precision = parse_precision(spec.precision, "bench precision");
  const int64_t length = s.bench_sentence_length;
  // The data's vocabulary is not read for a bench: the synthetic one's size, else MLPerf's.
  const int64_t vocabulary = s.vocabulary_size > 0          ? s.vocabulary_size
                             : s.data_source == TranslationDataSettings::Source::kSynthetic ? s.synthetic_vocabulary_size
                                                            : kReferenceVocabularySize;
  const int64_t rows = inference ? spec.batch_size : spec.batch_size / length;
  if (rows < 1)
    throw UserError("bench batch " + std::to_string(spec.batch_size) + " tokens is below one sentence of " +
                    std::to_string(length) + " tokens (bench_sentence_length)");
  const int64_t shards = shards_per_rank(s.gradient_shards, world.size(), "gradient_shards");
  torch::manual_seed(0);
  auto trainer = std::make_shared<TransformerTrainer>(s.trainer_options(vocabulary, device, precision), world);
  trainer->step().set_learning_rate(inverse_sqrt_learning_rate(s.learning_rate, s.model_size, s.warmup_steps, s.warmup_steps));
  // Random ids of the real vocabulary (no padding), each sentence ending in EOS.
  const auto sentences = [&] {
    torch::Tensor ids = torch::randint(2, vocabulary, {rows, length}, torch::kLong);
    ids.select(1, length - 1).fill_(wmt::kEosId);
    return ids.to(device);
  };
  const torch::Tensor source = sentences(), target = sentences();
  BeamSearchOptions beam;
  beam.beam_size = s.beam_size;
  beam.length_penalty_alpha = s.length_penalty_alpha;
  beam.eos_id = -1;  // never finishes early: every step decodes the same work
  beam.max_length = length;
  DeviceBenchStep::Spec bench{device, precision, inference ? rows : rows * length, inference ? "sentences" : "tokens"};
  if (!inference) {
    const TranslationBatch batch = fixed_translation_batch(source, target, shards, rows * length * world.size());
    return make_train_bench_step<TranslationBatch>(bench, trainer, [batch] { return batch; });
  }
  return std::make_unique<DeviceBenchStep>(bench, [=] {
    Transformer& model = trainer->model();
    model->eval();
    torch::NoGradGuard no_grad;
    AutocastScope autocast(precision, device);
    TransformerDecoder decoder(model, source, beam.beam_size);
    beam_search(decoder, rows, beam);
  });
}

}  // namespace

MLH_REGISTER_WORKLOAD("transformer", "Transformer-big English-German translation, uncased BLEU (MLPerf)",
                      TransformerWorkload);

}  // namespace mlh::transformer
