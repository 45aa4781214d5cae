// Checkpoints: the state file's round trip and its refusals, the folder protocol (newest whole one,
// damaged ones refused, the last K kept), optimizers and random streams restored exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/checkpoint.h"
#include "harness/fused_adam.h"
#include "harness/lars.h"
#include "harness/optimizer.h"
#include "harness/training_state.h"
#include "tests/user_error_of.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TrainingState sample_state() {
  TrainingState state;
  state.put("model/weight", torch::arange(12, torch::kFloat).reshape({3, 4}));
  state.put("model/half", torch::ones({5}, torch::kHalf));
  state.put("model/empty", torch::empty({0, 7}));
  state.put("flags", torch::tensor({true, false, true}));
  state.put_int("schedule/step", 1234567890123);
  state.put_double("loss_scaler/scale", 0.125);
  return state;
}

fs::path fresh_folder(const std::string& name) {
  const fs::path folder = fs::path(::testing::TempDir()) / ("checkpoint_test_" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

TEST(TrainingState, RoundTripsEveryEntryExactlyAndWritesTheSameBytesTwice) {
  const TrainingState state = sample_state();
  const std::string bytes = state.to_bytes();
  EXPECT_EQ(bytes, sample_state().to_bytes());
  const TrainingState back = TrainingState::from_bytes(bytes, "memory");
  ASSERT_EQ(back.tensors().size(), state.tensors().size());
  for (const auto& [name, value] : state.tensors()) {
    EXPECT_EQ(back.get(name).scalar_type(), value.scalar_type()) << name;
    EXPECT_TRUE(torch::equal(back.get(name), value)) << name;
  }
  EXPECT_EQ(back.get_int("schedule/step"), 1234567890123);
  EXPECT_EQ(back.get_double("loss_scaler/scale"), 0.125);
}

TEST(TrainingState, RefusesCutAlteredOrForeignBytes) {
  const std::string bytes = sample_state().to_bytes();
  EXPECT_THAT(user_error_of([&] { TrainingState::from_bytes(bytes.substr(0, bytes.size() / 2), "half.state"); }),
              HasSubstr("half.state is cut short"));
  std::string altered = bytes;
  altered[40] ^= 0x10;
  EXPECT_THAT(user_error_of([&] { TrainingState::from_bytes(altered, "altered.state"); }), HasSubstr("CRC-32"));
  EXPECT_THAT(user_error_of([&] { TrainingState::from_bytes("{\"not\": \"a state\"}", "x.json"); }),
              HasSubstr("not a state file"));
  EXPECT_THAT(user_error_of([&] { TrainingState::from_bytes("", "empty.state"); }), HasSubstr("not a state file"));
}

TEST(TrainingState, RefusesAnEntryOfAnotherShapeOrAMissingOne) {
  const TrainingState state = sample_state();
  torch::Tensor wrong = torch::zeros({4, 3});
  EXPECT_THAT(user_error_of([&] { state.copy_into("model/weight", wrong); }), HasSubstr("another model size"));
  EXPECT_THAT(user_error_of([&] { state.get("model/bias"); }), HasSubstr("no 'model/bias'"));
  torch::nn::Linear linear(4, 3);  // its weight is [3, 4] as saved; its bias was never saved
  EXPECT_THAT(user_error_of([&] { state.load_module("model", *linear); }), HasSubstr("no 'model/bias'"));
  torch::nn::Linear wider(5, 3);
  EXPECT_THAT(user_error_of([&] { state.load_module("model", *wider); }), HasSubstr("another model size"));
  TrainingState saved;
  saved.put_module("model", *linear);
  torch::nn::Linear other(4, 3);
  saved.load_module("model", *other);
  EXPECT_TRUE(torch::equal(other->weight, linear->weight));
  EXPECT_TRUE(torch::equal(other->bias, linear->bias));
}

CheckpointManifest manifest_of(int64_t epoch) {
  CheckpointManifest manifest;
  manifest.epoch = epoch;
  manifest.workload = "ncf";
  manifest.seed = 7;
  manifest.effective_config = {{"max_epochs", 9}};
  manifest.log_file = "result_0.txt";
  manifest.record_json = "{}";
  return manifest;
}

TEST(Checkpoint, KeepsTheNewestKAndFindsTheNewest) {
  const World world = World::single_process();
  const fs::path folder = fresh_folder("keep") / "result_0.checkpoints";
  for (int64_t epoch = 1; epoch <= 4; ++epoch) {
    TrainingState state = sample_state();
    state.put_int("engine/epoch", epoch);
    EXPECT_EQ(write_checkpoint(world, folder.string(), manifest_of(epoch), state, 2),
              (folder / checkpoint_name(epoch)).string());
  }
  EXPECT_FALSE(fs::exists(folder / "epoch_0002"));
  EXPECT_TRUE(fs::exists(folder / "epoch_0003"));
  const FoundCheckpoint found = find_checkpoint(folder.string());
  EXPECT_EQ(found.path, (folder / "epoch_0004").string());
  EXPECT_EQ(found.manifest.epoch, 4);
  EXPECT_EQ(found.manifest.seed, 7u);
  EXPECT_EQ(found.manifest.effective_config, nlohmann::json({{"max_epochs", 9}}));
  EXPECT_TRUE(found.refused.empty());
  EXPECT_EQ(read_rank_state(found.path, 0).get_int("engine/epoch"), 4);
}

TEST(Checkpoint, RefusesADamagedOrUnfinishedOneAndTakesThePreviousOne) {
  const World world = World::single_process();
  const fs::path folder = fresh_folder("damaged") / "result_0.checkpoints";
  for (int64_t epoch = 1; epoch <= 3; ++epoch) write_checkpoint(world, folder.string(), manifest_of(epoch), sample_state(), 5);
  // Epoch 3's rank file cut short (a crash mid-write on a file system without the rename's guarantee).
  const fs::path rank_file = folder / "epoch_0003" / "rank_0.state";
  fs::resize_file(rank_file, fs::file_size(rank_file) / 2);
  // Epoch 4 never finished: only its .partial folder exists.
  fs::create_directories(folder / "epoch_0004.partial");
  std::ofstream(folder / "epoch_0004.partial" / "rank_0.state") << "half";
  FoundCheckpoint found = find_checkpoint(folder.string());
  EXPECT_EQ(found.path, (folder / "epoch_0002").string());
  ASSERT_EQ(found.refused.size(), 1u);
  EXPECT_THAT(found.refused[0], HasSubstr("epoch_0003: rank_0.state has"));
  EXPECT_THAT(found.refused[0], HasSubstr("cut short"));

  // Epoch 2's manifest damaged too: epoch 1 it is.
  std::ofstream(folder / "epoch_0002" / "manifest.json") << "{\"format\": \"mlharness checkpoint 1\", \"epoch\": ";
  found = find_checkpoint(folder.string());
  EXPECT_EQ(found.path, (folder / "epoch_0001").string());
  EXPECT_EQ(found.refused.size(), 2u);

  // Named directly, a damaged checkpoint is an error that says why.
  EXPECT_THAT(user_error_of([&] { find_checkpoint((folder / "epoch_0003").string()); }),
              HasSubstr("no usable checkpoint"));
  EXPECT_THAT(user_error_of([&] { find_checkpoint((folder / "epoch_0003").string() + "/"); }), HasSubstr("cut short"));
  EXPECT_EQ(find_checkpoint((folder / "epoch_0001").string() + "/").manifest.epoch, 1);
  EXPECT_THAT(user_error_of([&] { find_checkpoint((folder / "nowhere").string()); }), HasSubstr("no such folder"));
  fs::create_directories(folder.parent_path() / "empty");
  EXPECT_THAT(user_error_of([&] { find_checkpoint((folder.parent_path() / "empty").string()); }),
              HasSubstr("no checkpoint in it"));
}

// Two steps, a checkpoint, two more steps: an optimizer rebuilt from the checkpoint takes the same
// two steps to the same bits.
template <class MakeOptimizer>
void expect_resumes_exactly(MakeOptimizer make) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> weights = {torch::randn({8, 5}).requires_grad_(), torch::randn({5}).requires_grad_()};
  auto gradient_step = [](std::vector<torch::Tensor>& w, Optimizer& optimizer, int k) {
    for (size_t i = 0; i < w.size(); ++i) w[i].mutable_grad() = torch::full_like(w[i], 0.1 * (k + 1) + 0.01 * i);
    optimizer.step();
  };
  auto optimizer = make(weights);
  gradient_step(weights, *optimizer, 0);
  gradient_step(weights, *optimizer, 1);
  TrainingState state;
  optimizer->save_state(state, "optimizer");
  state = TrainingState::from_bytes(state.to_bytes(), "memory");
  std::vector<torch::Tensor> copies;
  for (const auto& w : weights) copies.push_back(w.detach().clone().requires_grad_());
  auto restored = make(copies);
  restored->load_state(state, "optimizer");
  for (int k = 2; k < 4; ++k) {
    gradient_step(weights, *optimizer, k);
    gradient_step(copies, *restored, k);
  }
  for (size_t i = 0; i < weights.size(); ++i) EXPECT_TRUE(torch::equal(weights[i], copies[i])) << i;
}

TEST(OptimizerState, SgdWithMomentumResumesExactly) {
  expect_resumes_exactly([](const std::vector<torch::Tensor>& w) {
    return make_sgd({{w, 1e-4}}, {0.1, 0.9, true});
  });
}

TEST(OptimizerState, LarsResumesExactly) {
  expect_resumes_exactly([](const std::vector<torch::Tensor>& w) {
    ParameterGroup group{w, 1e-4};
    group.lars_adapted = true;
    LarsOptions options;
    options.learning_rate = 0.5;
    return make_lars({group}, options);
  });
}

TEST(OptimizerState, AdamResumesExactlyWithItsStepCount) {
  expect_resumes_exactly([](const std::vector<torch::Tensor>& w) { return make_adam({{w}}, AdamOptions{0.01}); });
}

TEST(OptimizerState, SgdMatchesLibTorchsSgdStepForStep) {
  torch::manual_seed(4);
  torch::Tensor ours = torch::randn({6, 3}).requires_grad_();
  torch::Tensor theirs = ours.detach().clone().requires_grad_();
  auto sgd = make_sgd({{{ours}, 5e-4}}, {0.2, 0.9, false});
  torch::optim::SGD reference({theirs}, torch::optim::SGDOptions(0.2).momentum(0.9).weight_decay(5e-4));
  for (int k = 0; k < 4; ++k) {
    const torch::Tensor g = torch::randn({6, 3});
    ours.mutable_grad() = g.clone();
    theirs.mutable_grad() = g.clone();
    sgd->step();
    reference.step();
  }
  EXPECT_TRUE(torch::equal(ours, theirs));
}

TEST(RandomStreams, ComeBackWhereTheyWereSaved) {
  torch::manual_seed(11);
  torch::rand({3});
  TrainingState state;
  save_random_streams(state, torch::kCPU);
  const torch::Tensor first = torch::rand({5});
  torch::rand({100});
  restore_random_streams(TrainingState::from_bytes(state.to_bytes(), "memory"), torch::kCPU);
  EXPECT_TRUE(torch::equal(torch::rand({5}), first));
}

}  // namespace
}  // namespace mlh
