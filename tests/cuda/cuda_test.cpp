// The `cuda` label: what only a GPU can show. Every test skips, saying why, where this build has no
// CUDA or the machine no GPU; launch/device_check.sh runs them on a GPU machine. Its own main holds
// an MPI session (a singleton world, or two ranks under mpirun) for the NCCL communicator's unique-id
// broadcast; every NCCL communicator here has its host side. The CudaTwoRanks tests need two ranks on
// two GPUs and skip, saying so, elsewhere.
#include <chrono>
#include <filesystem>
#include <functional>
#include <cstdio>
#include <numeric>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/batchnorm_statistics.h"
#include "harness/copy_ahead.h"
#include "harness/device.h"
#include "harness/energy_meter.h"
#include "harness/fused_adam.h"
#include "harness/lars.h"
#include "harness/libtorch_compat.h"
#include "harness/train_step.h"
#include "harness/gradient_allreduce.h"
#include "harness/mixed_precision.h"
#include "harness/device_world.h"
#include "harness/world.h"
#include "datasets/image_files.h"
#include "datasets/imagenet/folder.h"
#include "datasets/imagenet/synthetic.h"
#include "workloads/resnet/device_jpeg_source.h"
#include "workloads/resnet/device_transforms.h"
#include "workloads/resnet/image_source.h"
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

// The host side NCCL's communicator hands CPU tensors and barriers to (MPI in a job): it counts them.
class CountingHostCommunicator final : public Communicator {
 public:
  void allreduce_sum(torch::Tensor& tensor) override { ++sums; tensor.mul_(2); }  // as two equal ranks
  void broadcast(torch::Tensor&, int) override { ++broadcasts; }
  void barrier() override { ++barriers; }
  std::string name() const override { return "counting host"; }
  int sums = 0, broadcasts = 0, barriers = 0;
};

