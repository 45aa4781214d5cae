#include "datasets/coco/synthetic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "datasets/image_files.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

constexpr double kPi = 3.14159265358979323846;
constexpr int kMinSide = 32;
constexpr int kMaxSide = 8192;
constexpr int kMaxObjects = 100;
constexpr int kPlacementAttempts = 8;
constexpr double kMaxBoxOverlap = 0.4;  // of the smaller box
constexpr double kMaxRotationRadians = 15.0 * kPi / 180.0;
constexpr double kNoiseAmplitude = 12.0;  // per-pixel noise, +- on the 0-255 scale
constexpr int kFixedPointBits = 4;        // sub-pixel precision of cv::fillPoly
constexpr const char* kFolderHint = "choose a writable folder for the synthetic COCO";

// COCO 2017's 80 category ids, ascending.
constexpr std::array<int, 80> kCocoCategoryIds = {
    1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 27, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44,
    46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
    67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90};

struct Colour {
  const char* name;
  double rgb[3];
};

constexpr std::array<Colour, 8> kColours = {{{"red", {220, 40, 40}},
                                             {"green", {40, 180, 60}},
                                             {"blue", {40, 80, 225}},
                                             {"yellow", {235, 215, 40}},
                                             {"magenta", {215, 50, 205}},
                                             {"cyan", {40, 205, 215}},
                                             {"orange", {245, 140, 30}},
                                             {"purple", {130, 60, 195}}}};

struct Point {
  double x, y;
};

struct Shape {
  const char* name;
  std::vector<Point> outline;  // within [-1, 1]^2, y down
};

std::vector<Point> regular_polygon(int corners, double first_angle_radians, int points_per_corner = 1,
                                   double inner_radius = 1.0) {
  std::vector<Point> points;
  const int count = corners * points_per_corner;
  for (int i = 0; i < count; ++i) {
    const double angle = first_angle_radians + 2.0 * kPi * i / count;
    const double radius = (points_per_corner == 2 && i % 2 == 1) ? inner_radius : 1.0;
    points.push_back({radius * std::cos(angle), radius * std::sin(angle)});
  }
  return points;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      {"disk", regular_polygon(32, 0.0)},
      {"square", {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}},
      {"triangle", regular_polygon(3, -kPi / 2)},
      {"diamond", {{0, -1}, {1, 0}, {0, 1}, {-1, 0}}},
      {"cross",
       {{-0.3, -1}, {0.3, -1}, {0.3, -0.3}, {1, -0.3}, {1, 0.3}, {0.3, 0.3},
        {0.3, 1}, {-0.3, 1}, {-0.3, 0.3}, {-1, 0.3}, {-1, -0.3}, {-0.3, -0.3}}},
      {"star", regular_polygon(5, -kPi / 2, 2, 0.42)},
      {"hexagon", regular_polygon(6, 0.0)},
      {"pentagon", regular_polygon(5, -kPi / 2)},
      {"arrow", {{-1, -0.3}, {0.2, -0.3}, {0.2, -0.8}, {1, 0}, {0.2, 0.8}, {0.2, 0.3}, {-1, 0.3}}},
      {"L", {{-1, -1}, {-0.3, -1}, {-0.3, 0.4}, {1, 0.4}, {1, 1}, {-1, 1}}},
      {"trapezoid", {{-0.5, -0.8}, {0.5, -0.8}, {1, 0.8}, {-1, 0.8}}},
      {"chevron", {{-1, -0.9}, {0, 0.1}, {1, -0.9}, {1, -0.1}, {0, 0.9}, {-1, -0.1}}},
  };
  return all;
}

const Shape& shape_of(int category) { return shapes()[category % shapes().size()]; }

const Colour& colour_of(int category) {
  const int per_colour = static_cast<int>(shapes().size());
  return kColours[(category / per_colour + category % per_colour) % kColours.size()];
}

