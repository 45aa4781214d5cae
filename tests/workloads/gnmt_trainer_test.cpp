// GnmtTrainer (workloads/gnmt/gnmt_trainer.h): `mlharness bench`'s training step is the one training
// takes.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "datasets/wmt/gnmt_vocabulary.h"
#include "harness/bench.h"
#include "harness/world.h"
#include "workloads/common/translation_steps.h"
#include "tests/workloads/trainer_outcome.h"
#include "workloads/gnmt/gnmt_trainer.h"

namespace mlh::gnmt {
namespace {

constexpr int64_t kVocabulary = 50;
constexpr uint64_t kRunSeed = 11;

GnmtTrainerOptions tiny_trainer_options() {
  return GnmtTrainerOptions(GnmtOptions(kVocabulary).hidden_size(32).encoder_layers(2).decoder_layers(2))
      .step(TrainStepOptions{Precision::kFp32, torch::kCPU, /*gradient_clip_norm=*/5.0});
}

// Rows of `width` ids: row i holds width - i % 3 tokens, BOS, random ids, EOS, then padding.
torch::Tensor padded_sentences(int64_t rows, int64_t width) {
  torch::Tensor ids = torch::randint(4, kVocabulary, {rows, width}, torch::kLong);
  ids.select(1, 0).fill_(wmt::kGnmtBosId);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t length = width - i % 3;
    ids[i][length - 1] = wmt::kGnmtEosId;
    ids[i].narrow(0, length, width - length).fill_(wmt::kGnmtPadId);
  }
  return ids;
}

// One global batch of six short pairs in two gradient shards, divided by its pairs (the reference's
// loss), each shard's dropout seeded as train_translation_epoch seeds step 0's.
TranslationBatch two_shard_batch() {
  torch::manual_seed(3);
  const torch::Tensor source = padded_sentences(6, 7), target = padded_sentences(6, 6);
  TranslationBatch batch = fixed_translation_batch(source, target, 2, source.size(0));
  batch.shard = [ids = batch.shard](int64_t k) {
    torch::manual_seed(shard_seed(kRunSeed, /*step=*/0, k));
    return ids(k);
  };
  return batch;
}

TEST(GnmtTrainer, BenchStepAndTrainingStepFromTheSameWeightsGiveTheSameUpdate) {
  const World world = World::single_process();
  const double learning_rate = 1e-3;
  torch::manual_seed(5);
  GnmtTrainer training(tiny_trainer_options(), world);
  torch::manual_seed(5);
  auto benched = std::make_shared<GnmtTrainer>(tiny_trainer_options(), world);
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
}  // namespace mlh::gnmt
