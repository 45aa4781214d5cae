// The engine's device choice (harness/device.h) and its settings, on any machine: the decision is
// a function of the request, the rank's place on its node and the GPUs it sees.
#include "harness/device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/user_error.h"
#include "harness/copy_ahead.h"
#include "harness/device_world.h"
#include "harness/driver.h"
#include "harness/platform.h"
#include "tests/user_error_of.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

TEST(ChooseRankDevice, CpuWhenAskedEvenWithGpus) {
  EXPECT_EQ(choose_rank_device("cpu", 1, 2, 8), torch::Device(torch::kCPU));
}

TEST(ChooseRankDevice, AutoIsTheCpuWithoutGpusAndTheLocalRanksGpuWithThem) {
  EXPECT_EQ(choose_rank_device("auto", 3, 4, 0), torch::Device(torch::kCPU));
  EXPECT_EQ(choose_rank_device("auto", 3, 4, 4), torch::Device(torch::kCUDA, 3));
  EXPECT_EQ(choose_rank_device("cuda", 0, 1, 8), torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(choose_rank_device("cuda", 1, 2, 8), torch::Device(torch::kCUDA, 1));
}

TEST(ChooseRankDevice, CudaWithoutAGpuIsAOneLineError) {
  const std::string message = user_error_of([] { choose_rank_device("cuda", 0, 1, 0); });
  EXPECT_THAT(message, HasSubstr("device 'cuda' asked for, but this build or machine has no CUDA device"));
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(ChooseRankDevice, MoreRanksOnANodeThanGpusIsAOneLineError) {
  for (const char* requested : {"auto", "cuda"}) {
    const std::string message = user_error_of([&] { choose_rank_device(requested, 0, 4, 2); });
    EXPECT_EQ(message, "4 ranks on this node but 2 GPUs visible: one rank per GPU (mpirun -np 2), or --device cpu");
  }
  EXPECT_EQ(user_error_of([] { choose_rank_device("cuda", 1, 2, 1); }),
            "2 ranks on this node but 1 GPU visible: one rank per GPU (mpirun -np 1), or --device cpu");
  // The CPU takes any number of ranks.
  EXPECT_EQ(choose_rank_device("cpu", 3, 4, 2), torch::Device(torch::kCPU));
}

TEST(ChooseRankDevice, ARankBoundToItsOwnGpuTakesTheOneItSees) {
  // srun --gpus-per-task=1: four ranks on a node, each seeing one GPU of its own.
  EXPECT_EQ(choose_rank_device("auto", 3, 4, 1, /*own_gpu_bound=*/true), torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(choose_rank_device("cpu", 3, 4, 1, /*own_gpu_bound=*/true), torch::Device(torch::kCPU));
  EXPECT_THAT(user_error_of([] { choose_rank_device("auto", 3, 4, 1, /*own_gpu_bound=*/false); }),
              HasSubstr("4 ranks on this node but 1 GPU visible"));
}

TEST(OneGpuBoundPerRank, OnlyWhenEveryRankSeesOneGpuOfItsOwn) {
  EXPECT_TRUE(one_gpu_bound_per_rank({"0", "1", "2", "3"}, {1, 1, 1, 1}));
  EXPECT_TRUE(one_gpu_bound_per_rank({"GPU-aa", "GPU-bb"}, {1, 1}));
  EXPECT_FALSE(one_gpu_bound_per_rank({"0", "0"}, {1, 1}));           // the same GPU twice
  EXPECT_FALSE(one_gpu_bound_per_rank({"", ""}, {1, 1}));             // no binding: one GPU shared
  EXPECT_FALSE(one_gpu_bound_per_rank({"0,1", "0,1"}, {2, 2}));       // each sees both
  EXPECT_FALSE(one_gpu_bound_per_rank({"0"}, {1}));                   // one rank: the ordinary rule
  EXPECT_FALSE(one_gpu_bound_per_rank({"0", "1"}, {1, 0}));
}

TEST(ChooseRankDevice, UnknownNameIsAnError) {
  EXPECT_THAT(user_error_of([] { choose_rank_device("tpu", 0, 1, 0); }),
              HasSubstr("device 'tpu' is not one of auto, cpu, cuda"));
}

TEST(RankDevice, ThisMachineWithoutAGpuComputesOnTheCpu) {
  if (visible_gpu_count() > 0) GTEST_SKIP() << "this machine has a GPU; the cuda tests cover it";
  const World world = World::single_process();
  EXPECT_EQ(rank_device(world, "auto"), torch::Device(torch::kCPU));
  EXPECT_THAT(user_error_of([&] { rank_device(world, "cuda"); }), HasSubstr("no CUDA device"));
}

// A communicator that only names itself, to see which one a world holds.
class NamedCommunicator : public Communicator {
 public:
  void allreduce_sum(torch::Tensor&) override {}
  void broadcast(torch::Tensor&, int) override {}
  void barrier() override {}
  std::string name() const override { return "named"; }
};

TEST(WorldOnDevice, TheCpuKeepsTheWorldsOwnCommunicator) {
  const World world = World::single_process();
  const World on_cpu = world_on_device(world, torch::kCPU);
  EXPECT_EQ(&on_cpu.comm(), &world.comm());
  EXPECT_EQ(on_cpu.size(), 1);
  // A GPU of a one-rank world needs no collective either (and no GPU is touched).
  EXPECT_EQ(&world_on_device(world, torch::Device(torch::kCUDA, 0)).comm(), &world.comm());
}

TEST(WorldOnDevice, WithCommunicatorReplacesOnlyTheCommunicator) {
  const World world = World::single_process();
  const World other = world.with_communicator(std::make_shared<NamedCommunicator>());
  EXPECT_EQ(other.comm().name(), "named");
  EXPECT_NE(world.comm().name(), "named");
  EXPECT_EQ(other.rank(), world.rank());
  EXPECT_EQ(other.cores_per_rank(), world.cores_per_rank());
}

TEST(EngineDeviceSettings, BindTheDeviceAndTheGpuMathWithTheirChoices) {
  ConfigMap config = ConfigMap::from_yaml_text("device: cpu\ncudnn_benchmark: false\nallow_tf32: false\n", "cfg.yaml");
  EngineSettings engine;
  engine.bind(config);
  config.check_all_bound();
  EXPECT_EQ(engine.device, "cpu");
  EXPECT_FALSE(engine.gpu_math.cudnn_benchmark);
  EXPECT_FALSE(engine.gpu_math.cudnn_deterministic);
  EXPECT_FALSE(engine.gpu_math.allow_tf32);
  // They are in the effective config, which the log carries (effective_config).
  EXPECT_EQ(config.effective()["cudnn_deterministic"], false);
  ConfigMap bad = ConfigMap::from_yaml_text("device: tpu\n", "cfg.yaml");
  EXPECT_THAT(user_error_of([&] { EngineSettings().bind(bad); }), HasSubstr("expected auto, cpu or cuda"));
}

TEST(Platform, CpuRanksAreCountedAndLabelledByTheCpuModel) {
  const PlatformInfo platform = detect_platform(2, torch::Device(torch::kCPU));
  EXPECT_FALSE(platform.cuda);
  EXPECT_EQ(platform.device_count, 2);
  EXPECT_EQ(platform.device_model, device_model(torch::Device(torch::kCPU)));
  EXPECT_EQ(platform.label().rfind("2x", 0), 0u);
  PlatformInfo gpus;
  gpus.device_model = "Tesla T4";
  gpus.device_count = 4;
  gpus.cuda = true;
  EXPECT_EQ(gpus.label(), "4xTesla-T4");
}

TEST(HostStaging, PlainMemoryForTheCpu) {
  const torch::Tensor host = torch::empty({4}, host_staging_options(torch::kLong, torch::kCPU));
  EXPECT_FALSE(host.is_pinned());
  EXPECT_TRUE(to_device(host, torch::kCPU).is_same(host));
}

// On the CPU staging copies nothing: the tensor itself, so CPU runs see the same memory as before.
TEST(HostStaging, StagingForTheCpuIsTheTensorItself) {
  const torch::Tensor host = torch::arange(6, torch::kLong);
  EXPECT_TRUE(stage_to_device(host, torch::kCPU).is_same(host));
}

// On the CPU the copy ahead hands over the very tensors it was given, one batch in flight at a time.
TEST(CopyAhead, OnTheCpuTakesWhatWasStartedAndHoldsOneBatch) {
  CopyAhead ahead(torch::kCPU);
  EXPECT_FALSE(ahead.started());
  EXPECT_THROW(ahead.take(), InternalError);
  const torch::Tensor images = torch::arange(12, torch::kByte), labels = torch::arange(3, torch::kLong);
  ahead.start({images, labels});
  EXPECT_TRUE(ahead.started());
  EXPECT_THROW(ahead.start({images}), InternalError);
  const std::vector<torch::Tensor> taken = ahead.take();
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_TRUE(taken[0].is_same(images));
  EXPECT_TRUE(taken[1].is_same(labels));
  EXPECT_FALSE(ahead.started());
}

}  // namespace
}  // namespace mlh
