// ResNet's bench step is its training step: from the same weights on the same batch, one bench step
// and one training step give the same update (parameters and batch norm statistics) and the same
// loss, bitwise.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

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

// What the steps so far left: the parameters, the buffers (batch norm's running statistics and
// step counts), then the summed loss the step keeps for the epoch (taken, so once per trainer).
std::vector<torch::Tensor> outcome(ResNetTrainer& trainer) {
  std::vector<torch::Tensor> tensors;
  for (const torch::Tensor& p : trainer.model()->parameters()) tensors.push_back(p.detach().clone());
  for (const torch::Tensor& b : trainer.model()->buffers()) tensors.push_back(b.clone());
  tensors.push_back(torch::tensor(trainer.step().take_loss_sum(), torch::kDouble));
  return tensors;
}

bool all_equal(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b[i])) return false;
  return true;
}

TEST(ResNetTrainer, OneBenchStepAndOneTrainingStepGiveTheSameUpdate) {
  const World world = World::single_process();
  const ResNetBatch batch = two_shard_batch();

  std::shared_ptr<ResNetTrainer> trained = mini_trainer(world);
  const std::vector<torch::Tensor> start = outcome(*trained);
  trained->model()->train();
  trained->train_on(batch);  // as ResNetWorkload::train_epoch calls it
  const std::vector<torch::Tensor> after_training = outcome(*trained);

  std::shared_ptr<ResNetTrainer> benched = mini_trainer(world);
  make_resnet_train_bench_step(DeviceBenchStep::Spec{torch::kCPU, Precision::kFp32, 8, "images", "nchw"}, benched,
                               [&] { return batch; })
      ->run();
  const std::vector<torch::Tensor> after_bench = outcome(*benched);

  const size_t parameters = trained->model()->parameters().size();
  ASSERT_EQ(after_training.size(), start.size());
  ASSERT_EQ(after_bench.size(), start.size());
  for (size_t i = 0; i < start.size(); ++i) {
    const std::string what = i + 1 == start.size() ? "the loss"
                             : i < parameters      ? "parameter " + std::to_string(i)
                                                   : "buffer " + std::to_string(i - parameters);
    EXPECT_FALSE(torch::equal(after_training[i], start[i])) << what << " did not move";
    EXPECT_TRUE(torch::equal(after_bench[i], after_training[i])) << what;
  }
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
  const std::vector<torch::Tensor> expected = outcome(*reference);
  for (const ResNetBatch& other : {one_shard, miscounted}) {
    std::shared_ptr<ResNetTrainer> trainer = mini_trainer(world);
    trainer->train_on(other);
    EXPECT_FALSE(all_equal(outcome(*trainer), expected)) << other.shards.size() << " shards, " << other.global_count;
  }
}

}  // namespace
}  // namespace mlh::resnet
