#include "workloads/maskrcnn/roi_align.h"

#include <cmath>

#include <torch/nn/functional/embedding.h>
#include <torch/torch.h>

#include "base/user_error.h"

namespace mlh::maskrcnn {
namespace {

// a / d with d a tensor on a's device: CUDA turns division by a CPU scalar into multiplication by its
// reciprocal, which would round differently from the reference's kernels.
torch::Tensor divided(const torch::Tensor& a, double d) { return a / torch::full({1}, d, a.options()); }

// One axis of the sample points: [K, P, S, 2] row (or column) indices of the low and high neighbours
// and their bilinear weights, 0 for points outside [-1, size].
struct AxisSamples {
  torch::Tensor index;
  torch::Tensor weight;
};

AxisSamples axis_samples(const torch::Tensor& start, const torch::Tensor& bin, const torch::Tensor& size,
                         int64_t output_size, int64_t sampling_ratio) {
  const int64_t count = start.size(0);
  const torch::TensorOptions options = start.options();
  const torch::Tensor bins = torch::arange(output_size, options).view({1, output_size, 1});
  const torch::Tensor sub_bins = (torch::arange(sampling_ratio, options) + 0.5).view({1, 1, sampling_ratio});
  const torch::Tensor bin_k = bin.view({count, 1, 1});
  const torch::Tensor size_k = size.view({count, 1, 1});
  // start + p * bin + (i + 0.5) * bin / S, in this order.
  torch::Tensor coordinate = (start.view({count, 1, 1}) + bins * bin_k) + divided(sub_bins * bin_k, sampling_ratio);
  const torch::Tensor inside = (coordinate >= -1) & (coordinate <= size_k);
  coordinate = coordinate.clamp_min(0);
  torch::Tensor low = coordinate.floor();
  const torch::Tensor last = size_k - 1;
  const torch::Tensor at_edge = low >= last;
  low = torch::where(at_edge, last, low);
  coordinate = torch::where(at_edge, low, coordinate);
  const torch::Tensor high = torch::where(at_edge, low, low + 1);
  const torch::Tensor frac = coordinate - low;
  const torch::Tensor weight = torch::where(inside.unsqueeze(-1), torch::stack({1 - frac, frac}, -1),
                                            torch::zeros({}, options));
  return {torch::stack({low, high}, -1).to(torch::kLong), weight};
}

torch::Tensor coordinate_dtype_tensor(const torch::Tensor& t, const torch::Tensor& features) {
  return t.detach().to(features.device(), features.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat);
}

// Pools every ROI from rows of `table` ([rows, C], channels last): ROI k's map starts at row base[k] and
// is height[k] x width[k] (coordinate dtype), scaled by scale[k].
torch::Tensor pool(const torch::Tensor& table, const torch::Tensor& rois, const torch::Tensor& base,
                   const torch::Tensor& height, const torch::Tensor& width, const torch::Tensor& scale,
                   int64_t output_size, int64_t sampling_ratio, bool aligned) {
  const int64_t count = rois.size(0), channels = table.size(1), P = output_size, S = sampling_ratio;
  const double offset = aligned ? 0.5 : 0.0;
  const torch::Tensor start_x = rois.select(1, 1) * scale - offset, start_y = rois.select(1, 2) * scale - offset;
  torch::Tensor roi_width = rois.select(1, 3) * scale - offset - start_x;
  torch::Tensor roi_height = rois.select(1, 4) * scale - offset - start_y;
  if (!aligned) {
    roi_width = roi_width.clamp_min(1);
    roi_height = roi_height.clamp_min(1);
  }
  const AxisSamples y = axis_samples(start_y, divided(roi_height, P), height, P, S);
  const AxisSamples x = axis_samples(start_x, divided(roi_width, P), width, P, S);
  // [K, P_y, P_x, S_y, 2, S_x, 2]: every bin's S x S points, four neighbours each.
  const std::vector<int64_t> y_shape = {count, P, 1, S, 2, 1, 1}, x_shape = {count, 1, P, 1, 1, S, 2};
  const torch::Tensor rows = base.view({count, 1, 1, 1, 1, 1, 1}) +
                             y.index.view(y_shape) * width.to(torch::kLong).view({count, 1, 1, 1, 1, 1, 1}) +
                             x.index.view(x_shape);
  const torch::Tensor weights = y.weight.view(y_shape) * x.weight.view(x_shape);
  namespace F = torch::nn::functional;
  // The CPU's embedding_bag has no bf16 or fp16 kernel: there the gather runs in float32 and gives
  // the features' dtype back (as torchvision's roi_align under autocast runs in float32).
  const bool widen = table.device().is_cpu() && (table.scalar_type() == torch::kBFloat16 || table.scalar_type() == torch::kHalf);
  const torch::Tensor values = widen ? table.to(torch::kFloat) : table;
  const torch::Tensor sums = F::embedding_bag(
      rows.reshape({count * P * P, 4 * S * S}), values,
      F::EmbeddingBagFuncOptions().mode(torch::kSum).per_sample_weights(
          weights.reshape({count * P * P, 4 * S * S}).to(values.scalar_type())));
  const torch::Tensor pooled =
      divided(sums.view({count, P, P, channels}).permute({0, 3, 1, 2}), static_cast<double>(S * S)).contiguous();
  return widen ? pooled.to(table.scalar_type()) : pooled;
}

torch::Tensor channels_last_rows(const torch::Tensor& features) {
  return features.permute({0, 2, 3, 1}).reshape({-1, features.size(1)});
}

void check_rois(const torch::Tensor& rois) {
  MLH_ASSERT(rois.dim() == 2 && rois.size(1) == 5);
  MLH_ASSERT(rois.is_floating_point());
}

}  // namespace

torch::Tensor roi_align(const torch::Tensor& features, const torch::Tensor& rois, int64_t output_size,
                        double spatial_scale, int64_t sampling_ratio, bool aligned) {
  MLH_ASSERT(features.dim() == 4 && features.is_floating_point());
  check_rois(rois);
  MLH_ASSERT(output_size > 0 && sampling_ratio > 0);
  const torch::Tensor boxes = coordinate_dtype_tensor(rois, features);
  const int64_t count = boxes.size(0), height = features.size(2), width = features.size(3);
  const torch::Tensor base = boxes.select(1, 0).to(torch::kLong) * (height * width);
  const torch::TensorOptions options = boxes.options();
  return pool(channels_last_rows(features), boxes, base, torch::full({count}, static_cast<double>(height), options),
              torch::full({count}, static_cast<double>(width), options),
              torch::full({count}, spatial_scale, options), output_size, sampling_ratio, aligned);
}

torch::Tensor fpn_levels(const torch::Tensor& boxes_ltrb, int64_t k_min, int64_t k_max) {
  MLH_ASSERT(boxes_ltrb.dim() == 2 && boxes_ltrb.size(1) == 4);
  MLH_ASSERT(k_min <= k_max);
  const torch::Tensor boxes = boxes_ltrb.detach().to(torch::kFloat);
  const torch::Tensor area = (boxes.select(1, 2) - boxes.select(1, 0) + 1) * (boxes.select(1, 3) - boxes.select(1, 1) + 1);
  // The reference's scalar operations, as Python runs them (on CUDA too: a division by a scalar there
  // is the reference's own).
  torch::Tensor level = torch::floor(torch::log2(torch::sqrt(area) / 224.0 + 1e-6) + 4);
  level = torch::where(torch::isnan(level), torch::full({}, static_cast<double>(k_min), level.options()), level);
  return level.clamp(static_cast<double>(k_min), static_cast<double>(k_max)).to(torch::kLong) - k_min;
}

torch::Tensor multi_level_roi_align(const std::vector<torch::Tensor>& features, const torch::Tensor& rois,
                                    int64_t output_size, const std::vector<double>& scales, int64_t sampling_ratio) {
  MLH_ASSERT(!features.empty() && features.size() == scales.size());
  check_rois(rois);
  if (features.size() == 1) return roi_align(features[0], rois, output_size, scales[0], sampling_ratio);
  MLH_ASSERT(output_size > 0 && sampling_ratio > 0);
  const double k_min_exact = -std::log2(static_cast<double>(static_cast<float>(scales[0])));
  const auto k_min = static_cast<int64_t>(std::lround(k_min_exact));
  MLH_ASSERT(static_cast<double>(k_min) == k_min_exact);
  const int64_t k_max = k_min + static_cast<int64_t>(features.size()) - 1;
  for (size_t level = 0; level < scales.size(); ++level)
    MLH_ASSERT(static_cast<float>(scales[level]) == static_cast<float>(std::ldexp(1.0, -static_cast<int>(k_min + level))));

  const torch::Tensor& first = features[0];
  std::vector<torch::Tensor> tables;
  std::vector<double> heights, widths, offsets;
  int64_t rows = 0;
  for (const torch::Tensor& map : features) {
    MLH_ASSERT(map.dim() == 4 && map.size(0) == first.size(0) && map.size(1) == first.size(1));
    MLH_ASSERT(map.scalar_type() == first.scalar_type() && map.device() == first.device());
    tables.push_back(channels_last_rows(map));
    heights.push_back(static_cast<double>(map.size(2)));
    widths.push_back(static_cast<double>(map.size(3)));
    offsets.push_back(static_cast<double>(rows));
    rows += map.size(0) * map.size(2) * map.size(3);
  }
  const torch::Tensor boxes = coordinate_dtype_tensor(rois, first);
  const torch::Tensor level = fpn_levels(boxes.narrow(1, 1, 4), k_min, k_max);
  const torch::TensorOptions options = boxes.options();
  // Per-level values filled on the device (no copy from the host, so no wait on a GPU), then picked.
  const auto per_roi = [&](const std::vector<double>& per_level, torch::ScalarType dtype) {
    std::vector<torch::Tensor> values;
    for (double value : per_level) values.push_back(torch::full({}, value, options.dtype(dtype)));
    return torch::stack(values).index_select(0, level);
  };
  const torch::Tensor height = per_roi(heights, options.dtype().toScalarType());
  const torch::Tensor width = per_roi(widths, options.dtype().toScalarType());
  const torch::Tensor scale = per_roi(std::vector<double>(scales.begin(), scales.end()), torch::kFloat)
                                  .to(options.dtype().toScalarType());
  const torch::Tensor map_size = (height * width).to(torch::kLong);
  const torch::Tensor base = per_roi(offsets, torch::kLong) + boxes.select(1, 0).to(torch::kLong) * map_size;
  return pool(torch::cat(tables, 0), boxes, base, height, width, scale, output_size, sampling_ratio, false);
}

}  // namespace mlh::maskrcnn
