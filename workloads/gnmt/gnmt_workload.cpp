// GNMT English -> German wired into the engine (spec/workloads.md §5): batches of a fixed number of
// sentence pairs in 5 length buckets, Adam with the reference's step schedule (exponential warm-up,
// then halvings from remain_steps on), gradient-norm clipping, label smoothing 0.1, and after every
// epoch beam search (beam 5, length penalty 0.6, coverage penalty 0.1) over the test set, detokenised
// with the Moses rules and scored with sacreBLEU uncased, intl tokeniser (eval_accuracy = BLEU / 100).
// Data: a folder in the MLPerf layout (datasets/wmt/layout.h gnmt_layout: BPE text + vocab.bpe.32000
// + the raw reference), real or written by `mlharness prepare --workload gnmt`, or a synthetic corpus
// that goes through the same prepare and loader.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <torch/torch.h>

#include "compliance/mllog_keys.h"
#include "base/user_error.h"
#include "datasets/sharded_sampler.h"
#include "datasets/wmt/bleu.h"
#include "datasets/wmt/gnmt_vocabulary.h"
#include "datasets/wmt/layout.h"
#include "datasets/wmt/moses_text.h"
#include "datasets/wmt/parallel_text.h"
#include "datasets/wmt/prepare.h"
#include "datasets/wmt/sentence_batcher.h"
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
#include "workloads/gnmt/gnmt.h"
#include "workloads/gnmt/gnmt_trainer.h"

