// COCO polygon segmentations rasterised as pycocotools does (datasets/coco/rle.h: polygon_to_mask,
// polygons_to_mask). Input: byte 0 the image height and byte 1 its width (1 + byte % 64 each); byte 2
// how the coordinates are written (bits 0-1) and into how many polygons they are cut (1 + bits 2-3 % 3);
// bytes 3 and 4 where the cuts fall (in 256ths of the coordinates); the rest the coordinates x0, y0,
// x1, y1, ... of all the polygons one after the other:
//   0: little-endian int16, scaled onto [-2, 3) times the image side (the points around and outside it);
//   1: little-endian float32; one within [-2, 3] times the side is taken as it is, one not finite or
//      beyond +-1e8 as it is (polygon_to_mask must reject it), any other wrapped onto [-2, 3) sides;
//   2: a byte a coordinate, in half pixels from -32 (the .5 ties of the rounding);
//   3: little-endian float64, as float32.
// Besides the contract (a coordinate that is not finite or beyond +-1e8 throws UserError, nothing
// else may throw, crash or hang), each mask must cover height * width pixels in runs of which only the
// first may be empty; survive the compressed string, and decoding and encoding again (by columns and by
// rows), unchanged; keep its pixels within a pixel of the polygon's box; be the same for the polygon
// walked backwards (pycocotools' walk is symmetric); and the polygons' union must be the union of
// their pixels.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "datasets/coco/rle.h"
#include "fuzz/fuzz_input.h"

