// Mask R-CNN's ROIAlign and FPN pooler (workloads/maskrcnn/roi_align.h): hand cases whose answers follow
// from the contract, and goldens from torchvision.ops.roi_align (aligned=False) and the reference's
// LevelMapper / Pooler (tools/make_roi_align_goldens.py wrote
// tests/workloads/data/maskrcnn_roi_align/goldens.{json,bin}).
//
// Tolerance against the goldens: the sample weights are the reference's bit for bit, but the sums run
// in another order (embedding_bag against the kernel's loop; gradients accumulated by autograd rather
// than the kernel's atomic adds), each addition rounding by up to 2^-24. So |ours - golden| <= 1e-5 *
// |golden| + 1e-5 * max |golden over the tensor|: relative 1e-5, with elements that are sums of terms
// of mixed sign (near 0) judged on their tensor's scale. Levels are compared exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "tests/test_paths.h"
#include "workloads/maskrcnn/roi_align.h"

namespace mlh::maskrcnn {
namespace {

constexpr double kTolerance = 1e-5;

const nlohmann::json& goldens() {
  static const nlohmann::json document = [] {
    std::ifstream file(test_paths::source_dir() + "/tests/workloads/data/maskrcnn_roi_align/goldens.json");
    EXPECT_TRUE(file.good()) << "tests/workloads/data/maskrcnn_roi_align/goldens.json is missing";
    return file.good() ? nlohmann::json::parse(file) : nlohmann::json::object();
  }();
  return document;
}

const std::vector<float>& golden_floats() {
  static const std::vector<float> floats = [] {
    std::ifstream file(test_paths::source_dir() + "/tests/workloads/data/maskrcnn_roi_align/goldens.bin", std::ios::binary);
    EXPECT_TRUE(file.good()) << "tests/workloads/data/maskrcnn_roi_align/goldens.bin is missing";
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));  // little-endian hosts only
    return values;
  }();
  return floats;
}

torch::Tensor golden_array(const std::string& name) {
  const nlohmann::json& entry = goldens().at("arrays").at(name);
  const auto shape = entry.at("shape").get<std::vector<int64_t>>();
  const auto offset = entry.at("offset").get<size_t>();
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  EXPECT_LE(offset + static_cast<size_t>(count), golden_floats().size()) << name;
  return torch::from_blob(const_cast<float*>(golden_floats().data() + offset), shape, torch::kFloat).clone();
}

torch::Tensor rois_of(const nlohmann::json& rows) {
  std::vector<float> values;
  for (const nlohmann::json& row : rows)
    for (const nlohmann::json& value : row) values.push_back(value.get<float>());
  const int64_t columns = rows.empty() ? 5 : static_cast<int64_t>(rows[0].size());
  return torch::tensor(values).view({-1, columns});
}

void expect_close(const torch::Tensor& ours, const torch::Tensor& golden, const std::string& what) {
  ASSERT_EQ(ours.sizes(), golden.sizes()) << what;
  const torch::Tensor a = ours.detach().to(torch::kCPU, torch::kDouble), b = golden.to(torch::kDouble);
  const double scale = b.abs().max().item<double>();
  const torch::Tensor excess = (a - b).abs() - kTolerance * (b.abs() + scale);
  EXPECT_LE(excess.max().item<double>(), 0.0)
      << what << ": largest difference " << (a - b).abs().max().item<double>() << " on scale " << scale;
}

std::vector<torch::Device> devices() {
  std::vector<torch::Device> list = {torch::kCPU};
  if (torch::cuda::is_available()) list.emplace_back(torch::kCUDA);
  return list;
}

// ---- by hand ----

TEST(MaskRcnnRoiAlign, ConstantMapPoolsToTheConstant) {
  const torch::Tensor features = torch::full({2, 3, 10, 12}, 2.5f);
  // Boxes whose sample points all fall in [-1, H] x [-1, W]: inside, on the border, tiny, inverted.
  const torch::Tensor rois = torch::tensor({0.f, 0.f, 0.f, 48.f, 40.f, 1.f, 4.f, 8.f, 20.f, 16.f, 1.f, 10.f, 10.f,
                                            10.5f, 10.2f, 0.f, 30.f, 20.f, 25.f, 18.f, 0.f, -3.f, -2.f, 47.f, 39.f})
                                 .view({5, 5});
  for (int64_t output_size : {7, 14}) {
    const torch::Tensor pooled = roi_align(features, rois, output_size, 0.25, 2);
    ASSERT_EQ(pooled.sizes(), (std::vector<int64_t>{5, 3, output_size, output_size}));
    EXPECT_TRUE(torch::allclose(pooled, torch::full_like(pooled, 2.5f), 0, 1e-5)) << output_size;
  }
}

