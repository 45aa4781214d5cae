// Run-length masks (datasets/coco/rle.h) by hand and against pycocotools' own answers (goldens made
// by tools/make_coco_mask_goldens.py): strings byte for byte, polygons pixel for pixel.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "datasets/coco/rle.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"
#include "tests/user_error_of.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;
using testing_files::contents_of;

const fs::path kGoldens = fs::path(test_paths::source_dir()) / "tests/datasets/data/coco_mask/rle_cases.json";

const nlohmann::json& goldens() {
  static const nlohmann::json cases = nlohmann::json::parse(contents_of(kGoldens));
  return cases;
}

RunLengthMask from_string(const std::string& text, int64_t height, int64_t width) {
  RunLengthMask mask{height, width, {}};
  const std::string problem = decode_rle_string(text, mask.counts);
  EXPECT_EQ(problem, "") << text;
  return mask;
}

std::array<double, 4> box_of(const nlohmann::json& value) { return value.get<std::array<double, 4>>(); }

// A column-major mask from rows written top to bottom ('#' set).
std::vector<uint8_t> column_major(const std::vector<std::string>& rows) {
  const size_t height = rows.size(), width = rows[0].size();
  std::vector<uint8_t> pixels(height * width);
  for (size_t r = 0; r < height; ++r) {
    for (size_t c = 0; c < width; ++c) pixels[c * height + r] = rows[r][c] == '#';
  }
  return pixels;
}

TEST(CocoRle, EncodesColumnByColumnStartingWithZeros) {
  const std::vector<uint8_t> pixels = column_major({"#..", "#.#", "..#"});
  const RunLengthMask mask = encode_column_major_mask(pixels.data(), 3, 3);
  EXPECT_EQ(mask.counts, (std::vector<uint32_t>{0, 2, 5, 2}));
  EXPECT_EQ(decode_to_column_major(mask), pixels);
  EXPECT_EQ(mask_area(mask), 4u);
  EXPECT_EQ(mask_box(mask), (std::array<double, 4>{0, 0, 3, 3}));
  const std::vector<uint8_t> rows = {1, 0, 0, 1, 0, 1, 0, 0, 1};  // the same mask, row by row
  EXPECT_EQ(encode_row_major_mask(rows.data(), 3, 3), mask);
  const RunLengthMask empty = encode_column_major_mask(nullptr, 0, 5);
  EXPECT_EQ(empty.counts, (std::vector<uint32_t>{0}));
  EXPECT_EQ(mask_box(empty), (std::array<double, 4>{0, 0, 0, 0}));
}

TEST(CocoRle, BoxOfARunCrossingColumnsSpansTheHeight) {
  // Pixels (row 2, column 0) and (row 0, column 1) form one run: pycocotools' box is then full height.
  const std::vector<uint8_t> pixels = column_major({".#", "..", "#."});
  EXPECT_EQ(mask_box(encode_column_major_mask(pixels.data(), 3, 2)), (std::array<double, 4>{0, 0, 2, 3}));
}

// pycocotools' rleToBbox, dividing for every run, written out here as a second opinion for
// mask_box, which divides only for runs of a column or more.
std::array<double, 4> box_dividing_every_run(const RunLengthMask& mask) {
  const size_t m = mask.counts.size() / 2 * 2;
  if (m == 0) return {0, 0, 0, 0};
  const uint32_t h = static_cast<uint32_t>(mask.height);
  uint32_t xs = static_cast<uint32_t>(mask.width), ys = h, xe = 0, ye = 0, cc = 0;
  for (size_t j = 0; j < m; ++j) {
    const uint32_t start = cc;
    cc += mask.counts[j];
    if (j % 2 == 0 || mask.counts[j] == 0) continue;
    const uint32_t y_start = start % h, x_start = (start - y_start) / h;
    const uint32_t y_end = (cc - 1) % h, x_end = (cc - 1 - y_end) / h;
    xs = std::min(xs, x_start);
    xe = std::max(xe, x_end);
    if (x_start < x_end) {
      ys = 0;
      ye = h - 1;
    } else {
      ys = std::min(ys, y_start);
      ye = std::max(ye, y_end);
    }
  }
  return {double(xs), double(ys), double(xe - xs + 1), double(ye - ys + 1)};
}

