// NCF's bench step is its training step: from the same weights on the same batch, one bench step
// and one training step give the same update and the same loss, bitwise.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "tests/workloads/trainer_outcome.h"
#include "workloads/ncf/ncf_trainer.h"

namespace mlh::ncf {
namespace {

// A small NeuMF with the mini config's Adam, the same weights on every call.
std::shared_ptr<NcfTrainer> small_trainer(const World& world) {
  torch::manual_seed(11);
  return std::make_shared<NcfTrainer>(NeuMF(NeuMFOptions(60, 40).mf_dim(8).mlp_layer_sizes({32, 16, 8})),
                                      AdamOptions{5e-3, 0.9, 0.999, 1e-8}, world);
}

NcfShard random_shard(int64_t samples) {
  return {torch::randint(60, {samples}, torch::kLong), torch::randint(40, {samples}, torch::kLong),
          torch::randint(2, {samples}, torch::kFloat)};
}

// A single-rank global batch of 12 samples in 2 gradient shards, as NcfWorkload::train_epoch cuts it.
NcfBatch two_shard_batch() {
  torch::manual_seed(3);
  return NcfBatch{{random_shard(7), random_shard(5)}, 12};
}

TEST(NcfTrainer, OneBenchStepAndOneTrainingStepGiveTheSameUpdate) {
  const World world = World::single_process();
  const NcfBatch batch = two_shard_batch();

  std::shared_ptr<NcfTrainer> trained = small_trainer(world);
  const TrainerOutcome start = trainer_outcome(*trained);
  trained->model()->train();
  trained->train_on(batch);  // as NcfWorkload::train_epoch calls it
  const TrainerOutcome after_training = trainer_outcome(*trained);

  std::shared_ptr<NcfTrainer> benched = small_trainer(world);
  make_train_bench_step<NcfBatch>(DeviceBenchStep::Spec{torch::kCPU, Precision::kFp32, 12}, benched,
                                  [&] { return batch; })
      ->run();
  const TrainerOutcome after_bench = trainer_outcome(*benched);

  EXPECT_TRUE(every_parameter_moved(start, after_training));
  EXPECT_TRUE(same_outcome(after_bench, after_training));
}

// The comparison above sees a batch cut or counted otherwise.
TEST(NcfTrainer, AnotherCutOrCountGivesAnotherStep) {
  const World world = World::single_process();
  const NcfBatch batch = two_shard_batch();
  const NcfBatch one_shard{{{torch::cat({batch.shards[0].user, batch.shards[1].user}),
                             torch::cat({batch.shards[0].item, batch.shards[1].item}),
                             torch::cat({batch.shards[0].label, batch.shards[1].label})}},
                           batch.global_count};
  NcfBatch miscounted = batch;
  miscounted.global_count += 1;

  std::shared_ptr<NcfTrainer> reference = small_trainer(world);
  reference->train_on(batch);
  const TrainerOutcome expected = trainer_outcome(*reference);
  for (const NcfBatch& other : {one_shard, miscounted}) {
    std::shared_ptr<NcfTrainer> trainer = small_trainer(world);
    trainer->train_on(other);
    EXPECT_FALSE(same_outcome(trainer_outcome(*trainer), expected))
        << other.shards.size() << " shards, " << other.global_count;
  }
}

}  // namespace
}  // namespace mlh::ncf