namespace mlh::gnmt {

namespace {

namespace fs = std::filesystem;
namespace layout = wmt::gnmt_layout;

// 4 specials + the lines of vocab.bpe.32000, padded to a multiple of 8 (spec/workloads.md §5).
constexpr int64_t kReferenceVocabularySize = 32320;

struct GnmtSettings : TranslationDataSettings,
                      AdamSettings,
                      LabelSmoothingSettings,
                      TranslationEvalSettings,
                      ComputeSettings {
  int64_t synthetic_bpe_merges = 1000;
  int64_t vocabulary_pad_multiple = 8;
  int64_t hidden_size = 1024;
  int64_t encoder_layers = 4;
  int64_t decoder_layers = 4;
  double dropout = 0.2;
  double attention_scale_init = 0.0;
  int64_t global_batch_size = 0;
  int64_t local_batch_size = 128;
  int64_t max_length = 50;
  int64_t length_buckets = 5;
  int64_t gradient_shards = 0;
  double learning_rate = 1e-3;
  double warmup_steps = 200;
  double remain_steps = 0.666;
  int64_t decay_interval = 0;
  int64_t decay_steps = 4;
  double decay_factor = 0.5;
  int64_t schedule_epochs = 8;
  double gradient_clip_norm = 5.0;
  double coverage_penalty_beta = 0.1;
  int64_t max_decode_length = 150;
  int64_t bench_sentence_length = 32;

  GnmtSettings()
      : TranslationDataSettings("wmt16", " in the MLPerf GNMT layout, real or from `mlharness prepare --workload gnmt`",
                                "gnmt"),
        AdamSettings(0.9, 0.999, 1e-8),
        TranslationEvalSettings(5, 128, 24.0) {}

  void bind(ConfigMap& c) {
    TranslationDataSettings::bind(c);
    c.bind("synthetic_bpe_merges", synthetic_bpe_merges, "synthetic: BPE merges learned (the reference: 32000)",
           at_least(1));
    c.bind("vocabulary_pad_multiple", vocabulary_pad_multiple,
           "the vocabulary is padded to a multiple of this (the reference: 8 in fp16, 1 in fp32)", at_least(1));
    c.bind("hidden_size", hidden_size, "LSTM, embedding and attention width", at_least(1));
    c.bind("encoder_layers", encoder_layers, "encoder LSTM layers (the first bidirectional)", at_least(2));
    c.bind("decoder_layers", decoder_layers, "decoder LSTM layers (the first feeds the attention)", at_least(2));
    c.bind("dropout", dropout, "dropout on every LSTM layer's input", in_range(0.0, 1.0, Ends::kOpenHigh));
    c.bind("attention_scale_init", attention_scale_init,
           "initial scale g of the normalised attention scores; 0 = the reference's 1 / sqrt(hidden_size)", at_least(0.0));
    c.bind("global_batch_size", global_batch_size,
           "sentence pairs per global batch, all ranks; 0 = local_batch_size x ranks (the reference)", at_least(0));
    c.bind("local_batch_size", local_batch_size, "pairs per rank and step when global_batch_size is 0", at_least(1));
    c.bind("max_length", max_length, "longest pair kept, in BPE tokens with BOS and EOS (max_sequence_length)",
           at_least(3));
    c.bind("length_buckets", length_buckets, "equal-width length buckets batches are drawn from", at_least(1));
    c.bind("gradient_shards", gradient_shards, "gradient shards per global batch: a power of two, or 0 = one per rank",
           at_least(0));
    c.bind("learning_rate", learning_rate, "Adam's base learning rate", above(0.0));
    c.bind("warmup_steps", warmup_steps, "steps of exponential warm-up from 1% (below 1: a share of all steps)",
           at_least(0.0));
    c.bind("remain_steps", remain_steps, "step the decays start at (below 1: a share of all steps)", at_least(0.0));
    c.bind("decay_interval", decay_interval, "steps between decays; 0 = decay_steps decays evenly to the end",
           at_least(0));
    c.bind("decay_steps", decay_steps, "number of decays", at_least(0));
    c.bind("decay_factor", decay_factor, "factor of each decay", in_range(0.0, 1.0, Ends::kOpenLow));
    c.bind("schedule_epochs", schedule_epochs, "epochs the schedule spans (the reference's --epochs)", at_least(1));
    AdamSettings::bind(c);
    c.bind("gradient_clip_norm", gradient_clip_norm, "global gradient norm clip (0 = none)", at_least(0.0));
    LabelSmoothingSettings::bind(c);
    TranslationEvalSettings::bind(c);
    c.bind("coverage_penalty_beta", coverage_penalty_beta, "beta of the coverage penalty (0 = none)", at_least(0.0));
    c.bind("max_decode_length", max_decode_length, "decoding steps at most", at_least(1));
    c.bind("bench_sentence_length", bench_sentence_length, "bench: tokens per random sentence", at_least(3));
    ComputeSettings::bind(c);
  }

  void validate() const { TranslationDataSettings::validate(); }

  GnmtOptions model_options(int64_t vocabulary) const {
    return GnmtOptions(vocabulary)
        .hidden_size(hidden_size)
        .encoder_layers(encoder_layers)
        .decoder_layers(decoder_layers)
        .dropout(dropout)
        .attention_scale_init(attention_scale_init);
  }

  GnmtTrainerOptions trainer_options(int64_t vocabulary, const torch::Device& device, Precision precision) const {
    return GnmtTrainerOptions(model_options(vocabulary))
        .adam(adam_options(0.0))
        .label_smoothing(label_smoothing)
        .step(TrainStepOptions{precision, device, gradient_clip_norm});
  }
};

// GNMT's incremental decoding behind beam search's interface. The first step feeds BOS.
class GnmtDecoder final : public IncrementalDecoder {
 public:
  // source [B, S] on the model's device, lengths [B] on the CPU.
  GnmtDecoder(Gnmt& model, const torch::Tensor& source, const torch::Tensor& lengths, int64_t beam_size)
      : model_(model) {
    const torch::Tensor encoded = model_->encode(source, lengths);
    state_ = model_->start_decoding(encoded.repeat_interleave(beam_size, 0), lengths.repeat_interleave(beam_size, 0));
  }
  torch::Tensor next_log_probs(const torch::Tensor& last_tokens, int64_t step) override {
    const torch::Tensor tokens = step == 0 ? torch::full_like(last_tokens, wmt::kGnmtBosId) : last_tokens;
    return model_->next_log_probs(tokens.to(state_.encoded.device()), state_).to(torch::kCPU);
  }
  void select_rows(const torch::Tensor& rows) override { state_.select_rows(rows.to(state_.encoded.device())); }
  torch::Tensor last_attention() override { return state_.last_attention.to(torch::kCPU, torch::kFloat); }

