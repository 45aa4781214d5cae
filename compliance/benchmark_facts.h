// What MLPerf states of each training benchmark besides its log's rules, in one place: the quality
// target (read from the rule files the checker applies, so it is stated once) and the size of a
// training epoch (shared/spec/workloads.md). For reports of logs that do not state them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mlh {

// The eval_accuracy target of `benchmark` (a canonical name, benchmark_names.h) in the newest
// embedded rule set that has a closed-division file for it: resnet top-1 0.759, ssd mAP 0.23,
// maskrcnn box mAP 0.377 (the first of its two), gnmt BLEU/100 0.24, transformer BLEU/100 0.25, ncf
// HR@10 0.635. nullopt for a name with no such file.
std::optional<double> mlperf_quality_target(const std::string& benchmark);

// One number of a quality of several and its target: Mask R-CNN's box AP, {"BBOX", 0.377}.
struct MemberTarget {
  std::string name;
  double value = 0;
};
// The targets of a benchmark whose eval_accuracy is an object, member by member, from the same rule
// file (`reaches: {at: ...}`), in its order: maskrcnn BBOX 0.377, SEGM 0.339. Empty for a benchmark
// whose accuracy is one number.
std::vector<MemberTarget> mlperf_member_targets(const std::string& benchmark);

// The samples of one training epoch of an MLPerf benchmark's dataset, as ranges, any of which fits:
// gnmt's depends on the length filter a submitter chose (50 or 75 tokens), ncf's on whether the 4
// negatives per positive are counted. Empty for a benchmark whose epoch is not fixed (or unknown),
// and for the names of runs on stand-in data.
struct EpochSamples {
  double min = 0;
  double max = 0;
  const char* what = "";  // "117,266 COCO train2017 images"
};
std::vector<EpochSamples> mlperf_epoch_samples(const std::string& benchmark);

}  // namespace mlh