TEST(MaskRcnnRoiAlign, Bf16FeaturesPoolInFloatAndComeBackInBf16) {
  // Under autocast on the CPU the features are bf16, for which the CPU has no embedding_bag kernel.
  torch::manual_seed(5);
  const torch::Tensor features = torch::randn({1, 4, 16, 16});
  const torch::Tensor rois = torch::tensor({0.f, 4.f, 4.f, 40.f, 30.f}).view({1, 5});
  const torch::Tensor in_float = roi_align(features.to(torch::kBFloat16).to(torch::kFloat), rois, 7, 0.25, 2);
  const torch::Tensor in_bf16 = roi_align(features.to(torch::kBFloat16), rois, 7, 0.25, 2);
  EXPECT_EQ(in_bf16.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(in_bf16, in_float.to(torch::kBFloat16)));
}

TEST(MaskRcnnRoiAlign, RampPoolsToItsValuesAtTheBinCentres) {
  // f(y, x) = 2x + 3y + 1 is reproduced exactly by bilinear interpolation; a bin's 2 x 2 sub-bin
  // centres average to the bin's centre. Box (2, 3)..(16, 10) at scale 1: bins 2 wide, 1 high.
  const torch::Tensor xs = torch::arange(20, torch::kFloat).view({1, 20});
  const torch::Tensor ys = torch::arange(15, torch::kFloat).view({15, 1});
  const torch::Tensor ramp = (2 * xs + 3 * ys + 1).view({1, 1, 15, 20}).repeat({1, 2, 1, 1});
  const torch::Tensor pooled = roi_align(ramp, torch::tensor({0.f, 2.f, 3.f, 16.f, 10.f}).view({1, 5}), 7, 1.0, 2);
  const torch::Tensor centre_x = 2 + 2 * (torch::arange(7, torch::kFloat) + 0.5f);
  const torch::Tensor centre_y = 3 + (torch::arange(7, torch::kFloat) + 0.5f);
  const torch::Tensor expected = (2 * centre_x.view({1, 7}) + 3 * centre_y.view({7, 1}) + 1).expand({1, 2, 7, 7});
  EXPECT_TRUE(torch::allclose(pooled, expected, 0, 1e-5)) << pooled[0][0] << expected[0][0];
}

TEST(MaskRcnnRoiAlign, BorderClampsAndOutsideReadsZero) {
  // A 1 x 1 box at (-0.5, -0.5): every sample lies in [-1, 0), so reads pixel (0, 0).
  const torch::Tensor features = torch::arange(12, torch::kFloat).view({1, 1, 3, 4}) + 5;
  const torch::Tensor rois = torch::tensor({0.f, -1.f, -1.f, 0.f, 0.f, 0.f, 3.1f, 2.1f, 4.f, 3.f,
                                            0.f, -9.f, -9.f, -1.5f, -1.5f})
                                 .view({3, 5});
  const torch::Tensor pooled = roi_align(features, rois, 2, 1.0, 2);
  EXPECT_TRUE(torch::allclose(pooled[0], torch::full({1, 2, 2}, 5.f)));
  // Past the last column and row (x 3.1..4, y 2.1..3 on a 3 x 4 map) but within the margin: reads the
  // corner pixel, 16.
  EXPECT_TRUE(torch::allclose(pooled[1], torch::full({1, 2, 2}, 16.f))) << pooled[1];
  // Wholly beyond -1: zero.
  EXPECT_TRUE(torch::equal(pooled[2], torch::zeros({1, 2, 2})));
}

TEST(MaskRcnnRoiAlign, NoRoisGiveAnEmptyResult) {
  const torch::Tensor features = torch::randn({1, 4, 8, 8}, torch::requires_grad());
  const torch::Tensor pooled = roi_align(features, torch::zeros({0, 5}), 7, 0.25, 2);
  EXPECT_EQ(pooled.sizes(), (std::vector<int64_t>{0, 4, 7, 7}));
  const torch::Tensor multi = multi_level_roi_align({features, features.narrow(2, 0, 4).narrow(3, 0, 4)},
                                                    torch::zeros({0, 5}), 7, {0.25, 0.125}, 2);
  EXPECT_EQ(multi.sizes(), (std::vector<int64_t>{0, 4, 7, 7}));
}

TEST(MaskRcnnRoiAlign, PoolerPoolsEachRoiFromItsLevelInOrder) {
  torch::manual_seed(3);
  const std::vector<double> scales = {0.25, 0.125, 0.0625, 0.03125};
  std::vector<torch::Tensor> maps;
  for (double scale : scales) maps.push_back(torch::randn({2, 5, static_cast<int64_t>(256 * scale), static_cast<int64_t>(320 * scale)}));
  // Sizes 40, 150, 300, 600 (levels P2..P5), shuffled.
  const torch::Tensor rois = torch::tensor({1.f, 0.f, 0.f, 299.f, 299.f, 0.f, 10.f, 10.f, 49.f, 49.f,
                                            1.f, -100.f, -50.f, 499.f, 549.f, 0.f, 30.f, 20.f, 179.f, 169.f,
                                            0.f, 5.f, 5.f, 44.f, 44.f})
                                 .view({5, 5});
  const std::vector<int64_t> levels = {2, 0, 3, 1, 0};
  EXPECT_TRUE(torch::equal(fpn_levels(rois.narrow(1, 1, 4), 2, 5), torch::tensor(levels, torch::kLong)));
  const torch::Tensor pooled = multi_level_roi_align(maps, rois, 7, scales, 2);
  for (int64_t k = 0; k < 5; ++k) {
    const size_t level = static_cast<size_t>(levels[static_cast<size_t>(k)]);
    const torch::Tensor alone = roi_align(maps[level], rois.narrow(0, k, 1), 7, scales[level], 2);
    EXPECT_TRUE(torch::allclose(pooled.narrow(0, k, 1), alone, 0, 1e-6)) << "roi " << k;
  }
}