std::string category_name(int category) {
  return std::string(colour_of(category).name) + " " + shape_of(category).name;
}

double round_to_hundredths(double value) { return std::round(value * 100.0) / 100.0; }

// The part of `polygon` inside [0, width] x [0, height] (Sutherland-Hodgman, one image edge at a time).
std::vector<Point> clip_to_image(std::vector<Point> polygon, double width, double height) {
  auto clip = [&](auto inside, auto crossing) {
    std::vector<Point> kept;
    for (size_t i = 0; i < polygon.size(); ++i) {
      const Point& current = polygon[i];
      const Point& previous = polygon[(i + polygon.size() - 1) % polygon.size()];
      if (inside(current)) {
        if (!inside(previous)) kept.push_back(crossing(previous, current));
        kept.push_back(current);
      } else if (inside(previous)) {
        kept.push_back(crossing(previous, current));
      }
    }
    polygon = std::move(kept);
  };
  auto at_x = [](double x) {
    return [x](const Point& a, const Point& b) { return Point{x, a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)}; };
  };
  auto at_y = [](double y) {
    return [y](const Point& a, const Point& b) { return Point{a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y}; };
  };
  clip([](const Point& p) { return p.x >= 0; }, at_x(0));
  clip([&](const Point& p) { return p.x <= width; }, at_x(width));
  clip([](const Point& p) { return p.y >= 0; }, at_y(0));
  clip([&](const Point& p) { return p.y <= height; }, at_y(height));
  return polygon;
}

double polygon_area(const std::vector<Point>& polygon) {
  double twice_area = 0;
  for (size_t i = 0; i < polygon.size(); ++i) {
    const Point& a = polygon[i];
    const Point& b = polygon[(i + 1) % polygon.size()];
    twice_area += a.x * b.y - b.x * a.y;
  }
  return std::abs(twice_area) / 2.0;
}

struct Box {
  double x0, y0, x1, y1;
};

Box bounds_of(const std::vector<Point>& polygon) {
  Box box{polygon[0].x, polygon[0].y, polygon[0].x, polygon[0].y};
  for (const Point& p : polygon) {
    box.x0 = std::min(box.x0, p.x);
    box.y0 = std::min(box.y0, p.y);
    box.x1 = std::max(box.x1, p.x);
    box.y1 = std::max(box.y1, p.y);
  }
  return box;
}

// The intersection over the smaller box's area, so a small object is not hidden under a large one.
double overlap_of_smaller(const Box& a, const Box& b) {
  const double overlap = std::max(0.0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) *
                         std::max(0.0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  const double smaller = std::min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0));
  return smaller > 0 ? overlap / smaller : 1.0;
}

struct DrawnObject {
  int category;
  std::vector<Point> polygon;  // clipped to the image, rounded to hundredths of a pixel
  Box box;
};

struct DrawnImage {
  cv::Mat bgr;
  std::vector<DrawnObject> objects;
};

// Draws of one image's stream: kImageDraws for the image, then kDrawsPerAttempt per placement attempt
// of each object; the per-pixel noise has a stream of its own.
constexpr uint64_t kImageDraws = 16;
constexpr uint64_t kDrawsPerAttempt = 8;
constexpr uint64_t kNoiseStreamBit = uint64_t{1} << 48;

class ImageDrawer {
 public:
  ImageDrawer(const SyntheticCocoSpec& spec, uint64_t stream) : spec_(spec), stream_(stream) {}

