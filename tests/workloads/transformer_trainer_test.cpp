// TransformerTrainer (workloads/transformer/transformer_trainer.h): `mlharness bench`'s training step
// is the one training takes.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "datasets/wmt/subword_codec.h"
#include "harness/bench.h"
#include "harness/world.h"
#include "workloads/common/translation_steps.h"
#include "tests/workloads/trainer_outcome.h"
#include "workloads/transformer/transformer_trainer.h"

namespace mlh::transformer {
namespace {

constexpr int64_t kVocabulary = 50;
constexpr uint64_t kRunSeed = 11;

TransformerTrainerOptions tiny_trainer_options() {
  return TransformerTrainerOptions(
             TransformerOptions(kVocabulary).layers(1).model_size(32).feed_forward_size(64).heads(4))
      .adam(AdamOptions{0.0, 0.9, 0.997, 1e-9});
}

// Rows of `width` random ids: row i holds width - i % 3 tokens, the last EOS, then padding.
torch::Tensor padded_sentences(int64_t rows, int64_t width) {
  torch::Tensor ids = torch::randint(2, kVocabulary, {rows, width}, torch::kLong);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t length = width - i % 3;
    ids[i][length - 1] = wmt::kEosId;
    ids[i].narrow(0, length, width - length).fill_(wmt::kPadId);
  }
  return ids;
}

// One global batch of six short pairs in two gradient shards, divided by its target tokens, each
// shard's dropout seeded as train_translation_epoch seeds step 0's.
TranslationBatch two_shard_batch() {
  torch::manual_seed(3);
  const torch::Tensor source = padded_sentences(6, 7), target = padded_sentences(6, 5);
  TranslationBatch batch = fixed_translation_batch(source, target, 2, target.ne(wmt::kPadId).sum().item<int64_t>());
  batch.shard = [ids = batch.shard](int64_t k) {
    torch::manual_seed(shard_seed(kRunSeed, /*step=*/0, k));
    return ids(k);
  };
  return batch;
}

TEST(TransformerTrainer, BenchStepAndTrainingStepFromTheSameWeightsGiveTheSameUpdate) {
  const World world = World::single_process();
  const double learning_rate = 1e-3;
  torch::manual_seed(5);
  TransformerTrainer training(tiny_trainer_options(), world);
  torch::manual_seed(5);
  auto benched = std::make_shared<TransformerTrainer>(tiny_trainer_options(), world);
  const TrainerOutcome start = trainer_outcome(training);
  ASSERT_TRUE(same_outcome(trainer_outcome(*benched), start));
  const TranslationBatch batch = two_shard_batch();

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
}  // namespace mlh::transformer