TEST(CudaNccl, OneRanksCommunicatorReducesOnTheGpuAndLeavesTheHostsPartToTheHost) {
  MLH_SKIP_WITHOUT_GPU();
#ifdef MLH_WITH_CUDA
  auto host = std::make_shared<CountingHostCommunicator>();
  auto nccl = make_nccl_communicator(kGpu, 0, 1, host);
  EXPECT_EQ(nccl->name(), "nccl");
  EXPECT_EQ(nccl->device(), kGpu);
  for (const auto dtype : {torch::kFloat, torch::kHalf, torch::kBFloat16, torch::kDouble}) {
    torch::Tensor t = torch::arange(10, torch::TensorOptions(kGpu).dtype(dtype));
    nccl->allreduce_sum(t);
    nccl->broadcast(t, 0);
    torch::Tensor started = torch::arange(10, torch::TensorOptions(kGpu).dtype(dtype));
    nccl->start_allreduce_sum(started);
    nccl->wait_started_collectives();
    nccl->barrier();
    EXPECT_TRUE(torch::equal(t.cpu().to(torch::kDouble), torch::arange(10, torch::kDouble))) << dtype;
    EXPECT_TRUE(torch::equal(started.cpu().to(torch::kDouble), torch::arange(10, torch::kDouble))) << dtype;
  }
  torch::Tensor scalar = torch::ones({1}, torch::kDouble);
  nccl->allreduce_sum(scalar);
  EXPECT_EQ(scalar.item<double>(), 2.0);
  EXPECT_EQ(host->sums, 1);
  EXPECT_EQ(host->barriers, 4);
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

// A batch copied ahead on the copy stream arrives whole for the compute stream, without the host
// waiting, while a step's work is queued behind it.
TEST(CudaCopyAhead, CopiesOnItsOwnStreamWithoutAHostSync) {
  MLH_SKIP_WITHOUT_GPU();
  const torch::Tensor images = torch::empty({8, 64, 64, 3}, host_staging_options(torch::kByte, kGpu));
  images.copy_(torch::randint(0, 256, {8, 64, 64, 3}).to(torch::kByte));
  const torch::Tensor labels = torch::arange(8, host_staging_options(torch::kLong, kGpu));
  CopyAhead ahead(kGpu);
  HostSyncCounter syncs(kGpu);
  syncs.start();
  ahead.start({images, labels});
  const torch::Tensor busy = torch::randn({2048, 2048}, torch::TensorOptions(kGpu)).matmul(torch::randn({2048, 2048}, torch::TensorOptions(kGpu)));
  std::vector<torch::Tensor> on_gpu = ahead.take();
  const torch::Tensor sum = on_gpu[0].to(torch::kLong).sum() + on_gpu[1].sum() + busy.sum().to(torch::kLong) * 0;
  syncs.stop();
  EXPECT_EQ(syncs.count(), 0);
  ASSERT_EQ(on_gpu.size(), 2u);
  EXPECT_EQ(on_gpu[0].device(), kGpu);
  EXPECT_TRUE(torch::equal(on_gpu[0].cpu(), images));
  EXPECT_TRUE(torch::equal(on_gpu[1].cpu(), labels));
  EXPECT_EQ(sum.item<int64_t>(), images.to(torch::kLong).sum().item<int64_t>() + 28);
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

// decoder: gpu. nvJPEG and libjpeg differ in their inverse DCTs and chroma upsampling, and the
// device's resize rounds in float where OpenCV uses fixed point: the bound on the mean absolute
// difference of an image's bytes (0 to 255), against the CPU decoder at full size. On the synthetic
// images (stripes and per-pixel noise, so much colour detail) libjpeg's own variants, plain against
// smooth chroma upsampling with the float against the integer IDCT, differ by 2.9 on average and 4.4
// at worst, while an image and its mirror image differ by 22 or more.
constexpr double kNvjpegMeanDifferenceBound = 6.0;

// nvJPEG's batches against the CPU decoder's (reduced_decode off, so both decode at full size): the
// same shape, labels, crops and flips (each image is nearer the CPU's than the CPU's mirror image is),
// pixels within the bound; a flipped crop mirrors the unflipped one's columns exactly. Skips, saying
// why, where no libnvjpeg is found (pip install nvidia-nvjpeg into the torch environment).
TEST(CudaJpeg, NvjpegBatchesAreTheCpuDecodersWithTheSameCropsAndFlips) {
  MLH_SKIP_WITHOUT_GPU();
  std::string why_not;
  const std::shared_ptr<resnet::DeviceJpegDecoder> decoder = resnet::open_gpu_jpeg_decoder(kGpu, &why_not);
  if (decoder == nullptr) GTEST_SKIP() << why_not;
  std::printf("decoder: %s\n", decoder->description().c_str());
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "mlh_cuda_jpeg";
  std::filesystem::remove_all(root);
  imagenet::SyntheticImageNetSpec spec;
  spec.classes = 3;
  spec.train_images_per_class = 4;
  spec.val_images_per_class = 2;
  spec.min_side = 64;
  spec.max_side = 160;
  imagenet::write_synthetic_imagenet(root.string(), spec);
  const std::vector<std::string> classes = imagenet::read_class_index((root / imagenet::kClassIndexFileName).string());
  for (const bool train : {true, false}) {
    const imagenet::ImageFolder folder = imagenet::scan_image_folder((root / (train ? "train" : "val")).string(), classes);
    imagenet::LoaderOptions options;
    options.threads = 2;
    options.image_size = 64;
    options.eval_resize = 72;
    options.train = train;
    options.reduced_decode = false;
    options.seed = 9;
    resnet::JpegFolderSource cpu(folder, options, 1);
    resnet::DeviceJpegSource gpu(folder, options, 1, decoder);
    std::vector<int32_t> all(static_cast<size_t>(folder.size()));
    std::iota(all.begin(), all.end(), 0);
    cpu.start({all}, 3);
    gpu.start({all}, 3);
    const resnet::HostBatch expected = cpu.next();
    const resnet::HostBatch got = gpu.next();
    ASSERT_EQ(got.images.device(), kGpu);
    ASSERT_EQ(got.images.sizes(), expected.images.sizes());
    EXPECT_TRUE(torch::equal(got.labels.cpu(), expected.labels));
    EXPECT_EQ(gpu.cpu_decoded_images(), 0);
    const torch::Tensor device_bytes = got.images.cpu().to(torch::kFloat), cpu_bytes = expected.images.to(torch::kFloat);
    for (int64_t i = 0; i < folder.size(); ++i) {
      const double difference = (device_bytes[i] - cpu_bytes[i]).abs().mean().item<double>();
      const double to_mirror = (device_bytes[i] - cpu_bytes[i].flip({1})).abs().mean().item<double>();
      std::printf("%s image %lld: mean difference %.3f, to the mirror image %.3f\n", train ? "train" : "eval",
                  static_cast<long long>(i), difference, to_mirror);
      EXPECT_LT(difference, kNvjpegMeanDifferenceBound) << folder.files[static_cast<size_t>(i)];
      EXPECT_LT(difference, to_mirror) << folder.files[static_cast<size_t>(i)];
    }
  }
  std::vector<uint8_t> bytes;
  read_image_bytes((root / "train" / classes[0] / (classes[0] + "_1.JPEG")).string(), "", &bytes);
  const torch::Tensor decoded = decoder->decode(bytes.data(), bytes.size(), &why_not);
  ASSERT_TRUE(decoded.defined()) << why_not;
  const imagenet::CropBox box{5, 7, 50, 40};
  EXPECT_TRUE(torch::equal(resnet::train_transform_tensor(decoded, box, true, 64).cpu(),
                           resnet::train_transform_tensor(decoded, box, false, 64).cpu().flip({1})));
}

// Two ranks, one GPU each, under `mpirun -np 2` (ctest cuda.TwoRanks starts them where two GPUs are
// visible): on one rank an all-reduce or a broadcast is the identity, so a wrong one would pass.
#define MLH_SKIP_WITHOUT_TWO_RANKS_ON_TWO_GPUS()                                                        \
  MLH_SKIP_WITHOUT_GPU();                                                                             \
  if (MpiSession::world_size() != 2 || visible_gpu_count() < 2)                                       \
  GTEST_SKIP() << "needs two ranks on two GPUs (" << MpiSession::world_size() << " rank(s), "         \
               << visible_gpu_count() << " GPU(s) visible); ctest cuda.TwoRanks runs them under mpirun -np 2"

const World& launched_world() {
  static const World instance = World::from_mpi();
  return instance;
}

TEST(CudaTwoRanks, NcclSumsAndBroadcastsAcrossTheRanks) {
  MLH_SKIP_WITHOUT_TWO_RANKS_ON_TWO_GPUS();
  const torch::Device gpu = rank_device(launched_world(), "auto");
  const World world = world_on_device(launched_world(), gpu);
  ASSERT_EQ(world.comm().name(), "nccl");
  const double r = world.rank();
  for (const auto dtype : {torch::kFloat, torch::kHalf, torch::kDouble, torch::kLong}) {
    torch::Tensor t = (torch::arange(6, torch::kDouble) * (r + 1)).to(torch::TensorOptions(gpu).dtype(dtype));
    world.comm().allreduce_sum(t);  // 1x + 2x
    EXPECT_TRUE(torch::equal(t.cpu().to(torch::kDouble), torch::arange(6, torch::kDouble) * 3)) << dtype;
    torch::Tensor from_one = torch::full({3}, r + 7, torch::TensorOptions(gpu).dtype(dtype));
    world.comm().broadcast(from_one, 1);
    EXPECT_TRUE(torch::equal(from_one.cpu().to(torch::kDouble), torch::full({3}, 8.0, torch::kDouble))) << dtype;
  }
  torch::Tensor on_host = torch::full({2}, r, torch::kDouble);  // MPI, the control plane
  world.comm().allreduce_sum(on_host);
  EXPECT_TRUE(torch::equal(on_host, torch::full({2}, 1.0, torch::kDouble)));
  world.comm().barrier();
}

TEST(CudaTwoRanks, BatchNormStatisticsAreTheMeanOverTheRanks) {
  MLH_SKIP_WITHOUT_TWO_RANKS_ON_TWO_GPUS();
  const torch::Device gpu = rank_device(launched_world(), "auto");
  const World world = world_on_device(launched_world(), gpu);
  torch::nn::BatchNorm2d bn(3);
  bn->to(gpu);
  torch::NoGradGuard no_grad;
  bn->running_mean.fill_(world.rank() == 0 ? 1.0 : 3.0);
  bn->running_var.fill_(world.rank() == 0 ? 2.0 : 4.0);
  EXPECT_EQ(average_batchnorm_statistics(*bn, world), 2);
  EXPECT_TRUE(torch::equal(bn->running_mean.cpu(), torch::full({3}, 2.0f)));
  EXPECT_TRUE(torch::equal(bn->running_var.cpu(), torch::full({3}, 3.0f)));
  EXPECT_EQ(bn->running_mean.device(), gpu);
}

// Buckets reduced on NCCL's own stream while backward runs give the sums of the reduction after
// backward, and the gradients stay views of the buckets.
TEST(CudaTwoRanks, GradientBucketsReducedDuringBackwardOnTheirOwnStream) {
  MLH_SKIP_WITHOUT_TWO_RANKS_ON_TWO_GPUS();
  const torch::Device gpu = rank_device(launched_world(), "auto");
  const World world = world_on_device(launched_world(), gpu);
  std::vector<std::vector<torch::Tensor>> sums;
  for (const bool during_backward : {true, false}) {
    torch::manual_seed(5);
    torch::nn::Sequential mlp(torch::nn::Linear(64, 256), torch::nn::ReLU(), torch::nn::Linear(256, 256),
                              torch::nn::ReLU(), torch::nn::Linear(256, 8));
    mlp->to(gpu);
    std::vector<torch::Tensor> parameters = mlp->parameters();
    GradientAllReducer reducer(parameters, world, /*bucket_bytes=*/64 << 10);
    ASSERT_TRUE(reducer.can_overlap());
    torch::manual_seed(100 + world.rank());
    const torch::Tensor input = torch::randn({32, 64}).to(gpu);
    if (during_backward) reducer.reduce_during_next_backward();
    mlp->forward(input).pow(2).sum().backward();
    reducer.allreduce_sum();
    if (during_backward) {
      EXPECT_EQ(reducer.buckets_reduced_during_backward(), static_cast<int64_t>(reducer.buckets().size()));
      EXPECT_TRUE(parameters[0].grad().is_alias_of(parameters[1].grad()) ||
                  reducer.buckets().size() == parameters.size());
    }
    std::vector<torch::Tensor> grads;
    for (const auto& p : parameters) grads.push_back(p.grad().cpu());
    sums.push_back(grads);
  }
  for (size_t i = 0; i < sums[0].size(); ++i) EXPECT_TRUE(torch::allclose(sums[0][i], sums[1][i])) << i;
}

}  // namespace
}  // namespace mlh

int main(int argc, char** argv) {
  // `--visible-gpus`: prints how many GPUs this process sees (tests/cuda/two_ranks.sh asks).
  if (argc == 2 && std::string(argv[1]) == "--visible-gpus") {
    std::printf("%d\n", mlh::visible_gpu_count());
    return 0;
  }
  mlh::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