TEST(CocoRle, BoxEqualsDividingForEveryRunOnAnyCounts) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t height = 1 + static_cast<int64_t>(random() % 40), width = 1 + static_cast<int64_t>(random() % 40);
    RunLengthMask mask{height, width, {}};
    const int num_counts = static_cast<int>(random() % 12);
    for (int j = 0; j < num_counts; ++j) {
      // Short and long runs, empty ones, and (now and then) counts that wrap 32 bits.
      const uint32_t kind = random() % 10;
      mask.counts.push_back(kind == 0 ? 0u : kind == 1 ? UINT32_MAX - static_cast<uint32_t>(random() % 100)
                            : kind < 5 ? static_cast<uint32_t>(random() % (3 * height)) : static_cast<uint32_t>(random() % 4));
    }
    ASSERT_EQ(mask_box(mask), box_dividing_every_run(mask)) << "trial " << trial;
  }
}

TEST(CocoRle, StringFormWritesDifferencesFromTheThirdCount) {
  // 5 -> '5'; 2 -> '2'; 31 -> 0x1f has the sign bit 0x10 set, so two groups: 'o' (0x1f | 0x20, more
  // to come) and '0'; the fourth count 1 is written as 1 - 2 = -1 -> 0x1f -> 'O'.
  const std::vector<uint32_t> counts = {5, 2, 31, 1};
  EXPECT_EQ(encode_rle_string(counts), "52o0O");
  std::vector<uint32_t> back;
  EXPECT_EQ(decode_rle_string("52o0O", back), "");
  EXPECT_EQ(back, counts);
  EXPECT_NE(decode_rle_string("5~", back).find("outside '0'..'o'"), std::string::npos);
  EXPECT_NE(decode_rle_string("5o", back).find("ends inside a count"), std::string::npos);
  EXPECT_NE(decode_rle_string("00O", back), "");  // a third count of 0 - 1: negative
}

TEST(CocoRle, MergeAndIouFollowTheCrowdRule) {
  const std::vector<uint8_t> a_pixels = column_major({"##..", "##..", "...."});
  const std::vector<uint8_t> b_pixels = column_major({".##.", ".##.", ".##."});
  const RunLengthMask a = encode_column_major_mask(a_pixels.data(), 3, 4);
  const RunLengthMask b = encode_column_major_mask(b_pixels.data(), 3, 4);
  EXPECT_EQ(decode_to_column_major(merge_masks({&a, &b}, false)), column_major({"###.", "###.", ".##."}));
  EXPECT_EQ(decode_to_column_major(merge_masks({&a, &b}, true)), column_major({".#..", ".#..", "...."}));
  EXPECT_EQ(merge_masks({}, false).counts.size(), 0u);
  // a: 4 pixels, b: 6, both: 2. IoU 2/8; against b as crowd, 2 over a's 4.
  const std::vector<double> ious = mask_ious({a}, {b, b}, {false, true});
  EXPECT_DOUBLE_EQ(ious[0], 2.0 / 8.0);
  EXPECT_DOUBLE_EQ(ious[1], 2.0 / 4.0);
  const RunLengthMask other_size = encode_column_major_mask(a_pixels.data(), 4, 3);
  EXPECT_EQ(mask_ious({other_size}, {b}, {false})[0], -1);
}

TEST(CocoRle, PolygonOfAnAlignedSquareCoversItsPixels) {
  // The square from (1, 1) to (3, 3) covers pixels 1 and 2 of rows and columns.
  const RunLengthMask mask = polygon_to_mask({1, 1, 3, 1, 3, 3, 1, 3}, 5, 5);
  EXPECT_EQ(decode_to_column_major(mask), column_major({".....", ".##..", ".##..", ".....", "....."}));
  const std::string bad = user_error_of([] { polygon_to_mask({0, 0, std::nan(""), 1, 2, 2}, 4, 4); });
  EXPECT_NE(bad.find("not a finite number"), std::string::npos) << bad;
  EXPECT_NE(user_error_of([] { polygon_to_mask({0, 0, 1, 1, 2, 2}, 70000, 70000); }).find("2^32"), std::string::npos);
  EXPECT_EQ(polygons_to_mask({}, 2, 3).counts, (std::vector<uint32_t>{6}));
}

TEST(CocoRleGolden, PolygonsRasteriseAsPycocotoolsDoes) {
  const nlohmann::json& cases = goldens().at("polygons");
  ASSERT_GE(cases.size(), 30u);
  for (const nlohmann::json& c : cases) {
    const std::string name = c.at("name");
    const int64_t height = c.at("height"), width = c.at("width");
    const auto polygons = c.at("polygons").get<std::vector<std::vector<double>>>();
    const auto per_polygon = c.at("per_polygon").get<std::vector<std::string>>();
    ASSERT_EQ(polygons.size(), per_polygon.size()) << name;
    for (size_t p = 0; p < polygons.size(); ++p) {
      EXPECT_EQ(encode_rle_string(polygon_to_mask(polygons[p], height, width).counts), per_polygon[p]) << name << " part " << p;
    }
    const RunLengthMask merged = polygons_to_mask(polygons, height, width);
    EXPECT_EQ(encode_rle_string(merged.counts), c.at("merged").get<std::string>()) << name;
    EXPECT_EQ(merged.counts, c.at("merged_counts").get<std::vector<uint32_t>>()) << name;
    EXPECT_EQ(mask_area(merged), c.at("area").get<uint64_t>()) << name;
    EXPECT_EQ(mask_box(merged), box_of(c.at("bbox"))) << name;
  }
}