  DrawnImage draw() {
    const int width = uniform_int(0, spec_.min_side, spec_.max_side);
    const int height = uniform_int(1, spec_.min_side, spec_.max_side);
    DrawnImage image;
    image.bgr = background(width, height);
    const int objects = uniform_int(2, spec_.min_objects, spec_.max_objects);
    std::vector<Box> boxes;
    for (int k = 0; k < objects; ++k) {
      DrawnObject object;
      double brightness = 1.0;
      for (int attempt = 0; attempt < kPlacementAttempts; ++attempt) {
        const uint64_t first = kImageDraws + (static_cast<uint64_t>(k) * kPlacementAttempts + attempt) * kDrawsPerAttempt;
        object = place(first, width, height);
        brightness = uniform(first + 7, 0.75, 1.1);
        const bool overlaps_little = std::all_of(boxes.begin(), boxes.end(),
                                                 [&](const Box& earlier) { return overlap_of_smaller(earlier, object.box) <= kMaxBoxOverlap; });
        if (overlaps_little) break;
      }
      fill(image.bgr, object, brightness);
      boxes.push_back(object.box);
      image.objects.push_back(std::move(object));
    }
    add_noise(image.bgr);
    return image;
  }

 private:
  double uniform(uint64_t draw, double low, double high) const {
    return low + (high - low) * unit_interval(counter_random(spec_.seed, stream_, draw));
  }

  int uniform_int(uint64_t draw, int low, int high) const {  // in [low, high]
    return std::min(high, low + static_cast<int>(uniform(draw, 0, high - low + 1)));
  }

  // Grey with a tint, a linear gradient and faint stripes.
  cv::Mat background(int width, int height) const {
    const double level = uniform(3, 70, 190);
    double tint[3];
    for (int c = 0; c < 3; ++c) tint[c] = uniform(4 + c, -12, 12);
    const double gradient_x = uniform(7, -30, 30) / width;
    const double gradient_y = uniform(8, -30, 30) / height;
    const double stripe_amplitude = uniform(9, 0, 15);
    const double stripe_angle = uniform(10, 0, kPi);
    const double stripe_period = uniform(11, 6, 30);
    const double wave_x = 2.0 * kPi * std::cos(stripe_angle) / stripe_period;
    const double wave_y = 2.0 * kPi * std::sin(stripe_angle) / stripe_period;
    cv::Mat bgr(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y) {
      uint8_t* row = bgr.ptr<uint8_t>(y);
      for (int x = 0; x < width; ++x) {
        const double grey = level + gradient_x * (x - width / 2.0) + gradient_y * (y - height / 2.0) +
                            stripe_amplitude * std::sin(wave_x * x + wave_y * y);
        for (int c = 0; c < 3; ++c) row[3 * x + (2 - c)] = cv::saturate_cast<uint8_t>(grey + tint[c]);
      }
    }
    return bgr;
  }

  DrawnObject place(uint64_t first, int width, int height) const {
    DrawnObject object;
    object.category = uniform_int(first, 0, spec_.categories - 1);
    const double short_side = std::min(width, height);
    const double size = std::max(2.0, short_side * uniform(first + 1, spec_.min_object_fraction, spec_.max_object_fraction));
    const double aspect = std::exp(uniform(first + 2, std::log(0.75), std::log(1.0 / 0.75)));
    const double half_x = size / 2.0 * std::sqrt(aspect);
    const double half_y = size / 2.0 / std::sqrt(aspect);
    // At most ~30% of a half extent leaves the image.
    auto centre = [&](uint64_t draw, double half, int side) {
      const double low = 0.7 * half, high = side - 0.7 * half;
      return low < high ? uniform(draw, low, high) : side / 2.0;
    };
    const double centre_x = centre(first + 3, half_x, width);
    const double centre_y = centre(first + 4, half_y, height);
    const double rotation = uniform(first + 5, -kMaxRotationRadians, kMaxRotationRadians);
    const double cos_r = std::cos(rotation), sin_r = std::sin(rotation);
    std::vector<Point> outline;
    for (const Point& p : shape_of(object.category).outline) {
      const double x = p.x * half_x, y = p.y * half_y;
      outline.push_back({centre_x + cos_r * x - sin_r * y, centre_y + sin_r * x + cos_r * y});
    }
    object.polygon = clip_to_image(std::move(outline), width, height);
    for (Point& p : object.polygon) p = {round_to_hundredths(p.x), round_to_hundredths(p.y)};
    object.box = bounds_of(object.polygon);
    return object;
  }

