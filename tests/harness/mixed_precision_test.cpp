#include "harness/mixed_precision.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "base/user_error.h"

namespace mlh {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Precision, ParsesTheThreeNamesAndRejectsOthers) {
  EXPECT_EQ(parse_precision("fp32"), Precision::kFp32);
  EXPECT_EQ(parse_precision("amp"), Precision::kAmp);
  EXPECT_EQ(parse_precision("bf16"), Precision::kBf16);
  try {
    parse_precision("fp16", "bench precision");
    FAIL() << "fp16 accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bench precision is 'fp16'; expected fp32, amp or bf16"));
  }
}

TEST(Precision, SaysWhatAmpMeansOnEachDevice) {
  EXPECT_EQ(describe_precision(Precision::kFp32, torch::kCPU), "fp32");
  EXPECT_EQ(describe_precision(Precision::kAmp, torch::kCPU), "amp (bf16 autocast)");
  EXPECT_EQ(describe_precision(Precision::kAmp, torch::Device(torch::kCUDA, 0)), "amp (fp16 autocast + loss scaling)");
  EXPECT_EQ(describe_precision(Precision::kBf16, torch::Device(torch::kCUDA, 0)), "bf16 (bf16 autocast)");
  EXPECT_EQ(describe_precision(Precision::kBf16, torch::kCPU), "bf16 (bf16 autocast)");
}

PrecisionHardware cpu(bool bf16_instructions, const std::string& kernels) {
  PrecisionHardware hardware;
  hardware.device_model = "AMD EPYC";
  hardware.cpu_bf16_instructions = bf16_instructions;
  hardware.cpu_kernel_level = kernels;
  hardware.libtorch_version = "1.13.1";
  return hardware;
}

PrecisionHardware gpu(const std::string& model, int capability) {
  PrecisionHardware hardware;
  hardware.cuda = true;
  hardware.device_model = model;
  hardware.cuda_capability = capability;
  return hardware;
}

TEST(PrecisionNote, AmpOnACpuSaysItFallsBackToBf16AndWhyItIsSlow) {
  const std::string note = precision_note(Precision::kAmp, cpu(false, "AVX2"));
  EXPECT_THAT(note, HasSubstr("amp on the CPU is bf16 autocast without loss scaling"));
  EXPECT_THAT(note, HasSubstr("LibTorch 1.13.1 runs its CPU kernels at AVX2"));
  EXPECT_THAT(note, HasSubstr("this CPU has no bf16 instructions"));
  EXPECT_THAT(note, HasSubstr("mlharness bench --precision fp32,amp"));
  // bf16 instructions that LibTorch's AVX2 kernels do not use: still converted around each op.
  EXPECT_THAT(precision_note(Precision::kAmp, cpu(true, "AVX2")),
              AllOf(HasSubstr("runs its CPU kernels at AVX2"), Not(HasSubstr("no bf16 instructions"))));
  // Kernels that use them: only the fallback is worth saying.
  EXPECT_EQ(precision_note(Precision::kAmp, cpu(true, "AVX512")),
            "amp on the CPU is bf16 autocast without loss scaling (fp16 with loss scaling needs a GPU)");
  EXPECT_EQ(precision_note(Precision::kBf16, cpu(true, "AVX512")), "");
  EXPECT_THAT(precision_note(Precision::kBf16, cpu(false, "AVX512")), HasSubstr("bf16 on the CPU: LibTorch"));
}

TEST(PrecisionNote, GpusWithoutTheTensorCoresForThePrecision) {
  EXPECT_EQ(precision_note(Precision::kAmp, gpu("NVIDIA H200", 90)), "");
  EXPECT_EQ(precision_note(Precision::kAmp, gpu("Tesla T4", 75)), "");
  EXPECT_EQ(precision_note(Precision::kBf16, gpu("NVIDIA A100", 80)), "");
  EXPECT_THAT(precision_note(Precision::kBf16, gpu("Tesla T4", 75)), HasSubstr("bf16 on Tesla T4 (sm_75)"));
  EXPECT_THAT(precision_note(Precision::kAmp, gpu("Tesla P100", 60)), HasSubstr("Volta (sm_70)"));
}

TEST(PrecisionNote, Fp32IsNeverNoted) {
  EXPECT_EQ(precision_note(Precision::kFp32, cpu(false, "DEFAULT")), "");
  EXPECT_EQ(precision_note(Precision::kFp32, gpu("Tesla T4", 75)), "");
}

TEST(PrecisionHardware, ReadsThisMachinesCpu) {
  const PrecisionHardware hardware = precision_hardware(torch::kCPU);
  EXPECT_FALSE(hardware.cuda);
  EXPECT_FALSE(hardware.cpu_kernel_level.empty());  // at::show_config() names it
  EXPECT_THAT(hardware.libtorch_version, ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));  // "1.13.0", "2.11.0"
}