namespace {

using mlh::coco::RunLengthMask;

constexpr double kLargestCoordinate = 1e8;  // rle.h: beyond it polygon_to_mask throws
constexpr size_t kHeaderBytes = 5;

bool is_rejected(double coordinate) { return !std::isfinite(coordinate) || std::fabs(coordinate) > kLargestCoordinate; }

// A float read from the input: kept where it is near the image or must be rejected, else wrapped near.
double near_image(double value, double side) {
  if (is_rejected(value) || (value >= -2 * side && value <= 3 * side)) return value;
  double wrapped = std::fmod(value + 2 * side, 5 * side);
  if (wrapped < 0) wrapped += 5 * side;
  return wrapped - 2 * side;
}

uint64_t little_endian(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return value;
}

// One coordinate read from `bytes`; `side` is the image's width for an x, its height for a y.
double coordinate(int encoding, const uint8_t* bytes, double side) {
  switch (encoding) {
    case 0: {
      const auto value = static_cast<int16_t>(static_cast<uint16_t>(little_endian(bytes, 2)));
      return side / 2 + value * (2.5 * side / 32768);
    }
    case 1: {
      const auto bits = static_cast<uint32_t>(little_endian(bytes, 4));
      float value;
      std::memcpy(&value, &bits, sizeof value);
      return near_image(value, side);
    }
    case 2: return bytes[0] / 2.0 - 32;
    default: {
      const uint64_t bits = little_endian(bytes, 8);
      double value;
      std::memcpy(&value, &bits, sizeof value);
      return near_image(value, side);
    }
  }
}

// What every mask from a polygon must be; returns its pixels, column by column.
std::vector<uint8_t> check_mask(const RunLengthMask& mask, int64_t height, int64_t width) {
  MLH_FUZZ_EXPECT(mask.height == height && mask.width == width && !mask.counts.empty());
  uint64_t sum = 0;
  for (const uint32_t count : mask.counts) sum += count;
  MLH_FUZZ_EXPECT(sum == static_cast<uint64_t>(height * width));
  for (size_t j = 1; j < mask.counts.size(); ++j) MLH_FUZZ_EXPECT(mask.counts[j] > 0);

  std::vector<uint32_t> decoded;
  MLH_FUZZ_EXPECT(mlh::coco::decode_rle_string(mlh::coco::encode_rle_string(mask.counts), decoded).empty());
  MLH_FUZZ_EXPECT(decoded == mask.counts);

  const std::vector<uint8_t> pixels = mlh::coco::decode_to_column_major(mask);
  MLH_FUZZ_EXPECT(pixels.size() == sum);
  MLH_FUZZ_EXPECT(mlh::coco::encode_column_major_mask(pixels.data(), height, width) == mask);
  std::vector<uint8_t> rows(pixels.size());
  for (int64_t x = 0; x < width; ++x) {
    for (int64_t y = 0; y < height; ++y) {
      rows[static_cast<size_t>(y * width + x)] = pixels[static_cast<size_t>(x * height + y)];
    }
  }
  MLH_FUZZ_EXPECT(mlh::coco::encode_row_major_mask(rows.data(), height, width) == mask);
  return pixels;
}

// Set pixels lie within a pixel of the polygon's box (the walk rounds to 1/5 pixel, then to pixels).
void check_within_box(const std::vector<uint8_t>& pixels, const std::vector<double>& xy, int64_t height,
                      int64_t width) {
  const size_t used = xy.size() / 2 * 2;
  double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
  for (size_t i = 0; i < used; i += 2) {
    x_min = std::min(x_min, xy[i]);
    x_max = std::max(x_max, xy[i]);
    y_min = std::min(y_min, xy[i + 1]);
    y_max = std::max(y_max, xy[i + 1]);
  }
  for (int64_t x = 0; x < width; ++x) {
    for (int64_t y = 0; y < height; ++y) {
      if (pixels[static_cast<size_t>(x * height + y)] == 0) continue;
      MLH_FUZZ_EXPECT(x >= std::floor(x_min) - 1 && x <= std::ceil(x_max) + 1);
      MLH_FUZZ_EXPECT(y >= std::floor(y_min) - 1 && y <= std::ceil(y_max) + 1);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderBytes) return 0;
  const int64_t height = 1 + data[0] % 64, width = 1 + data[1] % 64;
  const int encoding = data[2] & 3;
  const size_t num_polygons = 1 + ((data[2] >> 2) & 3) % 3;
  static constexpr size_t kBytesPerCoordinate[] = {2, 4, 1, 8};
  const size_t bytes_per_coordinate = kBytesPerCoordinate[encoding];
  const size_t num_coordinates = (size - kHeaderBytes) / bytes_per_coordinate;

  std::vector<size_t> ends;
  for (size_t i = 0; i + 1 < num_polygons; ++i) ends.push_back(num_coordinates * data[3 + i] / 256);
  ends.push_back(num_coordinates);
  std::sort(ends.begin(), ends.end());

  std::vector<std::vector<double>> polygons;
  bool any_rejected = false;
  for (size_t p = 0, begin = 0; p < ends.size(); begin = ends[p++]) {
    std::vector<double>& xy = polygons.emplace_back();
    for (size_t i = begin; i < ends[p]; ++i) {
      const double side = static_cast<double>(xy.size() % 2 == 0 ? width : height);
      xy.push_back(coordinate(encoding, data + kHeaderBytes + i * bytes_per_coordinate, side));
    }
    bool rejected = false;
    for (size_t i = 0; i < xy.size() / 2 * 2; ++i) rejected |= is_rejected(xy[i]);
    any_rejected |= rejected;

    RunLengthMask mask;
    try {
      mask = mlh::coco::polygon_to_mask(xy, height, width);
    } catch (const mlh::UserError&) {
      MLH_FUZZ_EXPECT(rejected);
      continue;
    }
    MLH_FUZZ_EXPECT(!rejected);
    const std::vector<uint8_t> pixels = check_mask(mask, height, width);
    check_within_box(pixels, xy, height, width);

    // The same points from the first one backwards: the same walk, backwards, the same mask.
    std::vector<double> backwards;
    const size_t num_points = xy.size() / 2;
    for (size_t j = 0; j < num_points; ++j) {
      const size_t point = (num_points - j) % num_points;
      backwards.push_back(xy[2 * point]);
      backwards.push_back(xy[2 * point + 1]);
    }
    MLH_FUZZ_EXPECT(mlh::coco::polygon_to_mask(backwards, height, width) == mask);
  }

  RunLengthMask union_mask;
  try {
    union_mask = mlh::coco::polygons_to_mask(polygons, height, width);
  } catch (const mlh::UserError&) {
    MLH_FUZZ_EXPECT(any_rejected);
    return 0;
  }
  MLH_FUZZ_EXPECT(!any_rejected);
  const std::vector<uint8_t> union_pixels = check_mask(union_mask, height, width);
  std::vector<uint8_t> expected(union_pixels.size(), 0);
  for (const std::vector<double>& xy : polygons) {
    const std::vector<uint8_t> part = mlh::coco::decode_to_column_major(mlh::coco::polygon_to_mask(xy, height, width));
    for (size_t i = 0; i < part.size(); ++i) expected[i] |= part[i];
  }
  MLH_FUZZ_EXPECT(union_pixels == expected);
  if (polygons.size() == 1) MLH_FUZZ_EXPECT(union_mask == mlh::coco::polygon_to_mask(polygons[0], height, width));
  MLH_FUZZ_EXPECT(mlh::coco::polygons_to_mask({}, height, width) ==
                  (RunLengthMask{height, width, {static_cast<uint32_t>(height * width)}}));
  return 0;
}
