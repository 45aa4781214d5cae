#include "harness/mixed_precision.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "base/user_error.h"
#include "harness/libtorch_compat.h"
#include "harness/training_state.h"

namespace mlh {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Precision, ParsesTheFourNamesAndRejectsOthers) {
  EXPECT_EQ(parse_precision("fp32"), Precision::kFp32);
  EXPECT_EQ(parse_precision("fp32-strict"), Precision::kFp32Strict);
  EXPECT_EQ(parse_precision("amp"), Precision::kAmp);
  EXPECT_EQ(parse_precision("bf16"), Precision::kBf16);
  EXPECT_TRUE(is_fp32(Precision::kFp32));
  EXPECT_TRUE(is_fp32(Precision::kFp32Strict));
  EXPECT_FALSE(is_fp32(Precision::kAmp));
  try {
    parse_precision("fp16", "bench precision");
    FAIL() << "fp16 accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bench precision is 'fp16'; expected fp32, fp32-strict, amp or bf16"));
  }
}

TEST(Precision, SaysWhatAmpMeansOnEachDevice) {
  EXPECT_EQ(describe_precision(Precision::kFp32, torch::kCPU), "fp32");
  EXPECT_EQ(describe_precision(Precision::kAmp, torch::kCPU), "amp (bf16 autocast)");
  EXPECT_EQ(describe_precision(Precision::kAmp, torch::Device(torch::kCUDA, 0)), "amp (fp16 autocast + loss scaling)");
  EXPECT_EQ(describe_precision(Precision::kBf16, torch::Device(torch::kCUDA, 0)), "bf16 (bf16 autocast)");
  EXPECT_EQ(describe_precision(Precision::kBf16, torch::kCPU), "bf16 (bf16 autocast)");
}

PrecisionHardware cuda(int capability, bool tf32_enabled) {
  PrecisionHardware hardware;
  hardware.cuda = true;
  hardware.cuda_capability = capability;
  hardware.tf32_enabled = tf32_enabled;
  return hardware;
}

TEST(Precision, Fp32IsCalledTf32WhereTheGpuRanItOnTf32TensorCores) {
  const std::string tf32 = "tf32 (fp32 with TF32 tensor-core matrix products and convolutions)";
  EXPECT_EQ(describe_precision(Precision::kFp32, cuda(80, true)), tf32);
  EXPECT_EQ(describe_precision(Precision::kFp32, cuda(90, true)), tf32);
  EXPECT_TRUE(uses_tf32(tf32));
  // No TF32 before Ampere, with TF32 off, on the CPU, or when fp32-strict asked for none.
  EXPECT_EQ(describe_precision(Precision::kFp32, cuda(75, true)), "fp32");
  EXPECT_EQ(describe_precision(Precision::kFp32, cuda(90, false)), "fp32");
  PrecisionHardware cpu_with_flag_on;
  cpu_with_flag_on.tf32_enabled = true;
  EXPECT_EQ(describe_precision(Precision::kFp32, cpu_with_flag_on), "fp32");
  EXPECT_EQ(describe_precision(Precision::kFp32, torch::kCPU), "fp32");
  EXPECT_EQ(describe_precision(Precision::kFp32Strict, cuda(90, true)), "fp32");
  EXPECT_FALSE(uses_tf32("fp32"));
  // Autocast precisions keep their labels.
  EXPECT_EQ(describe_precision(Precision::kAmp, cuda(90, true)), "amp (fp16 autocast + loss scaling)");
}

// The flags are process-wide and settable without a GPU; fp32-strict clears them, fp32 keeps them.
TEST(Precision, Fp32StrictTurnsTf32Off) {
  const bool before = libtorch::cuda_tf32_enabled();
  libtorch::set_cuda_tf32(true);
  apply_precision_to_gpu_math(Precision::kFp32);
  EXPECT_TRUE(libtorch::cuda_tf32_enabled());
  apply_precision_to_gpu_math(Precision::kAmp);
  EXPECT_TRUE(libtorch::cuda_tf32_enabled());
  apply_precision_to_gpu_math(Precision::kFp32Strict);
  EXPECT_FALSE(libtorch::cuda_tf32_enabled());
  libtorch::set_cuda_tf32(before);
}

TEST(PrecisionNote, Fp32StrictIsNeverNoted) {
  EXPECT_EQ(precision_note(Precision::kFp32Strict, cuda(60, true)), "");
}

