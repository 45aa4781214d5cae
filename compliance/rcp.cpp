#include "compliance/rcp.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <sstream>

#include <boost/math/distributions/students_t.hpp>

#include "compliance/olympic_mean.h"
#include "compliance/rcp/embedded_rcps.h"
#include "base/user_error.h"

namespace mlh {
namespace {

constexpr double kAlpha = 0.05;
constexpr double kBisectionTolerance = 1e-4;

// Reads one field of an RCP file, turning nlohmann's type errors into a UserError that names it.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) fail("", "expected a JSON object");
  }
  template <typename T>
  T required(const char* key) const {
    if (!object_.contains(key)) fail(key, "is missing");
    return get<T>(key);
  }
  template <typename T>
  T optional(const char* key, T fallback) const {
    if (!object_.contains(key) || object_[key].is_null()) return fallback;
    return get<T>(key);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw UserError(where_ + (key.empty() ? "" : ": '" + key + "'") + " " + what);
  }
  const std::string& where() const { return where_; }

 private:
  template <typename T>
  T get(const char* key) const {
    try {
      return object_[key].get<T>();
    } catch (const nlohmann::json::exception&) {
      fail(key, "has the wrong type (" + std::string(object_[key].type_name()) + ")");
    }
  }
  const nlohmann::json& object_;
  std::string where_;
};

RcpRecord parse_record(const nlohmann::json& json, const std::string& where) {
  const FieldReader field(json, where);
  RcpRecord record;
  record.name = field.required<std::string>("name");
  record.global_batch_size = field.required<int64_t>("global_batch_size");
  record.hyperparameters = field.optional<nlohmann::json>("hyperparameters", nlohmann::json::object());
  record.epochs_to_converge = field.required<std::vector<double>>("epochs_to_converge");
  record.seeds = field.optional<std::vector<int64_t>>("seeds", {});
  record.ranks = field.optional<std::vector<int64_t>>("ranks", {});
  record.commands = field.optional<std::vector<std::string>>("commands", {});
  record.creator = field.optional<std::string>("creator", "");
  record.when = field.optional<std::string>("when", "");
  record.platform = field.optional<std::string>("platform", "");
  if (record.global_batch_size <= 0) field.fail("global_batch_size", "must be positive");
  if (record.epochs_to_converge.size() < 3)
    field.fail("epochs_to_converge", "needs at least 3 reference runs (the olympic mean drops two)");
  for (double epochs : record.epochs_to_converge)
    if (!(epochs > 0)) field.fail("epochs_to_converge", "holds a value that is not positive");
  const size_t runs = record.epochs_to_converge.size();
  if (!record.seeds.empty() && record.seeds.size() != runs)
    field.fail("seeds", "must have one entry per epochs_to_converge entry");
  if (!record.ranks.empty() && record.ranks.size() != runs)
    field.fail("ranks", "must have one entry per epochs_to_converge entry");
  return record;
}

// Population standard deviation.
double stdev_of(const std::vector<double>& values) {
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double sum_of_squares = 0;
  for (double v : values) sum_of_squares += (v - mean) * (v - mean);
  return std::sqrt(sum_of_squares / static_cast<double>(values.size()));
}

// One-sided p-value that a mean of `submission_mean` (n = submission_samples) is smaller than
// `reference_mean` (n = reference_samples), both with standard deviation `stdev`: Student's t with
// a pooled (equal) variance.
double p_value_faster(double submission_mean, double reference_mean, double stdev, int reference_samples,
                      int submission_samples) {
  const double n1 = reference_samples, n2 = submission_samples;
  const double standard_error = stdev * std::sqrt(1.0 / n1 + 1.0 / n2);
  const double t = (submission_mean - reference_mean) / standard_error;
  const boost::math::students_t distribution(n1 + n2 - 2);
  return boost::math::cdf(distribution, t);
}

std::string format_epochs(double value) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << value;
  return out.str();
}

bool config_value_allowed(const nlohmann::json& effective_config, const std::string& key,
                          const nlohmann::json& allowed) {
  const bool present = effective_config.is_object() && effective_config.contains(key);
  for (const nlohmann::json& value : allowed) {
    if (value.is_null() && !present) return true;
    if (present && effective_config[key] == value) return true;
  }
  return false;
}

}  // namespace

