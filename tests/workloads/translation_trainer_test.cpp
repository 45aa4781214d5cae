// The translation trainers (workloads/transformer/transformer_trainer.h, workloads/gnmt/gnmt_trainer.h):
// `mlharness bench`'s training step is the one training takes. One typed test; each workload gives
// a tiny trainer and a batch in its own id conventions and loss divisor.
#include <gtest/gtest.h>

#include <memory>

#include <torch/torch.h>

#include "datasets/wmt/gnmt_vocabulary.h"
#include "datasets/wmt/subword_codec.h"
#include "harness/bench.h"
#include "harness/world.h"
#include "tests/workloads/trainer_outcome.h"
#include "workloads/common/translation_steps.h"
#include "workloads/gnmt/gnmt_trainer.h"
#include "workloads/transformer/transformer_trainer.h"

namespace mlh {
namespace {

constexpr int64_t kVocabulary = 50;
constexpr uint64_t kRunSeed = 11;

// Rows of `width` random ids in [lowest_id, kVocabulary): row i holds width - i % 3 tokens, the
// last `eos`, then `pad`.
torch::Tensor padded_sentences(int64_t rows, int64_t width, int64_t lowest_id, int64_t eos, int64_t pad) {
  torch::Tensor ids = torch::randint(lowest_id, kVocabulary, {rows, width}, torch::kLong);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t length = width - i % 3;
    ids[i][length - 1] = eos;
    ids[i].narrow(0, length, width - length).fill_(pad);
  }
  return ids;
}

// Each shard's dropout seeded as train_translation_epoch seeds step 0's.
TranslationBatch seeded_as_training(TranslationBatch batch) {
  batch.shard = [ids = batch.shard](int64_t k) {
    torch::manual_seed(shard_seed(kRunSeed, /*step=*/0, k));
    return ids(k);
  };
  return batch;
}

struct TransformerCase {
  using Trainer = transformer::TransformerTrainer;
  static transformer::TransformerTrainerOptions options() {
    return transformer::TransformerTrainerOptions(
               transformer::TransformerOptions(kVocabulary).layers(1).model_size(32).feed_forward_size(64).heads(4))
        .adam(AdamOptions{0.0, 0.9, 0.997, 1e-9});
  }
  // Six short pairs in two gradient shards, divided by the target tokens.
  static TranslationBatch two_shard_batch() {
    torch::manual_seed(3);
    const torch::Tensor source = padded_sentences(6, 7, 2, wmt::kEosId, wmt::kPadId);
    const torch::Tensor target = padded_sentences(6, 5, 2, wmt::kEosId, wmt::kPadId);
    return seeded_as_training(
        fixed_translation_batch(source, target, 2, target.ne(wmt::kPadId).sum().item<int64_t>()));
  }
};

struct GnmtCase {
  using Trainer = gnmt::GnmtTrainer;
  static gnmt::GnmtTrainerOptions options() {
    return gnmt::GnmtTrainerOptions(gnmt::GnmtOptions(kVocabulary).hidden_size(32).encoder_layers(2).decoder_layers(2))
        .step(TrainStepOptions{Precision::kFp32, torch::kCPU, /*gradient_clip_norm=*/5.0});
  }
  // Six short pairs (BOS ... EOS) in two gradient shards, divided by the pairs (the reference's loss).
  static TranslationBatch two_shard_batch() {
    torch::manual_seed(3);
    torch::Tensor source = padded_sentences(6, 7, 4, wmt::kGnmtEosId, wmt::kGnmtPadId);
    torch::Tensor target = padded_sentences(6, 6, 4, wmt::kGnmtEosId, wmt::kGnmtPadId);
    source.select(1, 0).fill_(wmt::kGnmtBosId);
    target.select(1, 0).fill_(wmt::kGnmtBosId);
    return seeded_as_training(fixed_translation_batch(source, target, 2, source.size(0)));
  }
};

template <class Case>
class TranslationTrainer : public ::testing::Test {};
using TranslationCases = ::testing::Types<TransformerCase, GnmtCase>;
TYPED_TEST_SUITE(TranslationTrainer, TranslationCases);

TYPED_TEST(TranslationTrainer, BenchStepAndTrainingStepFromTheSameWeightsGiveTheSameUpdate) {
  using Trainer = typename TypeParam::Trainer;
  const World world = World::single_process();
  const double learning_rate = 1e-3;
  torch::manual_seed(5);
  Trainer training(TypeParam::options(), world);
  torch::manual_seed(5);
  auto benched = std::make_shared<Trainer>(TypeParam::options(), world);
  const TrainerOutcome start = trainer_outcome(training);
  ASSERT_TRUE(same_outcome(trainer_outcome(*benched), start));
  const TranslationBatch batch = TypeParam::two_shard_batch();

  // As train_translation_epoch trains a batch.
  training.model()->train();
  training.step().set_learning_rate(learning_rate);
  training.train_on(batch);

  // As `mlharness bench` does; the step itself puts the model in training mode (dropout on).
  benched->model()->eval();
  benched->step().set_learning_rate(learning_rate);
  const std::unique_ptr<BenchStep> bench_step =
      make_train_bench_step<TranslationBatch>(DeviceBenchStep::Spec{}, benched, [batch] { return batch; });
  bench_step->run();

  const TrainerOutcome trained = trainer_outcome(training);
  EXPECT_TRUE(every_parameter_moved(start, trained));
  EXPECT_TRUE(same_outcome(trainer_outcome(*benched), trained));
}

}  // namespace
}  // namespace mlh
