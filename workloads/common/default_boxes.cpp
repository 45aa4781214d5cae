#include "workloads/common/default_boxes.h"

#include <cmath>
#include <string>

#include <torch/torch.h>

#include "base/user_error.h"
#include "workloads/common/box_ops.h"

namespace mlh::common {

namespace {

std::string count_of(size_t n) { return std::to_string(n); }

void validate(const DefaultBoxesOptions& options) {
  const size_t maps = options.feature_sizes.size();
  const std::string where = "default boxes: ";
  if (maps == 0) throw UserError(where + "key 'feature_sizes' is empty; it needs one size per feature map");
  if (!(options.figure_size_px > 0))
    throw UserError(where + "key 'figure_size' is " + std::to_string(options.figure_size_px) + "; it must be > 0");
  if (options.steps_px.size() != maps)
    throw UserError(where + "key 'steps' has " + count_of(options.steps_px.size()) + " entries; it needs one per feature map (" +
                    count_of(maps) + ")");
  if (options.scales_px.size() != maps + 1)
    throw UserError(where + "key 'scales' has " + count_of(options.scales_px.size()) +
                    " entries; it needs one per feature map plus one (" + count_of(maps + 1) + ")");
  if (options.aspect_ratios.size() != maps)
    throw UserError(where + "key 'aspect_ratios' has " + count_of(options.aspect_ratios.size()) +
                    " lists; it needs one per feature map (" + count_of(maps) + ")");
  for (size_t k = 0; k < maps; ++k) {
    if (options.feature_sizes[k] < 1)
      throw UserError(where + "key 'feature_sizes' has " + std::to_string(options.feature_sizes[k]) + "; sizes are at least 1");
    if (!(options.steps_px[k] > 0))
      throw UserError(where + "key 'steps' has " + std::to_string(options.steps_px[k]) + "; steps must be > 0");
    for (double ratio : options.aspect_ratios[k])
      if (!(ratio > 0)) throw UserError(where + "key 'aspect_ratios' has " + std::to_string(ratio) + "; ratios must be > 0");
  }
  for (double scale : options.scales_px)
    if (!(scale > 0)) throw UserError(where + "key 'scales' has " + std::to_string(scale) + "; scales must be > 0");
}

}  // namespace

DefaultBoxesOptions dboxes300_coco() {
  DefaultBoxesOptions options;
  options.figure_size_px = 300;
  options.feature_sizes = {38, 19, 10, 5, 3, 1};
  options.steps_px = {8, 16, 32, 64, 100, 300};
  options.scales_px = {21, 45, 99, 153, 207, 261, 315};
  options.aspect_ratios = {{2}, {2, 3}, {2, 3}, {2, 3}, {2}, {2}};
  return options;
}

int64_t default_boxes_per_position(const DefaultBoxesOptions& options, size_t map) {
  MLH_ASSERT(map < options.aspect_ratios.size());
  return 2 + 2 * static_cast<int64_t>(options.aspect_ratios[map].size());
}

DefaultBoxes DefaultBoxes::to(const torch::Device& device) const { return {xywh.to(device), ltrb.to(device)}; }

DefaultBoxes DefaultBoxes::from_xywh(const torch::Tensor& xywh) {
  MLH_ASSERT(xywh.dim() == 2 && xywh.size(1) == 4);
  return {xywh, xywh_to_ltrb(xywh)};
}

DefaultBoxes make_default_boxes(const DefaultBoxesOptions& options) {
  validate(options);
  std::vector<double> values;
  for (size_t k = 0; k < options.feature_sizes.size(); ++k) {
    const double size_small = options.scales_px[k] / options.figure_size_px;
    const double size_large = std::sqrt(size_small * (options.scales_px[k + 1] / options.figure_size_px));
    std::vector<std::pair<double, double>> sizes_wh = {{size_small, size_small}, {size_large, size_large}};
    for (double ratio : options.aspect_ratios[k]) {
      const double w = size_small * std::sqrt(ratio), h = size_small / std::sqrt(ratio);
      sizes_wh.emplace_back(w, h);
      sizes_wh.emplace_back(h, w);
    }
    // The reference divides by figure/step; so does this, for the same doubles.
    const double positions_per_figure = options.figure_size_px / options.steps_px[k];
    const int64_t n = options.feature_sizes[k];
    for (const auto& [w, h] : sizes_wh)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          values.push_back((static_cast<double>(j) + 0.5) / positions_per_figure);
          values.push_back((static_cast<double>(i) + 0.5) / positions_per_figure);
          values.push_back(w);
          values.push_back(h);
        }
  }
  const auto count = static_cast<int64_t>(values.size() / 4);
  torch::Tensor xywh = torch::tensor(values, torch::kDouble).view({count, 4}).to(torch::kFloat);
  if (options.clamp) xywh.clamp_(0, 1);
  return DefaultBoxes::from_xywh(xywh);
}

}  // namespace mlh::common
