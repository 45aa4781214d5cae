// COCO's compressed RLE `counts` strings (datasets/coco/rle.h): the input is the string. Besides the
// contract (decode_rle_string reports bad text, nothing crashes or hangs), counts that decode must
// keep these properties:
// - encode_rle_string gives a string that decodes to the same counts; mask_area is at most their sum;
// - box, merge and IoU on the counts as they are (zero-length runs and any sum) finish without a
//   sanitizer report;
// - as a mask of height 1 + (first byte % 16) (1 where that does not divide the counts' sum) and
//   sum / height columns, for sums up to 2^20: the pixels decoded encode back to a mask of the same
//   pixels, the same counts where the input has no zero-length run after the first; the area is the
//   number of set pixels; the box of that mask is the set pixels' box; its union and intersection
//   with itself, with the input's counts and with its complement give the pixels they must; its IoU
//   with itself is 1 (crowd or not) when it has a set pixel, with its complement 0.
// Counts with zero-length runs are not held to the pixel properties when merged with themselves or
// boxed as they are: pycocotools' rleMerge stops where both masks meet a zero-length run at once (rle.h
// follows it), and rleToBbox's box of a zero-length run of 1s is no box of pixels. Nothing here throws
// (the sizes are small), so nothing is caught.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/coco/rle.h"
#include "fuzz/fuzz_input.h"

namespace {

using mlh::coco::RunLengthMask;

constexpr uint64_t kLargestPixels = uint64_t{1} << 20;

// pycocotools' box of a mask without zero-length runs after the first: the set pixels' box.
std::array<double, 4> box_of_pixels(const std::vector<uint8_t>& pixels, int64_t height, int64_t width) {
  int64_t x_start = width, y_start = height, x_end = -1, y_end = -1;
  for (int64_t x = 0; x < width; ++x) {
    for (int64_t y = 0; y < height; ++y) {
      if (pixels[static_cast<size_t>(x * height + y)] == 0) continue;
      x_start = std::min(x_start, x);
      x_end = std::max(x_end, x);
      y_start = std::min(y_start, y);
      y_end = std::max(y_end, y);
    }
  }
  if (x_end < 0) return {0, 0, 0, 0};
  return {static_cast<double>(x_start), static_cast<double>(y_start), static_cast<double>(x_end - x_start + 1),
          static_cast<double>(y_end - y_start + 1)};
}

std::vector<uint8_t> merged_pixels(const RunLengthMask& a, const RunLengthMask& b, bool intersect) {
  const RunLengthMask merged = mlh::coco::merge_masks({&a, &b}, intersect);
  MLH_FUZZ_EXPECT(merged.height == a.height && merged.width == a.width);
  return mlh::coco::decode_to_column_major(merged);
}

void check_as_image(const RunLengthMask& input, uint64_t sum) {
  const std::vector<uint8_t> pixels = mlh::coco::decode_to_column_major(input);
  MLH_FUZZ_EXPECT(pixels.size() == sum);
  uint64_t set = 0;
  std::vector<uint8_t> complement_pixels(pixels.size());
  for (size_t i = 0; i < pixels.size(); ++i) {
    MLH_FUZZ_EXPECT(pixels[i] <= 1);
    set += pixels[i];
    complement_pixels[i] = static_cast<uint8_t>(1 - pixels[i]);
  }
  MLH_FUZZ_EXPECT(mlh::coco::mask_area(input) == set);

  const RunLengthMask mask = mlh::coco::encode_column_major_mask(pixels.data(), input.height, input.width);
  MLH_FUZZ_EXPECT(mask.height == input.height && mask.width == input.width && !mask.counts.empty());
  bool input_has_zero_run = false;
  for (size_t j = 1; j < input.counts.size(); ++j) input_has_zero_run |= input.counts[j] == 0;
  for (size_t j = 1; j < mask.counts.size(); ++j) MLH_FUZZ_EXPECT(mask.counts[j] > 0);
  if (!input.counts.empty() && !input_has_zero_run) MLH_FUZZ_EXPECT(mask.counts == input.counts);
  MLH_FUZZ_EXPECT(mlh::coco::decode_to_column_major(mask) == pixels);
  MLH_FUZZ_EXPECT(mlh::coco::mask_area(mask) == set);

  const std::array<double, 4> box = mlh::coco::mask_box(mask);
  MLH_FUZZ_EXPECT(box == box_of_pixels(pixels, mask.height, mask.width));

  const RunLengthMask complement =
      mlh::coco::encode_column_major_mask(complement_pixels.data(), mask.height, mask.width);
  const std::vector<uint8_t> none(pixels.size(), 0), all(pixels.size(), 1);
  for (const bool intersect : {false, true}) {
    MLH_FUZZ_EXPECT(merged_pixels(mask, mask, intersect) == pixels);
    MLH_FUZZ_EXPECT(merged_pixels(mask, input, intersect) == pixels);
    MLH_FUZZ_EXPECT(merged_pixels(input, mask, intersect) == pixels);
    MLH_FUZZ_EXPECT(merged_pixels(mask, complement, intersect) == (intersect ? none : all));
    MLH_FUZZ_EXPECT(merged_pixels(input, complement, intersect) == (intersect ? none : all));
  }

  const std::array<double, 4> complement_box = mlh::coco::mask_box(complement);
  for (const bool crowd : {false, true}) {
    const double self = mlh::coco::mask_iou(mask, box, mask, box, crowd);
    MLH_FUZZ_EXPECT(self == (set > 0 ? 1.0 : 0.0));
    MLH_FUZZ_EXPECT(mlh::coco::mask_iou(mask, box, complement, complement_box, crowd) == 0.0);
    // The input's own box may be pycocotools' odd one (see above), so only 0 (boxes apart) or 1.
    const double with_input = mlh::coco::mask_iou(input, mlh::coco::mask_box(input), mask, box, crowd);
    MLH_FUZZ_EXPECT(with_input == 0.0 || (set > 0 && with_input == 1.0));
  }
  MLH_FUZZ_EXPECT(mlh::coco::mask_ious({mask}, {mask}, {false}) == std::vector<double>{set > 0 ? 1.0 : 0.0});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<uint32_t> counts;
  if (!mlh::coco::decode_rle_string(text, counts).empty()) return 0;

  const std::string encoded = mlh::coco::encode_rle_string(counts);
  std::vector<uint32_t> decoded;
  MLH_FUZZ_EXPECT(mlh::coco::decode_rle_string(encoded, decoded).empty());
  MLH_FUZZ_EXPECT(decoded == counts);
  MLH_FUZZ_EXPECT(encoded.size() <= text.size());

  uint64_t sum = 0;
  for (const uint32_t count : counts) sum += count;
  int64_t height = size > 0 ? 1 + data[0] % 16 : 1;
  if (sum % static_cast<uint64_t>(height) != 0) height = 1;
  const RunLengthMask input{height, static_cast<int64_t>(sum / static_cast<uint64_t>(height)), counts};
  MLH_FUZZ_EXPECT(mlh::coco::mask_area(input) <= sum);

  // The counts as they are, whatever their sum: pycocotools' answers, which need not be a mask's.
  const std::array<double, 4> box = mlh::coco::mask_box(input);
  for (const bool intersect : {false, true}) mlh::coco::merge_masks({&input, &input}, intersect);
  mlh::coco::mask_iou(input, box, input, box, false);

  if (sum <= kLargestPixels) check_as_image(input, sum);
  return 0;
}
