// The `cuda` label: what only a GPU can show. Every test skips, saying why, where this build has no
// CUDA or the machine no GPU; launch/device_check.sh runs them on a GPU machine. Its own main holds
// an MPI session (a singleton world) for the NCCL communicator's unique-id broadcast.
#include <chrono>
#include <functional>
#include <thread>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/batchnorm_statistics.h"
#include "harness/device.h"
#include "harness/energy_meter.h"
#include "harness/fused_adam.h"
#include "harness/lars.h"
#include "harness/libtorch_compat.h"
#include "harness/train_step.h"
#include "harness/mixed_precision.h"
#include "harness/world.h"
#ifdef MLH_WITH_CUDA
#include "harness/nccl_communicator.h"
#endif

namespace mlh {
namespace {

#ifdef MLH_WITH_CUDA
#define MLH_SKIP_WITHOUT_GPU()                                                                   \
  if (visible_gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine (or no driver)"
#else
#define MLH_SKIP_WITHOUT_GPU() \
  GTEST_SKIP() << "this build has no CUDA (Debian's LibTorch); launch/setup.sh --cuda builds one"
#endif

const torch::Device kGpu(torch::kCUDA, 0);

TEST(CudaDevice, TheLocalRanksGpuBecomesTheCurrentDevice) {
  MLH_SKIP_WITHOUT_GPU();
  const World world = World::single_process();
  const torch::Device device = rank_device(world, "auto");
  EXPECT_EQ(device, kGpu);
  EXPECT_FALSE(device_model(device).empty());
  EXPECT_EQ(torch::empty({1}, torch::TensorOptions().device(torch::kCUDA)).device(), kGpu);
}

TEST(CudaDevice, HostBatchesArePinnedAndCopiedAsynchronously) {
  MLH_SKIP_WITHOUT_GPU();
  const torch::Tensor host = torch::arange(1000, host_staging_options(torch::kLong, kGpu));
  EXPECT_TRUE(host.is_pinned());
  const torch::Tensor on_gpu = to_device(host, kGpu);
  EXPECT_EQ(on_gpu.device(), kGpu);
  EXPECT_TRUE(torch::equal(on_gpu.cpu(), host));
}

// The fused kernels (one pass over all gradients, scale on the device) and the op-by-op arithmetic
// of the CPU path take the same decisions and reach the same scale.
TEST(CudaLossScaler, FusedKernelsSkipHalveAndGrowAsTheOpByOpArithmetic) {
  MLH_SKIP_WITHOUT_GPU();
  const DynamicLossScaler::Options options{1024.0, 2.0, 0.5, 2};
  DynamicLossScaler fused(true, options, kGpu);
  DynamicLossScaler plain(true, options, torch::kCPU);
  ASSERT_TRUE(fused.fused());
  ASSERT_FALSE(plain.fused());
  const std::vector<float> steps = {1.0f, 1.0f, INFINITY, 2.0f, NAN, 3.0f, 3.0f};
  for (const float value : steps) {
    torch::Tensor p_gpu = torch::zeros({5}, torch::TensorOptions(kGpu).requires_grad(true));
    torch::Tensor p_cpu = torch::zeros({5}, torch::TensorOptions().requires_grad(true));
    p_gpu.mutable_grad() = torch::full({5}, value * 1024.0f, torch::TensorOptions(kGpu));
    p_cpu.mutable_grad() = torch::full({5}, value * 1024.0f);
    fused.unscale_gradients({p_gpu});
    plain.unscale_gradients({p_cpu});
    const bool found_gpu = fused.found_inf().item<float>() != 0;
    EXPECT_EQ(found_gpu, plain.found_inf().item<float>() != 0) << value;
    if (!found_gpu) {
      EXPECT_TRUE(torch::allclose(p_gpu.grad().cpu(), p_cpu.grad()));
    }
    fused.update();
    plain.update();
    EXPECT_DOUBLE_EQ(fused.scale(), plain.scale()) << value;
  }
  EXPECT_EQ(fused.skipped_steps(), 2);
  EXPECT_EQ(plain.skipped_steps(), 2);
}

TEST(CudaAdam, LibTorchsFusedKernelFollowsTheCpuUpdate) {
  MLH_SKIP_WITHOUT_GPU();
  torch::manual_seed(3);
  const torch::Tensor start = torch::randn({257, 33});
  torch::Tensor p_cpu = start.clone().requires_grad_(true);
  torch::Tensor p_gpu = start.to(kGpu).requires_grad_(true);
  const AdamOptions adam{1e-2, 0.9, 0.999, 1e-8};
  auto cpu = make_adam({ParameterGroup{{p_cpu}, 0.01, 1.0}}, adam);
  auto gpu = make_adam({ParameterGroup{{p_gpu}, 0.01, 1.0}}, adam);
  for (int step = 0; step < 4; ++step) {
    const torch::Tensor grad = torch::randn({257, 33});
    p_cpu.mutable_grad() = grad.clone();
    p_gpu.mutable_grad() = grad.to(kGpu);
    cpu->step();
    gpu->step();
  }
  EXPECT_TRUE(torch::allclose(p_gpu.detach().cpu(), p_cpu.detach(), 1e-5, 1e-6));
}

TEST(CudaEnergy, NvmlMeasuresTheGpuWhileItWorks) {
  MLH_SKIP_WITHOUT_GPU();
  EnergyMeter meter(kGpu, 0.05);
  if (!meter.available()) GTEST_SKIP() << meter.source();
  meter.start();
  const torch::Tensor a = torch::randn({4096, 4096}, torch::TensorOptions(kGpu));
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(700);
  while (std::chrono::steady_clock::now() < until) {
    torch::Tensor b = a.mm(a);
    synchronize_device(kGpu);
  }
  meter.stop();
  EXPECT_GT(meter.samples(), 3);
  EXPECT_GT(meter.mean_watts(), 10.0);
  EXPECT_GT(meter.joules(), 5.0);
  EXPECT_EQ(meter.source(), "nvml");
}

TEST(CudaNccl, OneRanksCommunicatorReducesAndBroadcastsOnTheGpu) {
  MLH_SKIP_WITHOUT_GPU();
#ifdef MLH_WITH_CUDA
  const World world = World::from_mpi();
  auto nccl = make_nccl_communicator(kGpu, 0, 1, std::shared_ptr<Communicator>());
  EXPECT_EQ(nccl->name(), "nccl");
  EXPECT_EQ(nccl->device(), kGpu);
  for (const auto dtype : {torch::kFloat, torch::kHalf, torch::kBFloat16, torch::kDouble}) {
    torch::Tensor t = torch::arange(10, torch::TensorOptions(kGpu).dtype(dtype));
    nccl->allreduce_sum(t);
    nccl->broadcast(t, 0);
    nccl->barrier();
    EXPECT_TRUE(torch::equal(t.cpu().to(torch::kDouble), torch::arange(10, torch::kDouble))) << dtype;
  }
  EXPECT_FALSE(nccl_version().empty());
#endif
}

TEST(CudaBatchNorm, StatisticsOnTheGpuStayWhereTheyAre) {
  MLH_SKIP_WITHOUT_GPU();
  torch::nn::BatchNorm2d bn(3);
  bn->to(kGpu);
  bn->train();
  bn->forward(torch::randn({4, 3, 5, 5}, torch::TensorOptions(kGpu)));
  const torch::Tensor before = bn->running_mean.clone();
  EXPECT_EQ(average_batchnorm_statistics(*bn, World::single_process()), 2);
  EXPECT_TRUE(torch::equal(bn->running_mean, before));
  EXPECT_EQ(bn->running_mean.device(), kGpu);
}

// An amp step's optimizer skips on the GPU without reading found_inf: SGD (fused), LARS (device trust
// ratios) and Adam (fused) follow their CPU updates, leave everything alone when found_inf is 1, and
// the sync debug mode counts no host sync in the step; a read-back (.item()) is counted.
TEST(CudaOptimizers, SkipOnTheDeviceWithoutAHostSync) {
  MLH_SKIP_WITHOUT_GPU();
  const std::vector<std::function<std::unique_ptr<Optimizer>(std::vector<ParameterGroup>)>> makers = {
      [](std::vector<ParameterGroup> g) { return make_sgd(std::move(g), {0.1, 0.9, true}); },
      [](std::vector<ParameterGroup> g) { return make_lars(std::move(g), {0.5, 0.9, 0.01, 0.0}); },
      [](std::vector<ParameterGroup> g) { return make_adam(std::move(g), {0.01, 0.9, 0.999, 1e-8}); }};
  for (size_t k = 0; k < makers.size(); ++k) {
    torch::manual_seed(5);
    const torch::Tensor start = torch::randn({16, 3, 3, 3}).contiguous(torch::MemoryFormat::ChannelsLast);
    torch::Tensor p_cpu = start.clone(torch::MemoryFormat::Preserve).requires_grad_(true);
    torch::Tensor p_gpu = start.to(kGpu).requires_grad_(true);
    auto cpu = makers[k]({ParameterGroup{{p_cpu}, 0.01, 1.0, true}});
    auto gpu = makers[k]({ParameterGroup{{p_gpu}, 0.01, 1.0, true}});
    const torch::Tensor finite = torch::zeros({1}, torch::TensorOptions(kGpu));
    const torch::Tensor overflowed = torch::ones({1}, torch::TensorOptions(kGpu));
    for (int step = 0; step < 3; ++step) {
      const torch::Tensor grad = torch::randn(start.sizes()).contiguous(torch::MemoryFormat::ChannelsLast);
      p_cpu.mutable_grad() = grad.clone(torch::MemoryFormat::Preserve);
      p_gpu.mutable_grad() = grad.to(kGpu);
      cpu->step();
      HostSyncCounter syncs(kGpu);
      syncs.start();
      gpu->step(finite);
      const torch::Tensor before = p_gpu.detach().clone();
      p_gpu.mutable_grad() = torch::full_like(p_gpu, INFINITY);
      gpu->step(overflowed);
      syncs.stop();
      EXPECT_EQ(syncs.count(), 0) << "optimizer " << k;
      EXPECT_TRUE(torch::equal(p_gpu.detach(), before)) << "optimizer " << k;
    }
    EXPECT_TRUE(torch::allclose(p_gpu.detach().cpu(), p_cpu.detach(), 1e-4, 1e-5)) << "optimizer " << k;
  }
  HostSyncCounter syncs(kGpu);
  syncs.start();
  (void)torch::ones({1}, torch::TensorOptions(kGpu)).item<float>();
  syncs.stop();
  EXPECT_EQ(syncs.count(), 1);
}

// Targets and token ids in pageable memory reach the GPU through pinned staging without a host sync.
TEST(CudaDevice, PageableTensorsAreStagedWithoutAHostSync) {
  MLH_SKIP_WITHOUT_GPU();
  const torch::Tensor pageable = torch::arange(4096, torch::kLong);
  ASSERT_FALSE(pageable.is_pinned());
  HostSyncCounter syncs(kGpu);
  syncs.start();
  const torch::Tensor on_gpu = stage_to_device(pageable, kGpu);
  syncs.stop();
  EXPECT_EQ(syncs.count(), 0);
  EXPECT_TRUE(torch::equal(on_gpu.cpu(), pageable));
}

// The fused unscale is not called on an empty list (LibTorch's kernel rejects one).
TEST(CudaLossScaler, NoGradientsFindNothing) {
  MLH_SKIP_WITHOUT_GPU();
  DynamicLossScaler scaler(true, kGpu);
  scaler.unscale_gradients({torch::zeros({3}, torch::TensorOptions(kGpu).requires_grad(true))});
  scaler.update();
  EXPECT_EQ(scaler.found_inf().item<float>(), 0.0f);
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

// Clipping on the GPU reads nothing back.
TEST(CudaClip, ClipsWithoutAHostSync) {
  MLH_SKIP_WITHOUT_GPU();
  torch::Tensor p = torch::zeros({100}, torch::TensorOptions(kGpu).requires_grad(true));
  p.mutable_grad() = torch::ones({100}, torch::TensorOptions(kGpu));
  HostSyncCounter syncs(kGpu);
  syncs.start();
  clip_gradient_norm({p}, 1.0);
  syncs.stop();
  EXPECT_EQ(syncs.count(), 0);
  EXPECT_NEAR(p.grad().norm().item<double>(), 1.0, 1e-4);
}

// fp32 on an Ampere or newer GPU with TF32 on is labelled tf32; fp32-strict turns it off.
TEST(CudaPrecision, Tf32IsNamedWhereItRuns) {
  MLH_SKIP_WITHOUT_GPU();
  const bool before = libtorch::cuda_tf32_enabled();
  libtorch::set_cuda_tf32(true);
  const bool ampere = cuda_compute_capability(kGpu) >= 80;
  EXPECT_EQ(uses_tf32(describe_precision(Precision::kFp32, kGpu)), ampere);
  apply_precision_to_gpu_math(Precision::kFp32Strict);
  EXPECT_EQ(describe_precision(Precision::kFp32, kGpu), "fp32");
  libtorch::set_cuda_tf32(before);
}

}  // namespace
}  // namespace mlh

int main(int argc, char** argv) {
  mlh::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