TEST(CocoRleGolden, EncodingsAndStringsAreByteEqual) {
  for (const nlohmann::json& c : goldens().at("encodings")) {
    const std::string name = c.at("name");
    const int64_t height = c.at("height"), width = c.at("width");
    const RunLengthMask mask{height, width, c.at("counts").get<std::vector<uint32_t>>()};
    EXPECT_EQ(encode_rle_string(mask.counts), c.at("string").get<std::string>()) << name;
    EXPECT_EQ(from_string(c.at("string"), height, width), mask) << name;
    // Decoding to pixels and encoding again gives pycocotools' counts.
    const std::vector<uint8_t> pixels = decode_to_column_major(mask);
    EXPECT_EQ(encode_column_major_mask(pixels.data(), height, width), mask) << name;
    EXPECT_EQ(mask_area(mask), c.at("area").get<uint64_t>()) << name;
    EXPECT_EQ(mask_box(mask), box_of(c.at("bbox"))) << name;
  }
}

TEST(CocoRleGolden, UncompressedCountsReadAsPycocotoolsReadsThem) {
  for (const nlohmann::json& c : goldens().at("uncompressed")) {
    const std::string name = c.at("name");
    const RunLengthMask mask{c.at("height"), c.at("width"), c.at("counts").get<std::vector<uint32_t>>()};
    EXPECT_EQ(encode_rle_string(mask.counts), c.at("string").get<std::string>()) << name;
    EXPECT_EQ(mask_area(mask), c.at("area").get<uint64_t>()) << name;
    EXPECT_EQ(mask_box(mask), box_of(c.at("bbox"))) << name;
  }
}

TEST(CocoRleGolden, MergesAreByteEqual) {
  for (const nlohmann::json& c : goldens().at("merges")) {
    const std::string name = c.at("name");
    const int64_t height = c.at("height"), width = c.at("width");
    std::vector<RunLengthMask> masks;
    for (const nlohmann::json& text : c.at("masks")) masks.push_back(from_string(text, height, width));
    std::vector<const RunLengthMask*> pointers;
    for (const RunLengthMask& mask : masks) pointers.push_back(&mask);
    EXPECT_EQ(encode_rle_string(merge_masks(pointers, false).counts), c.at("union").get<std::string>()) << name;
    EXPECT_EQ(encode_rle_string(merge_masks(pointers, true).counts), c.at("intersection").get<std::string>()) << name;
  }
}

TEST(CocoRleGolden, IousEqualPycocotools) {
  for (const nlohmann::json& c : goldens().at("ious")) {
    const std::string name = c.at("name");
    const int64_t height = c.at("height"), width = c.at("width");
    const auto masks_of = [&](const nlohmann::json& list) {
      std::vector<RunLengthMask> masks;
      for (const nlohmann::json& entry : list) {
        if (entry.is_string()) {
          masks.push_back(from_string(entry, height, width));
        } else {  // {"size": [h, w], "counts": "..."}: a mask of another size
          masks.push_back(from_string(entry.at("counts"), entry.at("size")[0], entry.at("size")[1]));
        }
      }
      return masks;
    };
    const std::vector<RunLengthMask> detections = masks_of(c.at("dt"));
    const std::vector<RunLengthMask> truths = masks_of(c.at("gt"));
    std::vector<bool> crowd;
    for (const nlohmann::json& flag : c.at("iscrowd")) crowd.push_back(flag.get<int>() != 0);
    const std::vector<double> ious = mask_ious(detections, truths, crowd);
    const nlohmann::json& expected = c.at("iou");
    if (detections.empty() || truths.empty()) {
      EXPECT_TRUE(expected.empty()) << name;
      continue;
    }
    ASSERT_EQ(expected.size(), detections.size()) << name;
    for (size_t d = 0; d < detections.size(); ++d) {
      for (size_t g = 0; g < truths.size(); ++g) {
        EXPECT_EQ(ious[d * truths.size() + g], expected[d][g].get<double>()) << name << " dt " << d << " gt " << g;
      }
    }
  }
}

}  // namespace
}  // namespace mlh::coco
