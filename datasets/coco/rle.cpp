// Follows maskApi.c of the COCO API operation for operation where the result depends on it: the
// polygon walk's rounding (C's truncating casts of x + .5), the 32-bit unsigned run arithmetic, the
// order in which merges emit runs. Compiled with -ffp-contract=off (datasets/CMakeLists.txt).
#include "datasets/coco/rle.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/user_error.h"

namespace mlh::coco {
namespace {

constexpr double kPolygonUpsampling = 5;  // maskApi.c's `scale`
constexpr double kLargestCoordinate = 1e8;

void require_size(int64_t height, int64_t width, const char* what) {
  if (height < 0 || width < 0 ||
      static_cast<uint64_t>(height) * static_cast<uint64_t>(width) > std::numeric_limits<uint32_t>::max()) {
    throw UserError(std::string(what) + ": a mask of " + std::to_string(height) + " x " + std::to_string(width) +
                    " pixels is outside 0 .. 2^32-1 pixels");
  }
}

// The walk over two masks' runs that merge and IoU share, step for step as maskApi.c takes it: each
// step covers the shorter of the two runs left, then moves past whichever ended. Calls
// visit(length, a_set, b_set, a_set_next, b_set_next, last): the values over the step (IoU counts
// with these), the values after it (merge emits with these), and whether both masks are done.
template <typename Visit>
void walk_runs(const std::vector<uint32_t>& a_counts, const std::vector<uint32_t>& b_counts, Visit&& visit) {
  uint32_t a_left = a_counts[0], b_left = b_counts[0];
  size_t a = 1, b = 1;
  bool a_set = false, b_set = false;
  bool more = true;
  while (more) {
    const uint32_t length = std::min(a_left, b_left);
    // Counts that do not cover height x width: maskApi.c would loop forever once one side ran out.
    if (length == 0 && ((a_left == 0 && a == a_counts.size()) || (b_left == 0 && b == b_counts.size()))) break;
    const bool was_a_set = a_set, was_b_set = b_set;
    uint32_t remaining = 0;
    a_left -= length;
    if (a_left == 0 && a < a_counts.size()) {
      a_left = a_counts[a++];
      a_set = !a_set;
    }
    remaining += a_left;
    b_left -= length;
    if (b_left == 0 && b < b_counts.size()) {
      b_left = b_counts[b++];
      b_set = !b_set;
    }
    remaining += b_left;
    more = remaining > 0;
    visit(length, was_a_set, was_b_set, a_set, b_set, !more);
  }
}

// One point of the 5x outline walk; rleFrPoly keeps a point where the walk moves to another column.
struct WalkPoint {
  int u, v;
};

// Streams rleFrPoly's upsampled outline points and keeps the y-boundary crossings as run starts
// (x * height + y), as its second loop does.
class OutlineCrossings {
 public:
  OutlineCrossings(int64_t height, int64_t width, std::vector<uint32_t>& starts)
      : height_(height), width_(width), starts_(starts) {}

  void add(WalkPoint point) {
    if (has_previous_ && point.u != previous_.u) {
      double xd = point.u < previous_.u ? point.u : point.u - 1;
      xd = (xd + .5) / kPolygonUpsampling - .5;
      if (std::floor(xd) == xd && xd >= 0 && xd <= static_cast<double>(width_ - 1)) {
        double yd = point.v < previous_.v ? point.v : previous_.v;
        yd = (yd + .5) / kPolygonUpsampling - .5;
        if (yd < 0) {
          yd = 0;
        } else if (yd > static_cast<double>(height_)) {
          yd = static_cast<double>(height_);
        }
        yd = std::ceil(yd);
        // maskApi.c multiplies in int and lets it wrap to uint; int64 gives the same value mod 2^32.
        starts_.push_back(static_cast<uint32_t>(static_cast<int64_t>(xd) * height_ + static_cast<int64_t>(yd)));
      }
    }
    previous_ = point;
    has_previous_ = true;
  }

