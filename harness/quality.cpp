#include "harness/quality.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "base/user_error.h"

namespace mlh {

namespace {

std::string fixed4(double value) {
  char text[48];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

}  // namespace

std::string QualityTarget::describe() const { return name + (strict ? " > " : " >= ") + fixed4(value); }

std::string QualityTarget::describe_measured(const double* measured) const {
  return name + " " + (measured ? fixed4(*measured) : std::string("-")) + " (target " + (strict ? "> " : ">= ") +
         fixed4(value) + ")";
}

void check_targets(const std::vector<QualityTarget>& targets) {
  if (targets.empty()) throw InternalError("the workload declared no quality target");
  std::set<std::string> names;
  for (const QualityTarget& target : targets) {
    if (target.name.empty()) throw InternalError("a quality target has no name");
    if (!names.insert(target.name).second) throw InternalError("quality target '" + target.name + "' declared twice");
    if (!std::isfinite(target.value))
      throw InternalError("quality target '" + target.name + "' is not a finite number");
  }
}

double quality_value(const Quality& quality, const QualityTarget& target) {
  const auto found = quality.values.find(target.name);
  if (found == quality.values.end())
    throw InternalError("the evaluation measured no '" + target.name + "', the name of a quality target");
  return found->second;
}

bool reaches_all(const Quality& quality, const std::vector<QualityTarget>& targets) {
  bool all = true;
  for (const QualityTarget& target : targets) all = target.reached_by(quality_value(quality, target)) && all;
  return all;
}

nlohmann::json eval_accuracy_value(const Quality& quality, const std::vector<QualityTarget>& targets) {
  if (targets.size() == 1) return quality_value(quality, targets.front());
  nlohmann::json object = nlohmann::json::object();
  for (const QualityTarget& target : targets) object[target.name] = quality_value(quality, target);
  return object;
}

std::string describe_targets(const std::vector<QualityTarget>& targets) {
  std::string text;
  for (const QualityTarget& target : targets) text += (text.empty() ? "" : " and ") + target.describe();
  return text;
}

std::string describe_quality(const Quality& quality, const std::vector<QualityTarget>& targets) {
  std::string text;
  for (const QualityTarget& target : targets) {
    const double measured = quality_value(quality, target);
    text += (text.empty() ? "" : ", ") + target.describe_measured(&measured);
  }
  return text;
}

}  // namespace mlh
