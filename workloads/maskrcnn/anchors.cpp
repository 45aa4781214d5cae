#include "workloads/maskrcnn/anchors.h"

#include <cmath>
#include <string>

#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::maskrcnn {
namespace {

// A window's extent and centre, inclusive pixels.
struct Window {
  double width, height, centre_x, centre_y;
};

Window window_of(double left, double top, double right, double bottom) {
  const double width = right - left + 1, height = bottom - top + 1;
  return {width, height, left + 0.5 * (width - 1), top + 0.5 * (height - 1)};
}

void require_positive(const std::vector<double>& values, const char* key) {
  for (double value : values)
    if (!(value > 0.0))
      throw UserError(std::string("anchor option '") + key + "' has " + std::to_string(value) +
                      "; every entry must be positive");
}

}  // namespace

void validate(const AnchorOptions& options) {
  if (options.sizes.empty()) throw UserError("anchor option 'sizes' is empty; give one anchor size per FPN level");
  if (options.sizes.size() != options.strides.size())
    throw UserError("anchor options 'sizes' (" + std::to_string(options.sizes.size()) + ") and 'strides' (" +
                    std::to_string(options.strides.size()) + ") need one entry per FPN level each");
  if (options.aspect_ratios.empty()) throw UserError("anchor option 'aspect_ratios' is empty; give at least one");
  require_positive(options.sizes, "sizes");
  require_positive(options.strides, "strides");
  require_positive(options.aspect_ratios, "aspect_ratios");
}

int64_t anchors_per_location(const AnchorOptions& options) {
  return static_cast<int64_t>(options.aspect_ratios.size());
}

torch::Tensor cell_anchors(double stride, double size, const std::vector<double>& aspect_ratios) {
  MLH_ASSERT(stride > 0.0 && size > 0.0);
  const Window base = window_of(0, 0, stride - 1, stride - 1);
  const double scale = size / stride;
  std::vector<double> corners;
  corners.reserve(4 * aspect_ratios.size());
  for (double ratio : aspect_ratios) {
    MLH_ASSERT(ratio > 0.0);
    // std::nearbyint rounds half to even in the default rounding mode, as numpy's round.
    const double width = std::nearbyint(std::sqrt(base.width * base.height / ratio));
    const double height = std::nearbyint(width * ratio);
    // The ratio's window, read back as the reference does before scaling it.
    const Window shaped = window_of(base.centre_x - 0.5 * (width - 1), base.centre_y - 0.5 * (height - 1),
                                    base.centre_x + 0.5 * (width - 1), base.centre_y + 0.5 * (height - 1));
    const double half_width = 0.5 * (shaped.width * scale - 1), half_height = 0.5 * (shaped.height * scale - 1);
    corners.insert(corners.end(), {shaped.centre_x - half_width, shaped.centre_y - half_height,
                                   shaped.centre_x + half_width, shaped.centre_y + half_height});
  }
  return torch::tensor(corners, torch::kDouble).view({-1, 4}).to(torch::kFloat);
}

std::vector<std::array<int64_t, 2>> grid_sizes(const std::vector<torch::Tensor>& feature_maps) {
  std::vector<std::array<int64_t, 2>> sizes;
  sizes.reserve(feature_maps.size());
  for (const torch::Tensor& map : feature_maps) {
    MLH_ASSERT(map.dim() == 4);
    sizes.push_back({map.size(2), map.size(3)});
  }
  return sizes;
}

std::vector<torch::Tensor> grid_anchors(const AnchorOptions& options,
                                        const std::vector<std::array<int64_t, 2>>& grid_sizes,
                                        torch::Device device) {
  validate(options);
  if (grid_sizes.size() != options.strides.size())
    throw UserError("the RPN has " + std::to_string(options.strides.size()) + " anchor levels but " +
                    std::to_string(grid_sizes.size()) + " feature maps; give one anchor size and stride per map");
  const torch::TensorOptions float_options = torch::TensorOptions(torch::kFloat).device(device);
  std::vector<torch::Tensor> levels;
  levels.reserve(grid_sizes.size());
  for (size_t l = 0; l < grid_sizes.size(); ++l) {
    const double stride = options.strides[l];
    const auto [height, width] = grid_sizes[l];
    MLH_ASSERT(height >= 0 && width >= 0);
    // The location's index times the stride, float32: the reference's arange(0, W * stride, stride) for
    // the integer strides of the config, and exactly W (H) shifts for any stride.
    const torch::Tensor shift_x = torch::arange(width, float_options) * stride;
    const torch::Tensor shift_y = torch::arange(height, float_options) * stride;
    const torch::Tensor xs = shift_x.view({1, width}).expand({height, width}).reshape({-1});
    const torch::Tensor ys = shift_y.view({height, 1}).expand({height, width}).reshape({-1});
    const torch::Tensor shifts = torch::stack({xs, ys, xs, ys}, 1);  // [H * W, 4]
    const torch::Tensor cells = cell_anchors(stride, options.sizes[l], options.aspect_ratios).to(device);
    levels.push_back((shifts.view({-1, 1, 4}) + cells.view({1, -1, 4})).reshape({-1, 4}));
  }
  return levels;
}

torch::Tensor visible_anchors(const torch::Tensor& anchors, ImageSize image, double straddle_threshold) {
  MLH_ASSERT(anchors.dim() == 2 && anchors.size(1) == 4);
  if (straddle_threshold < 0.0) return torch::ones({anchors.size(0)}, anchors.options().dtype(torch::kBool));
  const double t = straddle_threshold;
  return (anchors.select(1, 0) >= -t) & (anchors.select(1, 1) >= -t) &
         (anchors.select(1, 2) < static_cast<double>(image.width) + t) &
         (anchors.select(1, 3) < static_cast<double>(image.height) + t);
}

}  // namespace mlh::maskrcnn