 private:
  Gnmt& model_;
  DecodingState state_;
};

// Decoders for evaluation, over sources BOS ... EOS.
DecoderFactory gnmt_decoders(Gnmt& model, const torch::Device& device) {
  return [&model, device](const torch::Tensor& source, BeamSearchOptions& options) {
    return std::make_unique<GnmtDecoder>(model, source.to(device), lengths_of(source), options.beam_size);
  };
}

// BPE text files -> id pairs (BOS ... EOS on both sides). Throws UserError naming the files.
std::vector<wmt::EncodedPair> read_bpe_pairs(const wmt::GnmtVocabulary& vocabulary, const fs::path& source,
                                             const fs::path& target) {
  const wmt::ParallelText text = wmt::read_parallel_text(source, target);
  std::vector<wmt::EncodedPair> pairs;
  pairs.reserve(text.source.size());
  for (size_t i = 0; i < text.source.size(); ++i)
    pairs.push_back({vocabulary.encode(text.source[i]), vocabulary.encode(text.target[i])});
  return pairs;
}

class GnmtWorkload final : public TranslationWorkload<GnmtSettings, GnmtTrainer> {
 public:
  GnmtWorkload() : TranslationWorkload(wmt::TranslationFormat::kGnmt) {}
  std::string benchmark() const override { return "gnmt"; }

  void prepare_data(const World& world, const std::string& data_root) override {
    const GnmtSettings& s = settings_;
    wmt::PrepareOptions options;
    options.format = wmt::TranslationFormat::kGnmt;
    options.bpe_merges = s.synthetic_bpe_merges;
    folder_ = s.folder(world, data_root, "bpe" + std::to_string(s.synthetic_bpe_merges), options);
  }

  WorkloadInfo init(const RunContext& context) override {
    start_run(context);
    load_data();

    const GnmtSettings& s = settings_;
    global_batch_size_ = s.global_batch_size > 0 ? s.global_batch_size : s.local_batch_size * world_->size();
    wmt::SentenceBatchOptions batching;
    batching.batch_size = global_batch_size_;
    batching.max_length = s.max_length;
    batching.policy = s.length_policy;
    batching.buckets = s.length_buckets;
    batcher_ = std::make_unique<wmt::SentenceBatcher>(train_pairs_, batching);
    steps_per_epoch_ = batcher_->batches_per_epoch();
    schedule_ = resolve_step_schedule(s.learning_rate, s.warmup_steps, s.remain_steps, s.decay_interval,
                                      s.decay_steps, s.decay_factor, s.schedule_epochs * steps_per_epoch_);

    torch::manual_seed(seed_);
    trainer_ = std::make_unique<GnmtTrainer>(s.trainer_options(vocabulary_->size(), device_, precision_), *world_);
    log_hyperparameters(context.logger);

    WorkloadInfo info;
    info.global_batch_size = global_batch_size_;
    info.train_samples = batcher_->pairs_per_epoch();
    info.eval_samples = static_cast<int64_t>(test_.size());
    for (const auto& p : trainer_->step().parameters()) info.parameter_count += p.numel();
    info.targets = {{"bleu/100", s.target_bleu / 100.0}};
    info.precision = precision_;
    info.schedule = {{"steps_per_epoch", static_cast<double>(steps_per_epoch_)},
                     {"total_steps", static_cast<double>(s.schedule_epochs * steps_per_epoch_)},
                     {"warmup_steps", static_cast<double>(schedule_.warmup_steps)},
                     {"remain_steps", static_cast<double>(schedule_.remain_steps)},
                     {"decay_interval", static_cast<double>(schedule_.decay_interval)},
                     {"decay_steps", static_cast<double>(schedule_.decay_steps)},
                     {"decay_factor", schedule_.decay_factor},
                     {"base_learning_rate", schedule_.base}};
    return info;
  }