TEST(AutocastScope, Fp32StrictChangesNothing) {
  AutocastScope scope(Precision::kFp32Strict, torch::kCPU);
  EXPECT_FALSE(libtorch::autocast_enabled(false));
  EXPECT_EQ(torch::randn({2, 2}).mm(torch::randn({2, 2})).scalar_type(), torch::kFloat);
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

bool found_inf(const DynamicLossScaler& scaler) { return scaler.found_inf().item<float>() != 0; }

// One step's check and update on a gradient of `value` (inf or NaN: an overflow).
void check_and_update(DynamicLossScaler& scaler, float value) {
  scaler.unscale_gradients({parameter_with_gradient({value})});
  scaler.update();
}

TEST(DynamicLossScaler, ScalesTheLossAndUnscalesFiniteGradients) {
  DynamicLossScaler scaler(true, {1024.0, 2.0, 0.5, 2000});
  EXPECT_DOUBLE_EQ(scaler.scale_loss(torch::tensor(3.0)).item<double>(), 3072.0);
  torch::Tensor p = parameter_with_gradient({2048.0f, -512.0f});
  scaler.unscale_gradients({p});
  EXPECT_FALSE(found_inf(scaler));
  EXPECT_FLOAT_EQ(p.grad()[0].item<float>(), 2.0f);
  EXPECT_FLOAT_EQ(p.grad()[1].item<float>(), -0.5f);
}

TEST(DynamicLossScaler, AnOverflowSkipsTheStepAndHalvesTheScale) {
  DynamicLossScaler scaler(true, {1024.0, 2.0, 0.5, 2000});
  torch::Tensor fine = parameter_with_gradient({1.0f});
  torch::Tensor overflowed = parameter_with_gradient({std::numeric_limits<float>::infinity(), 1.0f});
  scaler.unscale_gradients({fine, overflowed});
  EXPECT_TRUE(found_inf(scaler));
  EXPECT_EQ(scaler.found_inf().sizes(), torch::IntArrayRef({1}));
  EXPECT_EQ(scaler.found_inf().scalar_type(), torch::kFloat);
  scaler.update();
  EXPECT_DOUBLE_EQ(scaler.scale(), 512.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  torch::Tensor nan = parameter_with_gradient({std::numeric_limits<float>::quiet_NaN()});
  scaler.unscale_gradients({nan});
  EXPECT_TRUE(found_inf(scaler));
  scaler.unscale_gradients({fine});
  EXPECT_FALSE(found_inf(scaler)) << "each check starts again";
}

TEST(DynamicLossScaler, GrowsAfterTheIntervalOfFiniteSteps) {
  DynamicLossScaler scaler(true, {8.0, 2.0, 0.5, 3});
  check_and_update(scaler, 1.0f);
  check_and_update(scaler, 1.0f);
  EXPECT_DOUBLE_EQ(scaler.scale(), 8.0);
  check_and_update(scaler, 1.0f);
  EXPECT_DOUBLE_EQ(scaler.scale(), 16.0);
  check_and_update(scaler, std::numeric_limits<float>::infinity());  // an overflow restarts the count
  check_and_update(scaler, 1.0f);
  check_and_update(scaler, 1.0f);
  EXPECT_DOUBLE_EQ(scaler.scale(), 8.0);
  check_and_update(scaler, 1.0f);
  EXPECT_DOUBLE_EQ(scaler.scale(), 16.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(DynamicLossScaler, NeverGrowsToInfinity) {
  DynamicLossScaler scaler(true, {std::numeric_limits<float>::max(), 2.0, 0.5, 1});
  check_and_update(scaler, 0.0f);
  EXPECT_DOUBLE_EQ(scaler.scale(), std::numeric_limits<float>::max());
}

TEST(DynamicLossScaler, UnscalesAndFindsOverflows) {
  DynamicLossScaler scaler(true, {4.0, 2.0, 0.5, 2000});
  torch::Tensor fine = parameter_with_gradient({8.0f});
  scaler.unscale_gradients({fine});
  EXPECT_FALSE(found_inf(scaler));
  EXPECT_FLOAT_EQ(fine.grad()[0].item<float>(), 2.0f);
  scaler.update();
  torch::Tensor overflowed = parameter_with_gradient({std::numeric_limits<float>::infinity()});
  scaler.unscale_gradients({overflowed});
  EXPECT_TRUE(found_inf(scaler));
  scaler.update();
  EXPECT_DOUBLE_EQ(scaler.scale(), 2.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

// No parameter has a gradient (a rank whose shard was empty, a frozen model): nothing to check,
// nothing found, and the kernel that rejects an empty list is not called.
TEST(DynamicLossScaler, NoGradientsFindNothing) {
  DynamicLossScaler scaler(true, {4.0, 2.0, 0.5, 2000});
  torch::Tensor without_gradient = torch::zeros({3}, torch::requires_grad());
  check_and_update(scaler, std::numeric_limits<float>::infinity());
  scaler.unscale_gradients({without_gradient});
  EXPECT_FALSE(found_inf(scaler));
  scaler.unscale_gradients({});
  EXPECT_FALSE(found_inf(scaler));
  scaler.update();
  EXPECT_DOUBLE_EQ(scaler.scale(), 2.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(DynamicLossScaler, CheckpointsItsScaleCountAndSkippedSteps) {
  DynamicLossScaler scaler(true, {8.0, 2.0, 0.5, 3});
  check_and_update(scaler, std::numeric_limits<float>::infinity());
  check_and_update(scaler, 1.0f);
  check_and_update(scaler, 1.0f);
  TrainingState state;
  scaler.save_state(state, "loss_scaler");
  DynamicLossScaler restored(true, {8.0, 2.0, 0.5, 3});
  restored.load_state(state, "loss_scaler");
  EXPECT_DOUBLE_EQ(restored.scale(), 4.0);
  EXPECT_EQ(restored.skipped_steps(), 1);
  check_and_update(restored, 1.0f);  // the third finite step in a row
  EXPECT_DOUBLE_EQ(restored.scale(), 8.0);
}

TEST(DynamicLossScaler, DisabledIsTheIdentity) {
  DynamicLossScaler scaler(false);
  EXPECT_DOUBLE_EQ(scaler.scale_loss(torch::tensor(3.0)).item<double>(), 3.0);
  torch::Tensor overflowed = parameter_with_gradient({std::numeric_limits<float>::infinity()});
  scaler.unscale_gradients({overflowed});
  EXPECT_FALSE(scaler.found_inf().defined());
  scaler.update();
  EXPECT_TRUE(std::isinf(overflowed.grad()[0].item<float>()));
  EXPECT_EQ(scaler.skipped_steps(), 0);
}

}  // namespace
}  // namespace mlh