  // COCO puts pixel i's centre at i + 0.5, OpenCV at i: the outline moves by half a pixel.
  static void fill(cv::Mat& bgr, const DrawnObject& object, double brightness) {
    const double scale = 1 << kFixedPointBits;
    std::vector<cv::Point> points;
    for (const Point& p : object.polygon) {
      points.emplace_back(static_cast<int>(std::lround((p.x - 0.5) * scale)),
                          static_cast<int>(std::lround((p.y - 0.5) * scale)));
    }
    const double* rgb = colour_of(object.category).rgb;
    const cv::Scalar colour(rgb[2] * brightness, rgb[1] * brightness, rgb[0] * brightness);
    cv::fillPoly(bgr, std::vector<std::vector<cv::Point>>{points}, colour, cv::LINE_AA, kFixedPointBits);
  }

  void add_noise(cv::Mat& bgr) const {
    const uint64_t key = stream_key(spec_.seed, stream_ | kNoiseStreamBit);
    for (int y = 0; y < bgr.rows; ++y) {
      uint8_t* row = bgr.ptr<uint8_t>(y);
      for (int x = 0; x < bgr.cols; ++x) {
        const uint64_t draw = static_cast<uint64_t>(y) * bgr.cols + x;
        const double noise = kNoiseAmplitude * (2.0 * unit_interval(keyed_random(key, draw)) - 1.0);
        for (int c = 0; c < 3; ++c) row[3 * x + c] = cv::saturate_cast<uint8_t>(row[3 * x + c] + noise);
      }
    }
  }

  const SyntheticCocoSpec& spec_;
  uint64_t stream_;
};

void check_spec(const std::string& root, bool holds, const std::string& message) {
  if (!holds) throw UserError(root + ": synthetic COCO spec: " + message);
}

void check(const std::string& root, const SyntheticCocoSpec& spec) {
  check_spec(root, spec.categories >= 1 && spec.categories <= static_cast<int>(kCocoCategoryIds.size()),
             "categories is " + std::to_string(spec.categories) + "; use 1 to 80");
  check_spec(root, spec.train_images >= 1 && spec.val_images >= 1, "train_images and val_images must be at least 1");
  check_spec(root, spec.min_side >= kMinSide && spec.min_side <= spec.max_side && spec.max_side <= kMaxSide,
             "sides [" + std::to_string(spec.min_side) + ", " + std::to_string(spec.max_side) +
                 "] are not a range within [32, 8192]");
  check_spec(root, spec.min_objects >= 1 && spec.min_objects <= spec.max_objects && spec.max_objects <= kMaxObjects,
             "objects [" + std::to_string(spec.min_objects) + ", " + std::to_string(spec.max_objects) +
                 "] are not a range within [1, 100]");
  check_spec(root,
             spec.min_object_fraction > 0 && spec.min_object_fraction <= spec.max_object_fraction &&
                 spec.max_object_fraction <= 1,
             "object fractions [" + std::to_string(spec.min_object_fraction) + ", " +
                 std::to_string(spec.max_object_fraction) + "] are not a range within (0, 1]");
  check_spec(root, spec.jpeg_quality >= 1 && spec.jpeg_quality <= 100,
             "jpeg_quality is " + std::to_string(spec.jpeg_quality) + "; use 1 to 100");
}

std::string image_file_name(int64_t id) {
  char name[32];
  std::snprintf(name, sizeof(name), "%012lld.jpg", static_cast<long long>(id));
  return name;
}

