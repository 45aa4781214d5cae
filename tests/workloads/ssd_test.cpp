#include "tests/test_paths.h"
#include "workloads/ssd/ssd300.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include "base/user_error.h"
#include "harness/world.h"
#include "tests/user_error_of.h"
#include "workloads/common/lr_schedules.h"
#include "workloads/ssd/ssd_trainer.h"

namespace mlh::ssd {
namespace {

namespace fs = std::filesystem;

int64_t count_parameters(torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

// spec/workloads.md §3: trunk 8.17 M + extras 3.57 M + heads 8.23 M, computed layer by layer.
TEST(Ssd300, ParameterCountIsTheSpecsComputedCount) {
  Ssd300 model(Ssd300Options{});
  EXPECT_EQ(count_parameters(*model->backbone), 8170304);
  int64_t extras = 0, heads = 0;
  for (auto& block : model->extras) extras += count_parameters(*block);
  for (auto& head : model->location_heads) heads += count_parameters(*head);
  for (auto& head : model->class_heads) heads += count_parameters(*head);
  EXPECT_EQ(extras, 3574400);
  EXPECT_EQ(heads, 8227830);
  EXPECT_EQ(count_parameters(*model), 19972534);
}

TEST(Ssd300, MapsAndOutputsAt300MatchTheDefaultBoxes) {
  Ssd300 model(Ssd300Options{});
  EXPECT_EQ(model->feature_sizes(), (std::vector<int64_t>{38, 19, 10, 5, 3, 1}));
  EXPECT_EQ(model->num_default_boxes(), 8732);
  // Layer3's first block keeps the 38x38 map: its 3x3 conv and projection have stride 1.
  auto& block = *model->backbone->stages.at(2)->ptr<common::BasicBlockImpl>(0);
  EXPECT_EQ((*block.conv1->options.stride())[0], 1);
  ASSERT_TRUE(block.downsample);
  torch::NoGradGuard no_grad;
  model->eval();
  const auto [locations, scores] = model->forward(torch::randn({2, 3, 300, 300}));
  EXPECT_EQ(locations.sizes(), (torch::IntArrayRef{2, 4, 8732}));
  EXPECT_EQ(scores.sizes(), (torch::IntArrayRef{2, 81, 8732}));
}

// The mini's shape: a 150-pixel input and four extras give maps 19, 10, 5, 3, 1.
TEST(Ssd300, ScaledInputWidthAndExtrasGoThroughTheSameCode) {
  Ssd300 model(Ssd300Options{}.image_size(150).width(0.25).num_classes(7).extra_strides({2, 2, 2, 1})
                   .boxes_per_location({4, 6, 6, 4, 4}));
  EXPECT_EQ(model->feature_sizes(), (std::vector<int64_t>{19, 10, 5, 3, 1}));
  EXPECT_EQ(model->backbone->out_channels(), 64);
  torch::NoGradGuard no_grad;
  const auto [locations, scores] = model->forward(torch::randn({1, 3, 150, 150}));
  EXPECT_EQ(locations.size(2), model->num_default_boxes());
  EXPECT_EQ(scores.sizes(), (torch::IntArrayRef{1, 7, model->num_default_boxes()}));
}

// An empty batch goes through (a rank with an empty shard runs one when BatchNorm is synchronised).
TEST(Ssd300, AnEmptyBatchGivesEmptyOutputsOfEveryBox) {
  Ssd300 model(Ssd300Options{}.image_size(150).width(0.25).num_classes(7).extra_strides({2, 2, 2, 1})
                   .boxes_per_location({4, 6, 6, 4, 4}));
  torch::NoGradGuard no_grad;
  model->eval();
  const auto [locations, scores] = model->forward(torch::randn({0, 3, 150, 150}));
  EXPECT_EQ(locations.sizes(), (torch::IntArrayRef{0, 4, model->num_default_boxes()}));
  EXPECT_EQ(scores.sizes(), (torch::IntArrayRef{0, 7, model->num_default_boxes()}));
}

TEST(Ssd300, BadOptionsAreUserErrors) {
  EXPECT_NE(user_error_of([] { Ssd300(Ssd300Options{}.extra_strides({2, 2, 2, 1, 1, 1})); }).find("at most 5"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { Ssd300(Ssd300Options{}.extra_strides({2, 3, 2, 1, 1})); }).find("extra_strides[1]"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { Ssd300(Ssd300Options{}.boxes_per_location({4, 6})); }).find("one per map"),
            std::string::npos);
  EXPECT_NE(user_error_of([] { Ssd300(Ssd300Options{}.image_size(64)); }).find("too small"), std::string::npos);
}

TEST(Ssd300, HeadsAreXavierUniformWithinTheirBound) {
  Ssd300 model(Ssd300Options{});
  const torch::Tensor w = model->class_heads[0]->weight;  // fan_in 256*9, fan_out 324*9
  const double bound = std::sqrt(6.0 / (256 * 9 + 324 * 9));
  EXPECT_LE(w.abs().max().item<double>(), bound);
  EXPECT_GT(w.abs().max().item<double>(), 0.9 * bound);
}

// A torchvision-style resnet34 state dict (all four stages and fc, as torch.save writes it) fills
// the backbone; layer4 and fc are left out; a missing key or a wrong shape is a UserError naming it.
TEST(Ssd300, BackboneCheckpointLoadsATorchvisionResNet34StateDict) {
  torch::manual_seed(3);
  common::ResNet full(common::ResNetOptions(34));
  c10::impl::GenericDict state(c10::StringType::get(), c10::TensorType::get());
  for (const auto& p : full->named_parameters()) state.insert(p.key(), p.value().detach());
  for (const auto& b : full->named_buffers()) state.insert(b.key(), b.value());
  const fs::path file = fs::temp_directory_path() / "mlh_ssd_resnet34_state.pt";
  {
    const std::vector<char> bytes = torch::pickle_save(state);
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  common::ResNet backbone(ssd_backbone_options(1.0));
  const int64_t copied = load_backbone_checkpoint(backbone, file.string());
  EXPECT_GT(copied, 100);
  EXPECT_TRUE(torch::equal(backbone->stages[2]->named_parameters()["0.conv1.weight"],
                           full->stages[2]->named_parameters()["0.conv1.weight"]));
  EXPECT_TRUE(torch::equal(backbone->bn1->running_var, full->bn1->running_var));

  common::ResNet narrow(ssd_backbone_options(0.5));
  EXPECT_NE(user_error_of([&] { load_backbone_checkpoint(narrow, file.string()); }).find("has shape"),
            std::string::npos);
  ASSERT_EQ(state.erase("layer2.0.bn1.running_mean"), 1u);
  {
    const std::vector<char> bytes = torch::pickle_save(state);
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  EXPECT_NE(user_error_of([&] { load_backbone_checkpoint(backbone, file.string()); })
                .find("no tensor 'layer2.0.bn1.running_mean'"),
            std::string::npos);
  fs::remove(file);
  // Python's torch.save (an OrderedDict in the zip format) holding conv1.weight alone: read, matched
  // in shape, then the next key is missing, and nothing was copied.
  const torch::Tensor before = backbone->conv1->weight.clone();
  EXPECT_NE(user_error_of([&] {
              load_backbone_checkpoint(backbone, test_paths::source_dir() + "/tests/workloads/data/resnet34_stem_state_dict.pt");
            }).find("no tensor 'bn1.weight'"),
            std::string::npos);
  EXPECT_TRUE(torch::equal(backbone->conv1->weight, before));
  EXPECT_NE(user_error_of([&] { load_backbone_checkpoint(backbone, file.string()); }).find("cannot read"),
            std::string::npos);
}

// The MLPerf warm-up with factor 0 rises linearly from 0; factor 1 starts at half the rate; the decay
// multiplies by 0.1 at each boundary step reached.
TEST(SsdSchedule, MlperfWarmupThenStepDecay) {
  using common::warmup_step_decay_learning_rate;
  EXPECT_DOUBLE_EQ(warmup_step_decay_learning_rate(0, 0.1, 4, 0, {10, 20}, 0.1), 0.0);
  EXPECT_DOUBLE_EQ(warmup_step_decay_learning_rate(2, 0.1, 4, 0, {10, 20}, 0.1), 0.05);
  EXPECT_DOUBLE_EQ(warmup_step_decay_learning_rate(0, 0.1, 4, 1, {10, 20}, 0.1), 0.05);
  EXPECT_DOUBLE_EQ(warmup_step_decay_learning_rate(4, 0.1, 4, 0, {10, 20}, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(warmup_step_decay_learning_rate(9, 0.1, 4, 0, {10, 20}, 0.1), 0.1);
  EXPECT_NEAR(warmup_step_decay_learning_rate(10, 0.1, 4, 0, {10, 20}, 0.1), 0.01, 1e-15);
  EXPECT_NEAR(warmup_step_decay_learning_rate(25, 0.1, 4, 0, {10, 20}, 0.1), 0.001, 1e-15);
}

// A few steps on one fixed batch of a small SSD (two shards, one image without boxes) lower its loss.
TEST(SsdTrainer, StepsOnAFixedBatchLowerTheLoss) {
  torch::manual_seed(1);
  const World world = World::single_process();
  Ssd300 model(Ssd300Options{}.image_size(128).width(0.25).num_classes(3).extra_strides({2, 2, 1})
                   .boxes_per_location({4, 6, 6, 4}));
  common::DefaultBoxesOptions boxes;
  boxes.figure_size_px = 128;
  boxes.feature_sizes = model->feature_sizes();
  boxes.steps_px = {8, 16, 32, 64};
  boxes.scales_px = {16, 32, 56, 88, 120};
  boxes.aspect_ratios = {{2}, {2, 3}, {2, 3}, {2}};
  const common::DefaultBoxes defaults = common::make_default_boxes(boxes);
  ASSERT_EQ(defaults.count(), model->num_default_boxes());
  SsdTrainer trainer(model, defaults, make_ssd_sgd(model, 0.01, 0.9, 5e-4), world, TrainStepOptions{});
  SsdBatch batch{{}, 4};
  for (int k = 0; k < 2; ++k) {
    DetectionShard shard;
    shard.images = torch::randn({2, 3, 128, 128});
    shard.boxes_ltrb = {torch::tensor({{0.1f, 0.1f, 0.5f, 0.6f}, {0.5f, 0.4f, 0.9f, 0.9f}}),
                        k == 0 ? torch::zeros({0, 4}) : torch::tensor({{0.2f, 0.3f, 0.4f, 0.5f}})};
    shard.labels = {torch::tensor({1, 2}, torch::kLong),
                    k == 0 ? torch::zeros({0}, torch::kLong) : torch::tensor({2}, torch::kLong)};
    batch.shards.push_back(shard);
  }
  trainer.model()->train();
  const double first = trainer.train_on(batch).item<double>();
  double last = first;
  for (int step = 0; step < 5; ++step) last = trainer.train_on(batch).item<double>();
  EXPECT_TRUE(std::isfinite(first));
  EXPECT_LT(last, first);
}

}  // namespace
}  // namespace mlh::ssd
