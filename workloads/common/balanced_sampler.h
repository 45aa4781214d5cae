// Mask R-CNN's choice of the predictions that enter the losses (spec/workloads.md §4), as the MLPerf
// v0.7 reference's BalancedPositiveNegativeSampler
// (maskrcnn_benchmark/modeling/balanced_positive_negative_sampler.py). Per image, of the labelled
// predictions (>= 1 positive, 0 negative, anything else, e.g. -1, ignored):
//   positives: min(#positives, floor(batch_size_per_image * positive_fraction)), uniformly at random;
//   negatives: min(#negatives, batch_size_per_image - positives taken), uniformly at random.
// The RPN samples 256 at 0.5, the box head 512 at 0.25.
// Randomness comes from one torch::randperm over the image's P predictions drawn from the given
// generator (of the labels' device type: a CPU generator for CPU labels, a CUDA one for CUDA labels):
// positives and negatives are taken in the permutation's order, which is a uniform random order of
// each. The same generator state gives the same masks; the draws differ from the reference's (it
// permutes positives and negatives separately). Unlike the reference (nonzero and numel on the host),
// the counts stay on the device: no host synchronisation.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace mlh::common {

struct BalancedSamplerOptions {
  int64_t batch_size_per_image = 512;
  double positive_fraction = 0.25;
};

inline constexpr BalancedSamplerOptions kRpnSamplerOptions{256, 0.5};
inline constexpr BalancedSamplerOptions kRoiHeadsSamplerOptions{512, 0.25};

// Masks over one image's predictions: [P] bool on the labels' device (the reference's uint8 masks,
// as bool), disjoint, positive only where label >= 1, negative only where label == 0.
struct SampledMasks {
  torch::Tensor positive;
  torch::Tensor negative;
};

// labels [P] (any real dtype) of one image.
SampledMasks sample_balanced(const torch::Tensor& labels, const BalancedSamplerOptions& options,
                             torch::Generator& generator);

// One image after the other, from the one generator.
std::vector<SampledMasks> sample_balanced(const std::vector<torch::Tensor>& labels_per_image,
                                          const BalancedSamplerOptions& options, torch::Generator& generator);

}  // namespace mlh::common