RcpSet parse_rcp_set(const std::string& json_text, const std::string& origin) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(origin + ": not valid JSON (" + e.what() + ")");
  }
  const FieldReader field(json, origin);
  RcpSet set;
  set.benchmark = field.required<std::string>("benchmark");
  set.description = field.optional<std::string>("description", "");
  set.source = field.required<std::string>("source");
  set.ruleset = field.optional<std::string>("ruleset", "");
  set.submission_runs = field.required<int>("submission_runs");
  set.applies_to = field.optional<nlohmann::json>("applies_to", nlohmann::json::object());
  if (set.submission_runs < 3) field.fail("submission_runs", "must be at least 3");
  if (!set.applies_to.is_object()) field.fail("applies_to", "must map config keys to lists of values");
  for (const auto& [key, allowed] : set.applies_to.items())
    if (!allowed.is_array()) field.fail("applies_to", "entry '" + key + "' must be a list of allowed values");
  const auto records = field.required<std::vector<nlohmann::json>>("records");
  if (records.empty()) field.fail("records", "is empty");
  std::set<int64_t> batch_sizes;
  for (size_t i = 0; i < records.size(); ++i) {
    RcpRecord record = parse_record(records[i], origin + ": records[" + std::to_string(i) + "]");
    if (!batch_sizes.insert(record.global_batch_size).second)
      field.fail("records", "has two records with global_batch_size " + std::to_string(record.global_batch_size) +
                                "; merge their runs into one record");
    set.records.push_back(std::move(record));
  }
  std::sort(set.records.begin(), set.records.end(),
            [](const RcpRecord& a, const RcpRecord& b) { return a.global_batch_size < b.global_batch_size; });
  return set;
}

const std::vector<RcpSet>& embedded_rcp_sets() {
  static const std::vector<RcpSet> sets = [] {
    std::vector<RcpSet> parsed;
    for (const auto& [name, text] : embedded_rcp_files()) {
      RcpSet set = parse_rcp_set(text, "compliance/rcp/" + name + ".json");
      set.name = name;
      parsed.push_back(std::move(set));
    }
    return parsed;
  }();
  return sets;
}

const RcpSet* find_rcp_set(const std::vector<RcpSet>& sets, const std::string& benchmark,
                           const nlohmann::json& effective_config) {
  const RcpSet* best = nullptr;
  for (const RcpSet& set : sets) {
    if (set.benchmark != benchmark) continue;
    bool applies = true;
    for (const auto& [key, allowed] : set.applies_to.items())
      applies = applies && config_value_allowed(effective_config, key, allowed);
    if (applies && (!best || set.applies_to.size() > best->applies_to.size())) best = &set;
  }
  return best;
}

double min_acceptable_mean_epochs(double mean_epochs, double stdev_epochs, int reference_samples,
                                  int submission_samples) {
  MLH_ASSERT(reference_samples >= 1 && submission_samples >= 1 && reference_samples + submission_samples > 2);
  if (stdev_epochs == 0) return mean_epochs;
  double low = 0, high = mean_epochs;
  double middle = (low + high) / 2;
  while (high - low > kBisectionTolerance) {
    if (p_value_faster(middle, mean_epochs, stdev_epochs, reference_samples, submission_samples) > kAlpha)
      high = middle;
    else
      low = middle;
    middle = (low + high) / 2;
  }
  return middle;
}

RcpPoint rcp_point(const RcpRecord& record, int submission_runs) {
  std::vector<double> epochs = record.epochs_to_converge;
  std::sort(epochs.begin(), epochs.end());
  RcpPoint point;
  point.global_batch_size = record.global_batch_size;
  point.name = record.name;
  point.mean_epochs = std::accumulate(epochs.begin() + 1, epochs.end() - 1, 0.0) / static_cast<double>(epochs.size() - 2);
  point.stdev_epochs = stdev_of(epochs);
  point.min_epochs = min_acceptable_mean_epochs(point.mean_epochs, point.stdev_epochs,
                                                static_cast<int>(epochs.size()) - 2, submission_runs - 2);
  return point;
}

RcpPoint interpolate_rcp(int64_t global_batch_size, const RcpPoint& low, const RcpPoint& high, int submission_runs) {
  MLH_ASSERT(low.global_batch_size < global_batch_size && global_batch_size < high.global_batch_size);
  const double fraction = static_cast<double>(global_batch_size - low.global_batch_size) /
                          static_cast<double>(high.global_batch_size - low.global_batch_size);
  RcpPoint point;
  point.global_batch_size = global_batch_size;
  point.name = "interpolated between " + low.name + " and " + high.name;
  point.mean_epochs = low.mean_epochs + fraction * (high.mean_epochs - low.mean_epochs);
  point.stdev_epochs = low.stdev_epochs + fraction * (high.stdev_epochs - low.stdev_epochs);
  point.min_epochs = min_acceptable_mean_epochs(point.mean_epochs, point.stdev_epochs, 2 * submission_runs,
                                                submission_runs - 2);
  return point;
}

