// MLPerf's quality model: an evaluation measures several named values, and a run has reached its
// target when every target holds at one evaluation (Mask R-CNN: box AP >= 0.377 and mask AP >= 0.339).
// A target is `>=` its value, or `>` when the reference compares strictly (Transformer: BLEU > 25).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlh {

// What one evaluation measured, by name, e.g. {"top1": 0.761} or {"BBOX": 0.38, "SEGM": 0.34}. The
// run record keeps every value; the targets' values are logged as eval_accuracy.
struct Quality {
  std::map<std::string, double> values;
};

struct QualityTarget {
  std::string name;     // a key of Quality::values
  double value = 0;
  bool strict = false;  // reached when the quality is > value; otherwise >= value

  bool reached_by(double quality) const { return strict ? quality > value : quality >= value; }
  std::string describe() const;  // "BBOX >= 0.3770", "bleu/100 > 0.2500"
  // A measured value against this target: "top1 0.8751 (target >= 0.8800)"; "-" when not measured.
  std::string describe_measured(const double* measured) const;
};

// Throws InternalError (a workload bug) unless there is at least one target, the names are distinct
// and non-empty and the values finite.
void check_targets(const std::vector<QualityTarget>& targets);
// The target's value in `quality`; InternalError when the evaluation did not measure it.
double quality_value(const Quality& quality, const QualityTarget& target);
// True when every target holds.
bool reaches_all(const Quality& quality, const std::vector<QualityTarget>& targets);
// eval_accuracy as the references log it: the value for one target, an object {name: value} of the
// targets' values for several (Mask R-CNN: {"BBOX": .., "SEGM": ..}).
nlohmann::json eval_accuracy_value(const Quality& quality, const std::vector<QualityTarget>& targets);
// "BBOX >= 0.3770 and SEGM >= 0.3390".
std::string describe_targets(const std::vector<QualityTarget>& targets);
// For the console: "BBOX 0.3812 (target >= 0.3770), SEGM 0.3301 (target >= 0.3390)".
std::string describe_quality(const Quality& quality, const std::vector<QualityTarget>& targets);

}  // namespace mlh
