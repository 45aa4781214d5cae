// Mask R-CNN's mask targets and pasted masks (workloads/maskrcnn/mask_targets.h, mask_paste.h): hand
// cases whose answers follow from the contracts, and goldens computed with the MLPerf reference's own
// arithmetic in torch and pycocotools (tools/make_mask_paste_goldens.py wrote
// tests/workloads/data/maskrcnn_masks/goldens.json; RLE strings compared byte for byte).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "datasets/coco/annotations.h"
#include "datasets/coco/rle.h"
#include "tests/test_paths.h"
#include "tests/user_error_of.h"
#include "workloads/maskrcnn/mask_paste.h"
#include "workloads/maskrcnn/mask_targets.h"

namespace mlh::maskrcnn {
namespace {

constexpr int64_t M = kMaskSize;
using Box = std::array<float, 4>;

const nlohmann::json& goldens() {
  static const nlohmann::json document = [] {
    std::ifstream file(test_paths::source_dir() + "/tests/workloads/data/maskrcnn_masks/goldens.json");
    EXPECT_TRUE(file.good()) << "tests/workloads/data/maskrcnn_masks/goldens.json is missing";
    return file.good() ? nlohmann::json::parse(file) : nlohmann::json::object();
  }();
  return document;
}

coco::Segmentation polygons_object(const std::vector<std::vector<double>>& polygons) {
  coco::Segmentation object;
  object.kind = coco::Segmentation::Kind::kPolygons;
  object.polygons = polygons;
  return object;
}

std::vector<double> rectangle(double x1, double y1, double x2, double y2) { return {x1, y1, x2, y1, x2, y2, x1, y2}; }

// An M x M (or height x width) mask, row by row, set inside [left, right) x [top, bottom).
std::vector<uint8_t> block(int64_t height, int64_t width, int64_t left, int64_t top, int64_t right, int64_t bottom) {
  std::vector<uint8_t> pixels(static_cast<size_t>(height * width), 0);
  for (int64_t y = top; y < bottom; ++y)
    for (int64_t x = left; x < right; ++x) pixels[static_cast<size_t>(y * width + x)] = 1;
  return pixels;
}

std::string rle_string_of_rows(const std::vector<uint8_t>& rows, int64_t height, int64_t width) {
  return coco::encode_rle_string(coco::encode_row_major_mask(rows.data(), height, width).counts);
}

torch::Tensor boxes_tensor(const std::vector<Box>& boxes) {
  torch::Tensor tensor = torch::empty({static_cast<int64_t>(boxes.size()), 4}, torch::kFloat);
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t c = 0; c < 4; ++c) tensor[static_cast<int64_t>(i)][static_cast<int64_t>(c)] = boxes[i][c];
  return tensor;
}

Box box_of(const nlohmann::json& values) {
  return {values[0].get<float>(), values[1].get<float>(), values[2].get<float>(), values[3].get<float>()};
}

coco::RunLengthMask paste_one(const torch::Tensor& mask, const Box& box, int64_t height, int64_t width) {
  std::vector<coco::RunLengthMask> pasted = paste_masks(mask.unsqueeze(0), boxes_tensor({box}), height, width);
  EXPECT_EQ(pasted.size(), 1u);
  return pasted.empty() ? coco::RunLengthMask{} : pasted[0];
}

// ---- targets by hand ----

TEST(MaskRcnnMaskTargets, BoxAlignedSquareFillsTheTarget) {
  const std::vector<uint8_t> full(static_cast<size_t>(M * M), 1);
  EXPECT_EQ(mask_target(polygons_object({rectangle(10, 20, 38, 48)}), {10, 20, 38, 48}), full);  // scale 1
  EXPECT_EQ(mask_target(polygons_object({rectangle(4, 6, 60, 62)}), {4, 6, 60, 62}), full);      // scale 1/2
  EXPECT_EQ(mask_target(polygons_object({rectangle(4, 6, 60, 62)}), {4, 6, 60, 62}, 7),
            std::vector<uint8_t>(49, 1));
}

TEST(MaskRcnnMaskTargets, EachAxisHasItsOwnScale) {
  // A 56 x 28 box: x halves, y stays; the object is the box's left half, then its top quarter.
  EXPECT_EQ(mask_target(polygons_object({rectangle(100, 50, 128, 78)}), {100, 50, 156, 78}), block(M, M, 0, 0, 14, 28));
  EXPECT_EQ(mask_target(polygons_object({rectangle(100, 50, 156, 57)}), {100, 50, 156, 78}), block(M, M, 0, 0, 28, 7));
}

TEST(MaskRcnnMaskTargets, BoxUnderAPixelCountsAsOnePixel) {
  // Width 0.5 is raised to 1: x scales by 28, not 56, so the object's half-pixel fills half the target.
  EXPECT_EQ(mask_target(polygons_object({rectangle(10, 10, 10.5, 11)}), {10, 10, 10.5, 11}), block(M, M, 0, 0, 14, 28));
  // An inverted box counts as 1 x 1 from its (x1, y1) corner.
  EXPECT_EQ(mask_target(polygons_object({rectangle(20, 30, 20.25, 30.5)}), {20, 30, 19, 29}), block(M, M, 0, 0, 7, 14));
}

TEST(MaskRcnnMaskTargets, BoxIsNotClampedToTheImage) {
  // A box reaching left of and above the image: the crop shifts by its corner all the same.
  EXPECT_EQ(mask_target(polygons_object({rectangle(0, 0, 14, 28)}), {-14, -28, 14, 28}), block(M, M, 14, 14, 28, 28));
}

TEST(MaskRcnnMaskTargets, OnlyThePartInsideTheBoxCounts) {
  const std::vector<uint8_t> empty(static_cast<size_t>(M * M), 0);
  EXPECT_EQ(mask_target(polygons_object({rectangle(100, 100, 130, 130)}), {10, 10, 38, 38}), empty);
  // Two parts, one covering the box's right half, one outside: their union.
  EXPECT_EQ(mask_target(polygons_object({rectangle(24, 0, 60, 50), rectangle(200, 200, 230, 240)}), {10, 10, 38, 38}),
            block(M, M, 14, 0, 28, 28));
}

TEST(MaskRcnnMaskTargets, NoPolygonsGivesAnEmptyTargetAndRleIsAUserError) {
  EXPECT_EQ(mask_target(coco::Segmentation{}, {0, 0, 10, 10}), std::vector<uint8_t>(static_cast<size_t>(M * M), 0));
  coco::Segmentation crowd;
  crowd.kind = coco::Segmentation::Kind::kRle;
  crowd.rle = coco::RunLengthMask{4, 4, {16}};
  EXPECT_NE(user_error_of([&] { mask_target(crowd, {0, 0, 10, 10}); }).find("RLE"), std::string::npos);
  EXPECT_NE(user_error_of([&] { mask_targets({crowd}, torch::zeros({1}, torch::kLong), boxes_tensor({{0, 0, 1, 1}})); })
                .find("crowd"),
            std::string::npos);
}

TEST(MaskRcnnMaskTargets, BatchedTargetsFollowTheObjectIndex) {
  const std::vector<coco::Segmentation> objects = {polygons_object({rectangle(10, 20, 38, 48)}),
                                                   polygons_object({rectangle(100, 50, 128, 78)})};
  const torch::Tensor targets = mask_targets(objects, torch::tensor({1, 0, 1}, torch::kLong),
                                             boxes_tensor({{100, 50, 156, 78}, {10, 20, 38, 48}, {10, 20, 38, 48}}));
  ASSERT_EQ(targets.sizes(), (std::vector<int64_t>{3, M, M}));
  EXPECT_EQ(targets.scalar_type(), torch::kFloat);
  const torch::Tensor left_half = torch::zeros({M, M});
  left_half.narrow(1, 0, 14).fill_(1);
  EXPECT_TRUE(torch::equal(targets[0], left_half));
  EXPECT_TRUE(torch::equal(targets[1], torch::ones({M, M})));
  EXPECT_TRUE(torch::equal(targets[2], torch::zeros({M, M})));
  EXPECT_EQ(mask_targets(objects, torch::zeros({0}, torch::kLong), torch::zeros({0, 4})).sizes(),
            (std::vector<int64_t>{0, M, M}));
}

// ---- targets against the reference ----

TEST(MaskRcnnMaskTargets, EqualTheReferenceGoldens) {
  const nlohmann::json& cases = goldens().value("targets", nlohmann::json::array());
  ASSERT_GE(cases.size(), 100u) << "too few target goldens";
  ASSERT_EQ(goldens().value("mask_size", 0), M);
  std::vector<coco::Segmentation> objects;
  std::vector<Box> boxes;
  int64_t empty = 0, full = 0;
  for (const nlohmann::json& golden : cases) {
    const std::string name = golden.at("name");
    objects.push_back(polygons_object(golden.at("polygons").get<std::vector<std::vector<double>>>()));
    boxes.push_back(box_of(golden.at("box")));
    const std::vector<uint8_t> target = mask_target(objects.back(), boxes.back());
    EXPECT_EQ(rle_string_of_rows(target, M, M), golden.at("target").get<std::string>()) << name;
    const int64_t area = golden.at("area");
    empty += area == 0;
    full += area == M * M;
  }
  EXPECT_LT(empty + full, static_cast<int64_t>(cases.size()) / 4) << "goldens this plain test little";

  // All at once, in reverse order, through the batched function.
  const int64_t count = static_cast<int64_t>(cases.size());
  const torch::Tensor reversed = torch::arange(count - 1, -1, -1, torch::kLong);
  const torch::Tensor targets = mask_targets(objects, reversed, boxes_tensor(boxes).index_select(0, reversed));
  for (int64_t i = 0; i < count; ++i) {
    const torch::Tensor rows = targets[count - 1 - i].to(torch::kUInt8).contiguous();
    const std::vector<uint8_t> bytes(rows.data_ptr<uint8_t>(), rows.data_ptr<uint8_t>() + M * M);
    EXPECT_EQ(rle_string_of_rows(bytes, M, M), cases[static_cast<size_t>(i)].at("target").get<std::string>())
        << cases[static_cast<size_t>(i)].at("name").get<std::string>() << " (batched)";
  }
}

// ---- paste by hand ----

// A box whose expanded box is 30 x 30 pixels after the cast: (50, 30) +- 14.5 x 30/28 grown is
// (35.5 .. 64.5, 15.5 .. 44.5), so the int box is [35, 15, 64, 44] and the padded 30 x 30 mask lands
// unscaled: its 28 x 28 ones at columns 36..63 and rows 16..43.
const Box kUnscaled = {36.466667f, 16.466667f, 63.533333f, 43.533333f};

TEST(MaskRcnnMaskPaste, OnesUnscaledCoverTheBoxInsideThePadding) {
  EXPECT_TRUE(torch::equal(paste_boxes(boxes_tensor({kUnscaled}), M), torch::tensor({35, 15, 64, 44}, torch::kInt).view({1, 4})));
  const coco::RunLengthMask pasted = paste_one(torch::ones({M, M}), kUnscaled, 100, 120);
  EXPECT_EQ(pasted, coco::encode_row_major_mask(block(100, 120, 36, 16, 64, 44).data(), 100, 120));
  EXPECT_EQ(coco::mask_area(pasted), static_cast<uint64_t>(M * M));
}

TEST(MaskRcnnMaskPaste, OnesAreClippedToTheImage) {
  const coco::RunLengthMask pasted = paste_one(torch::ones({M, M}), kUnscaled, 40, 50);
  EXPECT_EQ(pasted, coco::encode_row_major_mask(block(40, 50, 36, 16, 50, 40).data(), 40, 50));
}

TEST(MaskRcnnMaskPaste, OnesDoubledKeepTheHalfPixelBorderOut) {
  // Int box [70, 20, 129, 79]: 60 x 60 from 30 x 30, output pixel j reads the padded mask at j/2 - 1/4,
  // above 0.5 for j in 2..57.
  const Box box = {72.466667f, 22.466667f, 127.533333f, 77.533333f};
  EXPECT_TRUE(torch::equal(paste_boxes(boxes_tensor({box}), M), torch::tensor({70, 20, 129, 79}, torch::kInt).view({1, 4})));
  const coco::RunLengthMask pasted = paste_one(torch::ones({M, M}), box, 160, 200);
  EXPECT_EQ(pasted, coco::encode_row_major_mask(block(160, 200, 72, 22, 128, 78).data(), 160, 200));
}

TEST(MaskRcnnMaskPaste, IntCastTruncatesTowardsZero) {
  // Centre (10.2, 13), half extents 10 x 30/28: x1 = -0.514 becomes 0 (not -1).
  EXPECT_TRUE(torch::equal(paste_boxes(boxes_tensor({{0.2f, 3, 20.2f, 23}}), M), torch::tensor({0, 2, 20, 23}, torch::kInt).view({1, 4})));
  // Padding 2 grows by 32/28: half extents 10 x 8/7 = 11.43 about (10, 10), so -1.43 becomes -1.
  PasteOptions two;
  two.padding = 2;
  EXPECT_TRUE(torch::equal(paste_boxes(boxes_tensor({{0, 0, 20, 20}}), M, two), torch::tensor({-1, -1, 21, 21}, torch::kInt).view({1, 4})));
}

TEST(MaskRcnnMaskPaste, ThresholdIsStrict) {
  // Unscaled, the padded mask's values land unchanged: 0.5 everywhere is not above 0.5.
  EXPECT_EQ(paste_one(torch::full({M, M}, 0.5f), kUnscaled, 100, 120), (coco::RunLengthMask{100, 120, {12000}}));
  PasteOptions lower;
  lower.threshold = 0.25f;
  EXPECT_EQ(paste_masks(torch::full({1, M, M}, 0.5f), boxes_tensor({kUnscaled}), 100, 120, lower)[0],
            coco::encode_row_major_mask(block(100, 120, 36, 16, 64, 44).data(), 100, 120));
}

TEST(MaskRcnnMaskPaste, ZerosPasteAnEmptyMask) {
  const coco::RunLengthMask pasted = paste_one(torch::zeros({M, M}), {5, 5, 25, 25}, 30, 40);
  EXPECT_EQ(pasted, (coco::RunLengthMask{30, 40, {1200}}));
}

TEST(MaskRcnnMaskPaste, BoxWhollyOutsideTheImagePastesNothing) {
  const torch::Tensor ones = torch::ones({4, M, M});
  const std::vector<coco::RunLengthMask> pasted = paste_masks(
      ones, boxes_tensor({{-80, 5, -50, 20}, {5, -90, 20, -40}, {70, 5, 90, 20}, {5, 60, 20, 100}}), 50, 60);
  ASSERT_EQ(pasted.size(), 4u);
  for (const coco::RunLengthMask& mask : pasted) EXPECT_EQ(mask, (coco::RunLengthMask{50, 60, {3000}}));
}

TEST(MaskRcnnMaskPaste, TakesMasksWithAChannelAndNoDetections) {
  const torch::Tensor masks = torch::rand({3, M, M}, torch::TensorOptions().dtype(torch::kFloat));
  const torch::Tensor boxes = boxes_tensor({{3, 4, 30, 40}, {0, 0, 59, 49}, {10.5f, 20.25f, 11, 21}});
  EXPECT_EQ(paste_masks(masks.unsqueeze(1), boxes, 50, 60), paste_masks(masks, boxes, 50, 60));
  EXPECT_EQ(paste_masks(masks.to(torch::kDouble), boxes, 50, 60), paste_masks(masks, boxes, 50, 60));
  EXPECT_TRUE(paste_masks(torch::zeros({0, M, M}), torch::zeros({0, 4}), 50, 60).empty());
}

TEST(MaskRcnnMaskPaste, ImageBeyondTheRleLimitIsAUserError) {
  EXPECT_NE(user_error_of([] { paste_masks(torch::ones({1, M, M}), boxes_tensor({{0, 0, 1, 1}}), 65536, 65536); })
                .find("2^32"),
            std::string::npos);
}

// ---- paste against the reference ----

torch::Tensor mask_of_hex(const std::string& hex) {
  EXPECT_EQ(hex.size(), static_cast<size_t>(8 * M * M));
  torch::Tensor mask = torch::zeros({M, M}, torch::kFloat);
  float* values = mask.data_ptr<float>();
  for (int64_t i = 0; i < M * M && static_cast<size_t>(8 * i + 8) <= hex.size(); ++i) {
    const uint32_t bits = static_cast<uint32_t>(std::stoul(hex.substr(static_cast<size_t>(8 * i), 8), nullptr, 16));
    std::memcpy(values + i, &bits, sizeof bits);
  }
  return mask;
}

TEST(MaskRcnnMaskPaste, EqualsTheReferenceGoldens) {
  const nlohmann::json paste = goldens().value("paste", nlohmann::json::object());
  const nlohmann::json& cases = paste.value("cases", nlohmann::json::array());
  ASSERT_GE(cases.size(), 50u) << "too few paste goldens";
  std::vector<torch::Tensor> masks;
  for (const nlohmann::json& hex : paste.at("masks")) masks.push_back(mask_of_hex(hex.get<std::string>()));
  int64_t nonempty = 0;
  for (const nlohmann::json& golden : cases) {
    const std::string name = golden.at("name");
    const Box box = box_of(golden.at("box"));
    const int64_t height = golden.at("image_height"), width = golden.at("image_width");
    const torch::Tensor int_box = paste_boxes(boxes_tensor({box}), M);
    EXPECT_EQ(std::vector<int32_t>(int_box.data_ptr<int32_t>(), int_box.data_ptr<int32_t>() + 4),
              golden.at("int_box").get<std::vector<int32_t>>())
        << name;
    const coco::RunLengthMask pasted = paste_one(masks.at(golden.at("mask").get<size_t>()), box, height, width);
    EXPECT_EQ(pasted.height, height) << name;
    EXPECT_EQ(pasted.width, width) << name;
    EXPECT_EQ(coco::encode_rle_string(pasted.counts), golden.at("counts").get<std::string>()) << name;
    EXPECT_EQ(coco::mask_area(pasted), golden.at("area").get<uint64_t>()) << name;
    nonempty += golden.at("area").get<uint64_t>() > 0;
  }
  EXPECT_GT(nonempty, static_cast<int64_t>(cases.size()) * 3 / 4);

  // The goldens of one image size in one call: the detections do not see each other.
  std::vector<torch::Tensor> batch;
  std::vector<Box> boxes;
  std::vector<std::string> expected;
  for (const nlohmann::json& golden : cases)
    if (golden.at("image_height") == 480 && golden.at("image_width") == 640) {
      batch.push_back(masks.at(golden.at("mask").get<size_t>()));
      boxes.push_back(box_of(golden.at("box")));
      expected.push_back(golden.at("counts"));
    }
  ASSERT_GE(batch.size(), 5u);
  const std::vector<coco::RunLengthMask> pasted = paste_masks(torch::stack(batch), boxes_tensor(boxes), 480, 640);
  ASSERT_EQ(pasted.size(), expected.size());
  for (size_t i = 0; i < pasted.size(); ++i) EXPECT_EQ(coco::encode_rle_string(pasted[i].counts), expected[i]) << "batch " << i;
}

}  // namespace
}  // namespace mlh::maskrcnn