TEST(MaskRcnnRoiAlign, LevelsFollowTheReferenceFormula) {
  // sqrt(area) with the +1 convention: 112 is P3, just under is P2; 224 is P4; 448 is P5.
  const torch::Tensor boxes = torch::tensor({0.f, 0.f, 111.f, 111.f, 0.f, 0.f, 110.f, 111.f, 0.f, 0.f, 223.f, 223.f,
                                             0.f, 0.f, 447.f, 447.f, 0.f, 0.f, 10.f, 10.f, 0.f, 0.f, 4000.f, 4000.f})
                                  .view({6, 4});
  EXPECT_TRUE(torch::equal(fpn_levels(boxes, 2, 5), torch::tensor({1, 0, 2, 3, 0, 3}, torch::kLong)));
}

// ---- against the goldens ----

TEST(MaskRcnnRoiAlign, EqualsTorchvisionGoldens) {
  const nlohmann::json& cases = goldens().value("single", nlohmann::json::array());
  ASSERT_EQ(cases.size(), 5u);
  for (const torch::Device device : devices())
    for (const nlohmann::json& golden : cases) {
      const std::string name = golden.at("name").get<std::string>() + (device.is_cuda() ? " (CUDA)" : " (CPU)");
      const torch::Tensor features = golden_array(golden.at("features")).to(device).requires_grad_(true);
      const torch::Tensor rois = rois_of(golden.at("rois")).to(device);
      const torch::Tensor pooled = roi_align(features, rois, golden.at("output_size").get<int64_t>(),
                                             golden.at("spatial_scale").get<double>(),
                                             golden.at("sampling_ratio").get<int64_t>(), golden.at("aligned").get<bool>());
      expect_close(pooled, golden_array(golden.at("output")), name + " output");
      (pooled * golden_array(golden.at("weight")).to(device)).sum().backward();
      expect_close(features.grad(), golden_array(golden.at("grad")), name + " gradient");
    }
}

TEST(MaskRcnnRoiAlign, PoolerEqualsReferenceGoldens) {
  const nlohmann::json& cases = goldens().value("multi", nlohmann::json::array());
  ASSERT_EQ(cases.size(), 1u);
  for (const torch::Device device : devices())
    for (const nlohmann::json& golden : cases) {
      const std::string name = golden.at("name").get<std::string>() + (device.is_cuda() ? " (CUDA)" : " (CPU)");
      std::vector<torch::Tensor> maps;
      for (const nlohmann::json& map : golden.at("features"))
        maps.push_back(golden_array(map).to(device).requires_grad_(true));
      const torch::Tensor rois = rois_of(golden.at("rois")).to(device);
      EXPECT_TRUE(torch::equal(fpn_levels(rois.narrow(1, 1, 4), 2, 5).cpu(),
                               torch::tensor(golden.at("levels").get<std::vector<int64_t>>(), torch::kLong)))
          << name;
      const torch::Tensor pooled = multi_level_roi_align(maps, rois, golden.at("output_size").get<int64_t>(),
                                                         golden.at("scales").get<std::vector<double>>(),
                                                         golden.at("sampling_ratio").get<int64_t>());
      expect_close(pooled, golden_array(golden.at("output")), name + " output");
      (pooled * golden_array(golden.at("weight")).to(device)).sum().backward();
      for (size_t level = 0; level < maps.size(); ++level)
        expect_close(maps[level].grad(), golden_array(golden.at("grads")[level]),
                     name + " gradient P" + std::to_string(level + 2));
    }
}

TEST(MaskRcnnRoiAlign, LevelsEqualReferenceGoldens) {
  const nlohmann::json& golden = goldens().at("levels");
  const torch::Tensor boxes = rois_of(golden.at("boxes"));
  ASSERT_GE(boxes.size(0), 50);
  for (const torch::Device device : devices())
    EXPECT_TRUE(torch::equal(fpn_levels(boxes.to(device), golden.at("k_min"), golden.at("k_max")).cpu(),
                             torch::tensor(golden.at("levels").get<std::vector<int64_t>>(), torch::kLong)))
        << (device.is_cuda() ? "CUDA" : "CPU");
}

TEST(MaskRcnnRoiAlign, CudaCasesRunWhereAGpuIs) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the golden tests ran on the CPU only";
  SUCCEED();
}

}  // namespace
}  // namespace mlh::maskrcnn
