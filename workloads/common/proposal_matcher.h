// Mask R-CNN's matching of predictions (anchors or proposals) to ground truth (spec/workloads.md §4),
// as the MLPerf v0.7 reference's Matcher (maskrcnn_benchmark/modeling/matcher.py):
//  - each prediction takes the ground truth of its highest quality (IoU); ties: the lowest gt index;
//  - its match is kept when that quality >= high_threshold, becomes kBetweenThresholds when it is in
//    [low_threshold, high_threshold) and kBelowLowThreshold when it is < low_threshold (NaN keeps
//    the match, as the reference's comparisons do);
//  - with allow_low_quality_matches, every prediction that attains some ground truth's highest quality
//    (all ties) keeps its own best match from the first step whatever the thresholds. A ground truth
//    that overlaps nothing has highest quality 0 and so restores every prediction it does not
//    overlap, as in the reference.
// The RPN uses 0.7 / 0.3 with low-quality matches, the box head 0.5 / 0.5 without.
// Runs on the device of the quality matrix; no host synchronisation.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace mlh::common {

inline constexpr int64_t kBelowLowThreshold = -1;
inline constexpr int64_t kBetweenThresholds = -2;

struct ProposalMatcherOptions {
  double high_threshold = 0.5;
  double low_threshold = 0.5;  // <= high_threshold
  bool allow_low_quality_matches = false;
};

inline constexpr ProposalMatcherOptions kRpnMatcherOptions{0.7, 0.3, true};
inline constexpr ProposalMatcherOptions kRoiHeadsMatcherOptions{0.5, 0.5, false};

// quality [G, P] floating point (ground truth x predictions, e.g. box_iou(gt, predictions)). Returns
// [P] int64 on its device: the matched ground-truth index in [0, G), kBelowLowThreshold or
// kBetweenThresholds. G = 0 (an image without ground truth) gives kBelowLowThreshold for every
// prediction, i.e. all background; the reference raises instead ("No ground-truth boxes available"),
// never reached in its training because its COCO loader drops images without annotations. P = 0 gives
// an empty result.
torch::Tensor match_proposals(const torch::Tensor& quality, const ProposalMatcherOptions& options);

}  // namespace mlh::common