  std::map<std::string, double> baselines() override {
    // Copying the (detokenised) source as the translation.
    std::vector<std::string> copies;
    for (const wmt::TokenIds& ids : test_.ids()) copies.push_back(detokenize(ids));
    return {{"copy-source baseline", wmt::sacrebleu_corpus_bleu(copies, test_.references(), bleu_options()) / 100.0}};
  }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    TranslationEpoch e = epoch_plan(epoch, batcher_->pairs_per_epoch());
    e.unpredicted_tokens = 1;     // BOS
    e.loss_per_sentence = true;   // the reference's loss: summed over tokens, over the batch's sentences
    return train_translation_epoch(e, *world_, *batcher_, *trainer_, [&](int64_t step) { return schedule_.at(step); },
                                   step_, progress);
  }

  Quality evaluate(int64_t /*epoch*/) override {
    const wmt::BleuStatistics statistics = test_statistics(
        beam_options(), gnmt_decoders(trainer_->model(), device_),
        [&](const wmt::TokenIds& output, const std::string& reference) {
          return wmt::sacrebleu_statistics(detokenize(output), reference, bleu_options());
        });
    return bleu_quality(wmt::sacrebleu_bleu(statistics));
  }

  // No loader bench: the batches are read into memory at init.
  std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) override;

 private:
  static wmt::SacreBleuOptions bleu_options() {
    wmt::SacreBleuOptions options;
    options.tokenizer = wmt::SacreBleuTokenizer::kIntl;
    options.lowercase = true;
    return options;
  }

  BeamSearchOptions beam_options() const {
    BeamSearchOptions options;
    options.beam_size = settings_.beam_size;
    options.length_penalty_alpha = settings_.length_penalty_alpha;
    options.coverage_penalty_beta = settings_.coverage_penalty_beta;
    options.eos_id = wmt::kGnmtEosId;
    options.max_length = settings_.max_decode_length;
    return options;
  }

  // Ids -> the text the reference scores: BPE joined, then Moses-detokenised.
  std::string detokenize(const wmt::TokenIds& ids) const { return wmt::moses_detokenize(vocabulary_->decode(ids)); }

  void load_data() {
    if (!fs::is_directory(folder_)) throw UserError("data folder " + folder_.string() + " does not exist");
    vocabulary_ = std::make_unique<wmt::GnmtVocabulary>(
        wmt::GnmtVocabulary::load(folder_ / layout::kVocabulary, settings_.vocabulary_pad_multiple));
    train_pairs_ = read_bpe_pairs(*vocabulary_, folder_ / layout::kTrainSource, folder_ / layout::kTrainTarget);
    test_ = TranslationTestSet(wmt::read_parallel_text(folder_ / layout::kTestSource, folder_ / layout::kTestReference),
                               settings_.eval_sentences, [&](const std::string& line) { return vocabulary_->encode(line); });
  }

  void log_hyperparameters(MLLogger& log) const {
    const GnmtSettings& s = settings_;
    s.log_adam(log, s.learning_rate);
    // The exponential warm-up and the step decay are the rules' "alt" functions.
    log.event(keys::kOptLearningRateAltDecayFunc, true);
    log.event(keys::kOptLearningRateAltWarmupFunc, true);
    log.event(keys::kOptLearningRateWarmupSteps, schedule_.warmup_steps);
    log.event(keys::kOptLearningRateRemainSteps, schedule_.remain_steps);
    log.event(keys::kOptLearningRateDecayInterval, schedule_.decay_interval);
    log.event(keys::kOptLearningRateDecayFactor, schedule_.decay_factor);
    log.event(keys::kOptLearningRateDecaySteps, schedule_.decay_steps);
    log.event(keys::kMaxSequenceLength, s.max_length, {{keys::kMetaMethod, wmt::length_policy_name(s.length_policy)}});
    s.log_label_smoothing(log);
    log.event(keys::kGradientClipNorm, s.gradient_clip_norm);
    log.event(keys::kBeamSize, s.beam_size);
    log.event(keys::kLengthPenaltyAlpha, s.length_penalty_alpha);
    log.event(keys::kCoveragePenaltyBeta, s.coverage_penalty_beta);
    log.event(keys::kEvalTarget, s.target_bleu / 100.0);
  }

