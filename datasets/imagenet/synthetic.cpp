#include "datasets/imagenet/synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <opencv2/core.hpp>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "datasets/image_files.h"

namespace mlh::imagenet {
namespace {

namespace fs = std::filesystem;

constexpr double kPi = 3.14159265358979323846;
constexpr double kGoldenFraction = 0.6180339887498949;
constexpr int kFirstWnid = 1000000;
constexpr int kMaxClasses = 1000000;
constexpr int kMinSide = 8;
constexpr double kNoiseAmplitude = 20.0;  // per-pixel noise, +- on the 0-255 scale
// Draws of an image's stream: 0..15 its parameters, kFirstPixelDraw + pixel its noise.
constexpr uint64_t kFirstPixelDraw = 16;
constexpr const char* kFolderHint = "choose a writable folder for the synthetic ImageNet";

enum class Split : uint64_t { kTrain = 1, kVal = 2 };

double fraction(double value) { return value - std::floor(value); }

struct ClassLook {
  double rgb[3];
  double angle_radians;
  double period_pixels;
};

// Full-saturation colour of `hue` in [0, 1).
void hue_to_rgb(double hue, double rgb[3]) {
  for (int c = 0; c < 3; ++c) {
    const double k = std::fmod((c == 0 ? 5.0 : c == 1 ? 3.0 : 1.0) + 6.0 * hue, 6.0);
    rgb[c] = 255.0 * (1.0 - std::clamp(std::min(k, 4.0 - k), 0.0, 1.0));
  }
}

ClassLook class_look(int label) {
  ClassLook look;
  hue_to_rgb(fraction(label * kGoldenFraction), look.rgb);
  look.angle_radians = kPi * fraction(0.1 + label * 0.3819660112501051);
  look.period_pixels = 8.0 + 32.0 * fraction(0.5 + label * 0.7548776662466927);
  return look;
}

std::string wnid(int label) {
  char text[16];
  std::snprintf(text, sizeof(text), "n%08d", kFirstWnid + label);
  return text;
}

cv::Mat draw_image(const SyntheticImageNetSpec& spec, Split split, int label, int number) {
  const uint64_t stream = static_cast<uint64_t>(split) << 56 ^ static_cast<uint64_t>(label) << 28 ^
                          static_cast<uint64_t>(number);
  auto uniform = [&](uint64_t draw, double low, double high) {
    return low + (high - low) * unit_interval(counter_random(spec.seed, stream, draw));
  };
  auto uniform_int = [&](uint64_t draw, int low, int high) {  // in [low, high]
    return std::min(high, low + static_cast<int>(uniform(draw, 0, high - low + 1)));
  };
  const ClassLook look = class_look(label);
  const int width = uniform_int(0, spec.min_side, spec.max_side);
  const int height = uniform_int(1, spec.min_side, spec.max_side);
  const int box_width = std::max(1, static_cast<int>(width * uniform(2, 0.6, 1.0)));
  const int box_height = std::max(1, static_cast<int>(height * uniform(3, 0.6, 1.0)));
  const int box_x = uniform_int(4, 0, width - box_width);
  const int box_y = uniform_int(5, 0, height - box_height);
  const double angle = look.angle_radians + uniform(6, -0.08, 0.08);
  const double period = look.period_pixels * uniform(7, 0.9, 1.1);
  const double phase = uniform(8, 0.0, 2.0 * kPi);
  const double brightness = uniform(9, 0.8, 1.0);
  const double background = uniform(10, 60.0, 190.0);
  const double wave_x = 2.0 * kPi * std::cos(angle) / period;
  const double wave_y = 2.0 * kPi * std::sin(angle) / period;

  cv::Mat bgr(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = bgr.ptr<uint8_t>(y);
    for (int x = 0; x < width; ++x) {
      const bool in_box = x >= box_x && x < box_x + box_width && y >= box_y && y < box_y + box_height;
      const double stripe = 0.5 + 0.5 * std::sin(wave_x * x + wave_y * y + phase);
      const double level = (0.35 + 0.65 * stripe) * brightness;
      const uint64_t noise_draw = kFirstPixelDraw + static_cast<uint64_t>(y) * width + x;
      const double noise = uniform(noise_draw, -kNoiseAmplitude, kNoiseAmplitude);
      for (int c = 0; c < 3; ++c) {
        const double value = (in_box ? look.rgb[c] * level : background) + noise;
        row[3 * x + (2 - c)] = cv::saturate_cast<uint8_t>(value);  // BGR
      }
    }
  }
  return bgr;
}

void check_spec(const std::string& root, bool holds, const std::string& message) {
  if (!holds) throw UserError(root + ": synthetic ImageNet spec: " + message);
}

}  // namespace

void write_synthetic_imagenet(const std::string& root, const SyntheticImageNetSpec& spec) {
  check_spec(root, spec.classes >= 1 && spec.classes <= kMaxClasses,
             "classes is " + std::to_string(spec.classes) + "; use 1 to 1000000");
  check_spec(root, spec.train_images_per_class >= 1 && spec.val_images_per_class >= 1,
             "train_images_per_class and val_images_per_class must be at least 1");
  check_spec(root, spec.min_side >= kMinSide && spec.min_side <= spec.max_side,
             "sides [" + std::to_string(spec.min_side) + ", " + std::to_string(spec.max_side) +
                 "] are not a range with min_side >= 8");
  check_spec(root, spec.jpeg_quality >= 1 && spec.jpeg_quality <= 100,
             "jpeg_quality is " + std::to_string(spec.jpeg_quality) + "; use 1 to 100");

  const fs::path root_path(root);
  make_folder(root_path, kFolderHint);
  std::string index_text;
  for (int label = 0; label < spec.classes; ++label) {
    index_text += wnid(label) + " synthetic class " + std::to_string(label) + "\n";
  }
  write_file(root_path / kClassIndexFileName, index_text.data(), index_text.size());

  for (int label = 0; label < spec.classes; ++label) {
    const std::string id = wnid(label);
    const fs::path train_folder = root_path / "train" / id;
    make_folder(train_folder, kFolderHint);
    for (int n = 1; n <= spec.train_images_per_class; ++n) {
      write_jpeg_file(train_folder / (id + "_" + std::to_string(n) + ".JPEG"),
                 draw_image(spec, Split::kTrain, label, n), spec.jpeg_quality);
    }
    const fs::path val_folder = root_path / "val" / id;
    make_folder(val_folder, kFolderHint);
    for (int j = 0; j < spec.val_images_per_class; ++j) {
      const int64_t number = int64_t{label} * spec.val_images_per_class + j + 1;
      char name[64];
      std::snprintf(name, sizeof(name), "ILSVRC2012_val_%08lld.JPEG",
                    static_cast<long long>(number));
      write_jpeg_file(val_folder / name, draw_image(spec, Split::kVal, label, j + 1),
                 spec.jpeg_quality);
    }
  }
}

}  // namespace mlh::imagenet
