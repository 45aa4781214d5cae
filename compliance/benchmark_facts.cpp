#include "compliance/benchmark_facts.h"

#include <algorithm>
#include <map>

#include "compliance/rule_set.h"

namespace mlh {

namespace {

// The eval_accuracy rule of the newest embedded rule set that has a closed-division file for
// `benchmark` (v0.7 names its files closed_<benchmark>; v0.6 names them <benchmark>).
std::optional<KeyRule> newest_accuracy_rule(const std::string& benchmark) {
  std::vector<std::string> rulesets = known_rulesets();
  std::reverse(rulesets.begin(), rulesets.end());  // newest first
  for (const std::string& ruleset : rulesets) {
    std::optional<RuleFile> file = load_rule_file(ruleset, "closed_" + benchmark);
    if (!file) file = load_rule_file(ruleset, benchmark);
    if (!file) continue;
    for (const KeyRule& rule : file->keys) {
      if (rule.key == "eval_accuracy" && rule.target_value) return rule;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> mlperf_quality_target(const std::string& benchmark) {
  const std::optional<KeyRule> rule = newest_accuracy_rule(benchmark);
  return rule ? rule->target_value : std::nullopt;
}

std::vector<MemberTarget> mlperf_member_targets(const std::string& benchmark) {
  std::vector<MemberTarget> targets;
  if (const std::optional<KeyRule> rule = newest_accuracy_rule(benchmark))
    for (const auto& [name, value] : rule->member_target_values) targets.push_back({name, value});
  return targets;
}

std::vector<EpochSamples> mlperf_epoch_samples(const std::string& benchmark) {
  // shared/spec/workloads.md: ImageNet train; COCO train2017 with annotations (Mask R-CNN's filter
  // may differ slightly: within the tolerance); WMT16 pairs of at most 50 (reference) or 75 (NVIDIA)
  // tokens; WMT17 pairs; MovieLens-20M train positives, alone or with their 4 negatives each.
  static const std::map<std::string, std::vector<EpochSamples>> epochs = {
      {"resnet", {{1281167, 1281167, "1,281,167 ImageNet images"}}},
      {"ssd", {{117266, 117266, "117,266 COCO train2017 images"}}},
      {"maskrcnn", {{117266, 117266, "117,266 COCO train2017 images"}}},
      {"gnmt", {{3498161, 3975116, "3,498,161 to 3,975,116 WMT16 sentence pairs"}}},
      {"transformer", {{4590101, 4590101, "4,590,101 WMT17 sentence pairs"}}},
      {"ncf", {{19861770, 19861770, "19,861,770 MovieLens-20M train ratings"},
               {99308850, 99308850, "99,308,850 with 4 negatives each"}}}};
  const auto it = epochs.find(benchmark);
  return it == epochs.end() ? std::vector<EpochSamples>{} : it->second;
}

}  // namespace mlh
