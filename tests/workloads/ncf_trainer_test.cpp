// NCF's bench step is its training step: from the same weights on the same batch, one bench step
// and one training step give the same update and the same loss, bitwise.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

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

// What the steps so far left: the parameters, then the summed loss the step keeps for the epoch
// (taken, so once per trainer).
std::vector<torch::Tensor> outcome(NcfTrainer& trainer) {
  std::vector<torch::Tensor> tensors;
  for (const torch::Tensor& p : trainer.model()->parameters()) tensors.push_back(p.detach().clone());
  tensors.push_back(torch::tensor(trainer.step().take_loss_sum(), torch::kDouble));
  return tensors;
}

bool all_equal(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b[i])) return false;
  return true;
}

TEST(NcfTrainer, OneBenchStepAndOneTrainingStepGiveTheSameUpdate) {
  const World world = World::single_process();
  const NcfBatch batch = two_shard_batch();

  std::shared_ptr<NcfTrainer> trained = small_trainer(world);
  const std::vector<torch::Tensor> start = outcome(*trained);
  trained->model()->train();
  trained->train_on(batch);  // as NcfWorkload::train_epoch calls it
  const std::vector<torch::Tensor> after_training = outcome(*trained);

  std::shared_ptr<NcfTrainer> benched = small_trainer(world);
  make_ncf_train_bench_step(DeviceBenchStep::Spec{torch::kCPU, Precision::kFp32, 12}, benched, [&] { return batch; })
      ->run();
  const std::vector<torch::Tensor> after_bench = outcome(*benched);

  ASSERT_EQ(after_training.size(), start.size());
  ASSERT_EQ(after_bench.size(), start.size());
  for (size_t i = 0; i < start.size(); ++i) {
    const std::string what = i + 1 < start.size() ? "parameter " + std::to_string(i) : "the loss";
    EXPECT_FALSE(torch::equal(after_training[i], start[i])) << what << " did not move";
    EXPECT_TRUE(torch::equal(after_bench[i], after_training[i])) << what;
  }
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
  const std::vector<torch::Tensor> expected = outcome(*reference);
  for (const NcfBatch& other : {one_shard, miscounted}) {
    std::shared_ptr<NcfTrainer> trainer = small_trainer(world);
    trainer->train_on(other);
    EXPECT_FALSE(all_equal(outcome(*trainer), expected)) << other.shards.size() << " shards, " << other.global_count;
  }
}

}  // namespace
}  // namespace mlh::ncf