std::vector<RcpPoint> rcp_points(const RcpSet& set) {
  std::vector<RcpPoint> points;
  for (const RcpRecord& record : set.records) points.push_back(rcp_point(record, set.submission_runs));
  return points;
}

std::vector<RcpPoint> pruned_rcp_points(const RcpSet& set) {
  std::vector<RcpPoint> points = rcp_points(set);
  if (points.empty()) return points;
  const auto fastest = std::min_element(points.begin(), points.end(), [](const RcpPoint& a, const RcpPoint& b) {
    return a.mean_epochs < b.mean_epochs;
  });
  points.erase(points.begin(), fastest);
  // One pass from the left, as the official checker makes it: after a removal the next point is
  // tested against the same left neighbour, and earlier points are not tested again.
  size_t i = 1;
  while (i + 1 < points.size()) {
    const RcpPoint between = interpolate_rcp(points[i].global_batch_size, points[i - 1], points[i + 1], set.submission_runs);
    if (points[i].mean_epochs > between.mean_epochs)
      points.erase(points.begin() + static_cast<std::ptrdiff_t>(i));
    else
      ++i;
  }
  return points;
}

const char* to_string(RcpOutcome outcome) {
  switch (outcome) {
    case RcpOutcome::kPass: return "PASS";
    case RcpOutcome::kFail: return "FAIL";
    case RcpOutcome::kMissingRcp: return "MISSING RCP";
    case RcpOutcome::kInsufficientConvergence: return "INSUFFICIENT CONVERGENCE";
  }
  return "?";
}

RcpVerdict check_convergence(const RcpSet& set, int64_t global_batch_size,
                             const std::vector<std::optional<double>>& epochs_per_run) {
  RcpVerdict verdict;
  const auto not_converged = std::count(epochs_per_run.begin(), epochs_per_run.end(), std::nullopt);
  if (not_converged > 1) {
    verdict.outcome = RcpOutcome::kInsufficientConvergence;
    verdict.message = std::to_string(not_converged) + " of " + std::to_string(epochs_per_run.size()) +
                      " runs did not converge; the RCP test allows one";
    return verdict;
  }
  verdict.mean_epochs = olympic_mean(epochs_per_run);
  if (!verdict.mean_epochs) {
    verdict.outcome = RcpOutcome::kInsufficientConvergence;
    verdict.message = "needs at least 3 runs for an olympic mean of epochs, got " + std::to_string(epochs_per_run.size());
    return verdict;
  }

  const std::vector<RcpPoint> points = pruned_rcp_points(set);
  const std::string batch = "batch size " + std::to_string(global_batch_size);
  const auto at_or_above = std::find_if(points.begin(), points.end(), [&](const RcpPoint& p) {
    return p.global_batch_size >= global_batch_size;
  });
  if (at_or_above == points.end()) {
    verdict.outcome = RcpOutcome::kMissingRcp;
    verdict.message = "no RCP for " + batch + ": the largest in " + set.name + " is " +
                      std::to_string(points.back().global_batch_size) + "; measure one at this batch size";
    return verdict;
  }
  const bool below_all = at_or_above == points.begin() && at_or_above->global_batch_size != global_batch_size;
  if (at_or_above->global_batch_size == global_batch_size || below_all)
    verdict.reference = *at_or_above;
  else
    verdict.reference = interpolate_rcp(global_batch_size, *(at_or_above - 1), *at_or_above, set.submission_runs);

  const RcpPoint& reference = *verdict.reference;
  const std::string comparison = "mean epochs " + format_epochs(*verdict.mean_epochs) + " vs min " +
                                 format_epochs(reference.min_epochs) + " (RCP mean " +
                                 format_epochs(reference.mean_epochs) + ", stdev " +
                                 format_epochs(reference.stdev_epochs) + ", " + reference.name + ")";
  const bool passes = *verdict.mean_epochs >= reference.min_epochs;
  if (passes) {
    verdict.outcome = RcpOutcome::kPass;
    verdict.score_scale = std::max(1.0, reference.mean_epochs / *verdict.mean_epochs);
    verdict.message = (below_all ? "no RCP for " + batch + ", but converges no faster than the smallest: " : "") + comparison;
  } else if (below_all) {
    verdict.outcome = RcpOutcome::kMissingRcp;
    verdict.message = "no RCP for " + batch + ", and converges faster than the smallest-batch RCP allows: " + comparison;
  } else {
    verdict.outcome = RcpOutcome::kFail;
    verdict.message = "converges faster than the reference allows: " + comparison;
  }
  return verdict;
}

}  // namespace mlh