  std::unique_ptr<wmt::GnmtVocabulary> vocabulary_;
  std::unique_ptr<wmt::SentenceBatcher> batcher_;
  int64_t global_batch_size_ = 0;
  StepSchedule schedule_;
};

// Training: the training step on random sentence pairs of bench_sentence_length tokens, batch =
// pairs per rank, cut into the configured gradient shards as training cuts a batch. Inference: beam
// search over batch random sentences, decoding exactly bench_sentence_length steps.
std::unique_ptr<BenchStep> GnmtWorkload::model_bench_step(const BenchSpec& spec, const World& world) {
  const GnmtSettings& s = settings_;
  const bool inference = spec.mode == BenchMode::kInference;
  const torch::Device device = spec.device;
  const Precision precision = parse_precision(spec.precision, "bench precision");
  const int64_t rows = spec.batch_size, length = s.bench_sentence_length;
  if (rows < 1) throw UserError("bench batch must be >= 1 sentence");
  // The data's vocabulary is not read for a bench: about the synthetic one's size, else MLPerf's.
  const int64_t vocabulary =
      s.data_source == TranslationDataSettings::Source::kSynthetic ? s.synthetic_bpe_merges + 100 : kReferenceVocabularySize;
  const int64_t shards = shards_per_rank(s.gradient_shards, world.size(), "gradient_shards");
  torch::manual_seed(0);
  auto trainer = std::make_shared<GnmtTrainer>(s.trainer_options(vocabulary, device, precision), world);
  trainer->step().set_learning_rate(s.learning_rate);
  // Random ids of the real vocabulary (no specials), BOS first and EOS last, on the CPU.
  const auto sentences = [&] {
    torch::Tensor ids = torch::randint(4, vocabulary, {rows, length}, torch::kLong);
    ids.select(1, 0).fill_(wmt::kGnmtBosId);
    ids.select(1, length - 1).fill_(wmt::kGnmtEosId);
    return ids;
  };
  const torch::Tensor source = sentences(), target = sentences();
  const torch::Tensor device_source = source.to(device), source_lengths = lengths_of(source);
  BeamSearchOptions beam = beam_options();
  beam.eos_id = -1;  // never finishes early: every step decodes the same work
  beam.max_length = length;
  // Training counts target tokens predicted per step (BOS excluded), as the reference's tok/s.
  DeviceBenchStep::Spec bench{device, precision, inference ? rows : rows * (length - 1), inference ? "sentences" : "tokens"};
  if (!inference) {
    const TranslationBatch batch = fixed_translation_batch(source, target, shards, rows * world.size());
    return make_train_bench_step<TranslationBatch>(bench, trainer, [batch] { return batch; });
  }
  return std::make_unique<DeviceBenchStep>(bench, [=] {
    Gnmt& model = trainer->model();
    model->eval();
    torch::NoGradGuard no_grad;
    AutocastScope autocast(precision, device);
    GnmtDecoder decoder(model, device_source, source_lengths, beam.beam_size);
    beam_search(decoder, rows, beam);
  });
}

}  // namespace

MLH_REGISTER_WORKLOAD("gnmt", "GNMT v2 English-German translation, uncased sacreBLEU (MLPerf)", GnmtWorkload);

}  // namespace mlh::gnmt
