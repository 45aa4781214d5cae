// ResNet's bench step is its training step: from the same weights on the same batch, one bench step
// and one training step give the same update (parameters and batch norm statistics) and the same
// loss, bitwise.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "tests/workloads/trainer_outcome.h"
#include "workloads/resnet/resnet_trainer.h"

namespace mlh::resnet {
namespace {

// The mini config's ResNet-50 (configs/resnet50-mini.yaml: 1/8 width, small-input stem, 10 classes,
// SGD with momentum and weight decay, label smoothing 0.1), the same weights on every call.
std::shared_ptr<ResNetTrainer> mini_trainer(const World& world) {
  torch::manual_seed(11);
  common::ResNet model(common::ResNetOptions(50).width(0.125).in_channels(1).small_input(true).num_classes(10));
  std::unique_ptr<Optimizer> sgd = make_sgd(parameter_groups(model, 5e-5), SgdOptions{0.1, 0.9});
  return std::make_shared<ResNetTrainer>(model, std::move(sgd), 0.1, world, TrainStepOptions{});
}

ImageShard random_shard(int64_t images) {
  return {torch::randn({images, 1, 16, 16}), torch::randint(10, {images}, torch::kLong)};
}

// A single-rank global batch of 8 images in 2 gradient shards, as ResNetWorkload::train_epoch cuts it.
ResNetBatch two_shard_batch() {
  torch::manual_seed(3);
  return ResNetBatch{{random_shard(4), random_shard(4)}, 8};
}

TEST(ResNetTrainer, OneBenchStepAndOneTrainingStepGiveTheSameUpdate) {
  const World world = World::single_process();
  const ResNetBatch batch = two_shard_batch();

  std::shared_ptr<ResNetTrainer> trained = mini_trainer(world);
  const TrainerOutcome start = trainer_outcome(*trained);
  trained->model()->train();
  trained->train_on(batch);  // as ResNetWorkload::train_epoch calls it
  const TrainerOutcome after_training = trainer_outcome(*trained);

  std::shared_ptr<ResNetTrainer> benched = mini_trainer(world);
  make_train_bench_step<ResNetBatch>(DeviceBenchStep::Spec{torch::kCPU, Precision::kFp32, 8, "images", "nchw"},
                                     benched, [&] { return batch; })
      ->run();
  const TrainerOutcome after_bench = trainer_outcome(*benched);

  EXPECT_TRUE(every_parameter_moved(start, after_training));
  EXPECT_TRUE(same_outcome(after_bench, after_training));
}

// The comparison above sees a batch cut or counted otherwise: batch norm normalises each shard on
// its own, and the count divides the gradient.
TEST(ResNetTrainer, AnotherCutOrCountGivesAnotherStep) {
  const World world = World::single_process();
  const ResNetBatch batch = two_shard_batch();
  const ResNetBatch one_shard{{{torch::cat({batch.shards[0].images, batch.shards[1].images}),
                                torch::cat({batch.shards[0].labels, batch.shards[1].labels})}},
                              batch.global_count};
  ResNetBatch miscounted = batch;
  miscounted.global_count += 1;

  std::shared_ptr<ResNetTrainer> reference = mini_trainer(world);
  reference->train_on(batch);
  const TrainerOutcome expected = trainer_outcome(*reference);
  for (const ResNetBatch& other : {one_shard, miscounted}) {
    std::shared_ptr<ResNetTrainer> trainer = mini_trainer(world);
    trainer->train_on(other);
    EXPECT_FALSE(same_outcome(trainer_outcome(*trainer), expected))
        << other.shards.size() << " shards, " << other.global_count;
  }
}

}  // namespace
}  // namespace mlh::resnet