// The fewest significant digits that read back as `value`.
std::string shortest_text(double value) {
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

enum class Split : uint64_t { kTrain = 1, kVal = 2 };

// Writes one split's JPEGs and its instances file; ids continue from `next_image_id` and
// `next_annotation_id`, which it advances.
void write_split(const fs::path& root, const SyntheticCocoSpec& spec, Split split, int images,
                 int64_t& next_image_id, int64_t& next_annotation_id) {
  const char* split_name = split == Split::kTrain ? "train2017" : "val2017";
  const fs::path image_folder = root / split_name;
  make_folder(image_folder, kFolderHint);
  ordered_json image_list = ordered_json::array();
  ordered_json annotation_list = ordered_json::array();
  for (int n = 0; n < images; ++n) {
    const uint64_t stream = static_cast<uint64_t>(split) << 56 | static_cast<uint64_t>(n);
    const DrawnImage drawn = ImageDrawer(spec, stream).draw();
    const int64_t image_id = next_image_id++;
    const std::string file_name = image_file_name(image_id);
    write_jpeg_file(image_folder / file_name, drawn.bgr, spec.jpeg_quality);
    image_list.push_back({{"license", 0},
                          {"file_name", file_name},
                          {"height", drawn.bgr.rows},
                          {"width", drawn.bgr.cols},
                          {"id", image_id}});
    for (const DrawnObject& object : drawn.objects) {
      ordered_json polygon = ordered_json::array();
      for (const Point& p : object.polygon) {
        polygon.push_back(p.x);
        polygon.push_back(p.y);
      }
      const Box& box = object.box;
      annotation_list.push_back(
          {{"segmentation", ordered_json::array({polygon})},
           {"area", round_to_hundredths(polygon_area(object.polygon))},
           {"iscrowd", 0},
           {"image_id", image_id},
           {"bbox", {box.x0, box.y0, round_to_hundredths(box.x1 - box.x0), round_to_hundredths(box.y1 - box.y0)}},
           {"category_id", kCocoCategoryIds[object.category]},
           {"id", next_annotation_id++}});
    }
  }
  ordered_json categories = ordered_json::array();
  for (int k = 0; k < spec.categories; ++k) {
    categories.push_back({{"supercategory", "shape"}, {"id", kCocoCategoryIds[k]}, {"name", category_name(k)}});
  }
  ordered_json instances = {
      {"info",
       {{"description", "mlharness synthetic COCO"},
        {"version", "1.0"},
        {"year", 2017},
        {"contributor", "mlharness"},
        {"date_created", "2017/09/01"}}},
      {"licenses", ordered_json::array()},
      {"images", std::move(image_list)},
      {"annotations", std::move(annotation_list)},
      {"categories", std::move(categories)}};
  const fs::path annotation_folder = root / "annotations";
  make_folder(annotation_folder, kFolderHint);
  const std::string text = instances.dump();
  write_file(annotation_folder / (std::string("instances_") + split_name + ".json"), text.data(), text.size());
}

}  // namespace

void write_synthetic_coco(const std::string& root, const SyntheticCocoSpec& spec) {
  check(root, spec);
  const fs::path root_path(root);
  make_folder(root_path, kFolderHint);
  int64_t next_image_id = 1;
  int64_t next_annotation_id = 1;
  write_split(root_path, spec, Split::kTrain, spec.train_images, next_image_id, next_annotation_id);
  write_split(root_path, spec, Split::kVal, spec.val_images, next_image_id, next_annotation_id);
}

std::string synthetic_coco_folder_name(const SyntheticCocoSpec& spec) {
  char name[256];
  std::snprintf(name, sizeof(name), "coco-synthetic-c%d-t%d-v%d-s%dx%d-o%dx%d-f%sx%s-q%d-d%llu", spec.categories,
                spec.train_images, spec.val_images, spec.min_side, spec.max_side, spec.min_objects, spec.max_objects,
                shortest_text(spec.min_object_fraction).c_str(), shortest_text(spec.max_object_fraction).c_str(),
                spec.jpeg_quality, static_cast<unsigned long long>(spec.seed));
  return name;
}

}  // namespace mlh::coco