 private:
  int64_t height_, width_;
  std::vector<uint32_t>& starts_;
  WalkPoint previous_{0, 0};
  bool has_previous_ = false;
};

// One edge of the upsampled outline, from (xs, ys) to (xe, ye), point by point in walk order.
void walk_edge(int xs, int ys, int xe, int ye, OutlineCrossings& crossings) {
  const int dx = std::abs(xe - xs), dy = std::abs(ys - ye);
  if (dx == 0 && dy == 0) {  // maskApi.c divides 0 by 0 here; its one point is the start
    crossings.add({xs, ys});
    return;
  }
  const bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
  if (flip) {
    std::swap(xs, xe);
    std::swap(ys, ye);
  }
  if (dx >= dy) {
    const double slope = static_cast<double>(ye - ys) / dx;
    for (int d = 0; d <= dx; ++d) {
      const int t = flip ? dx - d : d;
      crossings.add({t + xs, static_cast<int>(ys + slope * t + .5)});
    }
  } else {
    const double slope = static_cast<double>(xe - xs) / dy;
    for (int d = 0; d <= dy; ++d) {
      const int t = flip ? dy - d : d;
      crossings.add({static_cast<int>(xs + slope * t + .5), t + ys});
    }
  }
}

int upsampled(double coordinate) {
  if (!std::isfinite(coordinate) || std::fabs(coordinate) > kLargestCoordinate) {
    throw UserError("polygon coordinate " + std::to_string(coordinate) + " is not a finite number within +-1e8");
  }
  return static_cast<int>(kPolygonUpsampling * coordinate + .5);
}

}  // namespace

RunLengthMask encode_column_major_mask(const uint8_t* pixels, int64_t height, int64_t width) {
  require_size(height, width, "encode_column_major_mask");
  RunLengthWriter runs;
  const int64_t size = height * width;
  for (int64_t i = 0; i < size; ++i) runs.add(pixels[i] != 0, 1);
  return {height, width, runs.finish()};
}

RunLengthMask encode_row_major_mask(const uint8_t* pixels, int64_t height, int64_t width) {
  require_size(height, width, "encode_row_major_mask");
  RunLengthWriter runs;
  for (int64_t column = 0; column < width; ++column) {
    for (int64_t row = 0; row < height; ++row) runs.add(pixels[row * width + column] != 0, 1);
  }
  return {height, width, runs.finish()};
}

std::vector<uint8_t> decode_to_column_major(const RunLengthMask& mask) {
  require_size(mask.height, mask.width, "decode_to_column_major");
  std::vector<uint8_t> pixels(static_cast<size_t>(mask.height * mask.width), 0);
  size_t position = 0;
  bool value = false;
  for (uint32_t count : mask.counts) {
    const size_t end = std::min(pixels.size(), position + count);
    if (value) std::fill(pixels.begin() + static_cast<std::ptrdiff_t>(position), pixels.begin() + static_cast<std::ptrdiff_t>(end), 1);
    position = end;
    value = !value;
  }
  return pixels;
}

std::string encode_rle_string(const std::vector<uint32_t>& counts) {
  std::string text;
  text.reserve(counts.size() * 2);
  for (size_t i = 0; i < counts.size(); ++i) {
    int64_t value = counts[i];
    if (i > 2) value -= counts[i - 2];
    bool more = true;
    while (more) {
      int group = static_cast<int>(value & 0x1f);
      value >>= 5;  // arithmetic: negative differences end in -1
      more = (group & 0x10) != 0 ? value != -1 : value != 0;
      if (more) group |= 0x20;
      text.push_back(static_cast<char>(group + 48));
    }
  }
  return text;
}

std::string decode_rle_string(const std::string& text, std::vector<uint32_t>& counts) {
  counts.clear();
  counts.reserve(text.size() / 2 + 1);
  size_t position = 0;
  while (position < text.size()) {
    int64_t value = 0;
    int shift = 0;
    bool more = true;
    while (more) {
      if (position >= text.size()) return "ends inside a count";
      const int code = static_cast<unsigned char>(text[position]) - 48;
      if (code < 0 || code > 63) {
        return "character '" + std::string(1, text[position]) + "' at offset " + std::to_string(position) +
               " is outside '0'..'o'";
      }
      if (shift > 55) return "count at offset " + std::to_string(position) + " is too long";
      value |= static_cast<int64_t>(code & 0x1f) << shift;
      shift += 5;
      more = (code & 0x20) != 0;
      ++position;
      if (!more && (code & 0x10) != 0) value |= -(int64_t{1} << shift);
    }
    if (counts.size() > 2) value += counts[counts.size() - 2];
    if (value < 0 || value > std::numeric_limits<uint32_t>::max()) {
      return "count " + std::to_string(counts.size()) + " decodes to " + std::to_string(value) + ", outside 0..2^32-1";
    }
    counts.push_back(static_cast<uint32_t>(value));
  }
  return "";
}

uint64_t mask_area(const RunLengthMask& mask) {
  uint64_t area = 0;
  for (size_t j = 1; j < mask.counts.size(); j += 2) area += mask.counts[j];
  return area;
}

std::array<double, 4> mask_box(const RunLengthMask& mask) {
  const size_t num_counts = mask.counts.size() / 2 * 2;
  if (num_counts == 0 || mask.height <= 0) return {0, 0, 0, 0};
  const uint32_t height = static_cast<uint32_t>(mask.height);
  uint32_t x_start = static_cast<uint32_t>(mask.width), y_start = height, x_end = 0, y_end = 0;
  // The pixel where the next run starts, `covered` (uint32, wrapping as pycocotools' does), kept as
  // column = covered / height and row = covered % height; divides only for runs of a column or more.
  uint32_t covered = 0, column = 0, row = 0;
  const auto advance = [&](uint32_t count) {
    const uint32_t before = covered;
    covered += count;
    const uint64_t next_row = uint64_t{row} + count;
    if (covered >= before && next_row < height) {
      row = static_cast<uint32_t>(next_row);
    } else if (covered >= before && next_row < 2 * uint64_t{height}) {
      row = static_cast<uint32_t>(next_row - height);
      column += 1;
    } else {
      row = covered % height;
      column = (covered - row) / height;
    }
  };
  for (size_t j = 0; j < num_counts; ++j) {
    const uint32_t count = mask.counts[j];
    if (j % 2 == 0 || count == 0) {  // a run of 0s, or an empty run of 1s
      advance(count);
      continue;
    }
    const uint32_t first_row = row, first_column = column;
    advance(count);
    // The run's last pixel, covered - 1.
    uint32_t last_row = row - 1, last_column = column;
    if (covered == 0) {
      last_row = UINT32_MAX % height;
      last_column = (UINT32_MAX - last_row) / height;
    } else if (row == 0) {
      last_row = height - 1;
      last_column = column - 1;
    }
    x_start = std::min(x_start, first_column);
    x_end = std::max(x_end, last_column);
    if (first_column < last_column) {  // the run continues into the next column: every row is touched
      y_start = 0;
      y_end = height - 1;
    } else {
      y_start = std::min(y_start, first_row);
      y_end = std::max(y_end, last_row);
    }
  }
  // Unsigned, as pycocotools: counts whose runs of 1s are all empty give a wrapped width and height.
  return {static_cast<double>(x_start), static_cast<double>(y_start), static_cast<double>(x_end - x_start + 1),
          static_cast<double>(y_end - y_start + 1)};
}

RunLengthMask merge_masks(const std::vector<const RunLengthMask*>& masks, bool intersect) {
  if (masks.empty()) return {};
  RunLengthMask merged = *masks[0];
  std::vector<uint32_t> next;
  for (size_t i = 1; i < masks.size(); ++i) {
    const RunLengthMask& other = *masks[i];
    if (other.height != merged.height || other.width != merged.width) return {};
    // maskApi.c reads the first count of each mask; one without counts (no mask) covers nothing here.
    if (other.counts.empty()) {
      if (intersect) merged.counts.clear();
      continue;
    }
    if (merged.counts.empty()) {
      if (!intersect) merged.counts = other.counts;
      continue;
    }
    next.clear();
    uint32_t run = 0;
    bool value = false;
    walk_runs(merged.counts, other.counts,
              [&](uint32_t length, bool, bool, bool a_set, bool b_set, bool last) {
                run += length;
                const bool previous = value;
                value = intersect ? (a_set && b_set) : (a_set || b_set);
                if (value != previous || last) {
                  next.push_back(run);
                  run = 0;
                }
              });
    merged.counts.swap(next);
  }
  return merged;
}

double box_iou(const std::array<double, 4>& detection_box, const std::array<double, 4>& ground_truth_box, bool crowd) {
  const double w = std::fmin(detection_box[2] + detection_box[0], ground_truth_box[2] + ground_truth_box[0]) -
                   std::fmax(detection_box[0], ground_truth_box[0]);
  if (w <= 0) return 0;
  const double h = std::fmin(detection_box[3] + detection_box[1], ground_truth_box[3] + ground_truth_box[1]) -
                   std::fmax(detection_box[1], ground_truth_box[1]);
  if (h <= 0) return 0;
  const double detection_area = detection_box[2] * detection_box[3];
  const double intersection = w * h;
  const double union_area =
      crowd ? detection_area : detection_area + ground_truth_box[2] * ground_truth_box[3] - intersection;
  return intersection / union_area;
}

double mask_iou(const RunLengthMask& detection, const std::array<double, 4>& detection_box,
                const RunLengthMask& ground_truth, const std::array<double, 4>& ground_truth_box, bool crowd) {
  // The boxes first, as rleIou does; only pairs whose boxes overlap walk the runs.
  if (!(box_iou(detection_box, ground_truth_box, crowd) > 0)) return 0;
  if (detection.height != ground_truth.height || detection.width != ground_truth.width) return -1;
  if (detection.counts.empty() || ground_truth.counts.empty()) return 0;
  uint32_t intersection = 0, union_area = 0;
  walk_runs(detection.counts, ground_truth.counts,
            [&](uint32_t length, bool a_set, bool b_set, bool, bool, bool) {
              if (a_set || b_set) {
                union_area += length;
                if (a_set && b_set) intersection += length;
              }
            });
  if (intersection == 0) {
    union_area = 1;
  } else if (crowd) {
    union_area = static_cast<uint32_t>(mask_area(detection));
  }
  return static_cast<double>(intersection) / static_cast<double>(union_area);
}

std::vector<double> mask_ious(const std::vector<RunLengthMask>& detections,
                              const std::vector<RunLengthMask>& ground_truths, const std::vector<bool>& crowd) {
  std::vector<std::array<double, 4>> ground_truth_boxes;
  ground_truth_boxes.reserve(ground_truths.size());
  for (const RunLengthMask& truth : ground_truths) ground_truth_boxes.push_back(mask_box(truth));
  std::vector<double> ious(detections.size() * ground_truths.size());
  for (size_t d = 0; d < detections.size(); ++d) {
    const std::array<double, 4> detection_box = mask_box(detections[d]);
    for (size_t g = 0; g < ground_truths.size(); ++g) {
      ious[d * ground_truths.size() + g] = mask_iou(detections[d], detection_box, ground_truths[g],
                                                    ground_truth_boxes[g], g < crowd.size() && crowd[g]);
    }
  }
  return ious;
}

RunLengthMask polygon_to_mask(const std::vector<double>& xy, int64_t height, int64_t width) {
  require_size(height, width, "polygon_to_mask");
  const size_t num_points = xy.size() / 2;
  std::vector<int> x(num_points + 1), y(num_points + 1);
  for (size_t j = 0; j < num_points; ++j) {
    x[j] = upsampled(xy[2 * j]);
    y[j] = upsampled(xy[2 * j + 1]);
  }
  RunLengthMask mask{height, width, {}};
  if (num_points == 0) {  // maskApi.c reads x[0] of an empty array here; an empty polygon covers nothing
    mask.counts.push_back(static_cast<uint32_t>(height * width));
    return mask;
  }
  x[num_points] = x[0];
  y[num_points] = y[0];

  std::vector<uint32_t> starts;
  OutlineCrossings crossings(height, width, starts);
  for (size_t j = 0; j < num_points; ++j) walk_edge(x[j], y[j], x[j + 1], y[j + 1], crossings);

  // The crossings, sorted, are where the mask toggles; differences are the runs, and a zero-length
  // run joins its neighbours (two crossings at one pixel cancel).
  starts.push_back(static_cast<uint32_t>(height * width));
  std::sort(starts.begin(), starts.end());
  uint32_t previous = 0;
  for (uint32_t& start : starts) {
    const uint32_t here = start;
    start -= previous;
    previous = here;
  }
  mask.counts.push_back(starts[0]);
  for (size_t j = 1; j < starts.size();) {
    if (starts[j] > 0) {
      mask.counts.push_back(starts[j++]);
    } else {
      ++j;
      if (j < starts.size()) mask.counts.back() += starts[j++];
    }
  }
  return mask;
}

RunLengthMask polygons_to_mask(const std::vector<std::vector<double>>& polygons, int64_t height, int64_t width) {
  require_size(height, width, "polygons_to_mask");
  if (polygons.empty()) return {height, width, {static_cast<uint32_t>(height * width)}};
  std::vector<RunLengthMask> parts;
  parts.reserve(polygons.size());
  for (const std::vector<double>& polygon : polygons) parts.push_back(polygon_to_mask(polygon, height, width));
  std::vector<const RunLengthMask*> part_pointers;
  for (const RunLengthMask& part : parts) part_pointers.push_back(&part);
  return merge_masks(part_pointers, false);
}

}  // namespace mlh::coco