TEST(AutocastScope, Bf16ComputesMatmulsInBf16WithoutLossScaling) {
  torch::nn::Linear linear(8, 4);
  {
    AutocastScope scope(Precision::kBf16, torch::kCPU);
    EXPECT_EQ(linear->forward(torch::randn({2, 8})).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(DynamicLossScaler::needed(Precision::kBf16, torch::Device(torch::kCUDA, 0)));
}

TEST(AutocastScope, AmpOnCpuComputesMatmulsInBf16AndRestoresOnExit) {
  torch::nn::Linear linear(8, 4);
  const torch::Tensor x = torch::randn({2, 8});
  EXPECT_EQ(linear->forward(x).scalar_type(), torch::kFloat);
  {
    AutocastScope scope(Precision::kAmp, torch::kCPU);
    EXPECT_EQ(linear->forward(x).scalar_type(), torch::kBFloat16);
    {
      AutocastScope nested(Precision::kAmp, torch::kCPU);
      EXPECT_EQ(linear->forward(x).scalar_type(), torch::kBFloat16);
    }
    EXPECT_EQ(linear->forward(x).scalar_type(), torch::kBFloat16);  // the inner scope left it on
  }
  EXPECT_EQ(linear->forward(x).scalar_type(), torch::kFloat);
}

TEST(AutocastScope, Fp32ChangesNothing) {
  torch::nn::Linear linear(8, 4);
  AutocastScope scope(Precision::kFp32, torch::kCPU);
  EXPECT_EQ(linear->forward(torch::randn({2, 8})).scalar_type(), torch::kFloat);
}

TEST(DynamicLossScaler, NeededOnlyForAmpOnCuda) {
  EXPECT_FALSE(DynamicLossScaler::needed(Precision::kAmp, torch::kCPU));
  EXPECT_FALSE(DynamicLossScaler::needed(Precision::kFp32, torch::Device(torch::kCUDA, 0)));
  EXPECT_TRUE(DynamicLossScaler::needed(Precision::kAmp, torch::Device(torch::kCUDA, 0)));
}

// A parameter whose gradient is `grad`.
torch::Tensor parameter_with_gradient(std::vector<float> grad) {
  torch::Tensor p = torch::zeros({static_cast<int64_t>(grad.size())}, torch::requires_grad());
  p.mutable_grad() = torch::tensor(grad);
  return p;
}

TEST(DynamicLossScaler, ScalesTheLossAndUnscalesFiniteGradients) {
  DynamicLossScaler scaler(true, {1024.0, 2.0, 0.5, 2000});
  EXPECT_DOUBLE_EQ(scaler.scale_loss(torch::tensor(3.0)).item<double>(), 3072.0);
  torch::Tensor p = parameter_with_gradient({2048.0f, -512.0f});
  EXPECT_TRUE(scaler.unscale_gradients({p}));
  EXPECT_FLOAT_EQ(p.grad()[0].item<float>(), 2.0f);
  EXPECT_FLOAT_EQ(p.grad()[1].item<float>(), -0.5f);
}

TEST(DynamicLossScaler, AnOverflowSkipsTheStepAndHalvesTheScale) {
  DynamicLossScaler scaler(true, {1024.0, 2.0, 0.5, 2000});
  torch::Tensor fine = parameter_with_gradient({1.0f});
  torch::Tensor overflowed = parameter_with_gradient({std::numeric_limits<float>::infinity(), 1.0f});
  const bool finite = scaler.unscale_gradients({fine, overflowed});
  EXPECT_FALSE(finite);
  scaler.update(finite);
  EXPECT_DOUBLE_EQ(scaler.scale(), 512.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  torch::Tensor nan = parameter_with_gradient({std::numeric_limits<float>::quiet_NaN()});
  EXPECT_FALSE(scaler.unscale_gradients({nan}));
}

TEST(DynamicLossScaler, GrowsAfterTheIntervalOfFiniteSteps) {
  DynamicLossScaler scaler(true, {8.0, 2.0, 0.5, 3});
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 8.0);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 16.0);
  scaler.update(false);  // an overflow restarts the count
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 8.0);
}

TEST(DynamicLossScaler, UnscalesAndFindsOverflows) {
  DynamicLossScaler scaler(true, {4.0, 2.0, 0.5, 2000});
  torch::Tensor fine = parameter_with_gradient({8.0f});
  EXPECT_TRUE(scaler.unscale_gradients({fine}));
  EXPECT_FLOAT_EQ(fine.grad()[0].item<float>(), 2.0f);
  torch::Tensor overflowed = parameter_with_gradient({std::numeric_limits<float>::infinity()});
  EXPECT_FALSE(scaler.unscale_gradients({overflowed}));
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(DynamicLossScaler, DisabledIsTheIdentity) {
  DynamicLossScaler scaler(false);
  EXPECT_DOUBLE_EQ(scaler.scale_loss(torch::tensor(3.0)).item<double>(), 3.0);
  torch::Tensor overflowed = parameter_with_gradient({std::numeric_limits<float>::infinity()});
  EXPECT_TRUE(scaler.unscale_gradients({overflowed}));
  EXPECT_TRUE(std::isinf(overflowed.grad()[0].item<float>()));
}

}  // namespace
}  // namespace mlh
