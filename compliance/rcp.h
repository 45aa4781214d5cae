// Reference convergence points (RCPs, spec/mlperf-logging.md §6): how many epochs a benchmark needs
// at a global batch size across reference seeds, and the test that a set of submission runs does not
// converge faster than the references allow.
//
// An RCP set is one compliance/rcp/<name>.json (format: compliance/rcp/README.md): the official
// MLPerf points (resnet, ssd, maskrcnn, from mlcommons/logging's rcp_checker) and our own points for
// the mini configs (mini_<workload>.json). `applies_to` names the effective-config values a run must
// have for the set to apply (JSON null: the key is absent, as in logs not written by mlharness).
//
// The statistics, per record: sort the reference epochs; mean = olympic mean (drop the lowest and
// the highest), stdev = population stdev of all of them; min epochs = the smallest submission mean
// that a one-sided, equal-variance t-test at alpha 0.05 does not call faster than the reference
// (reference n = runs - 2, submission n = submission_runs - 2), found by bisection on [0, mean].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlh {

struct RcpRecord {
  std::string name;
  int64_t global_batch_size = 0;
  nlohmann::json hyperparameters = nlohmann::json::object();
  std::vector<double> epochs_to_converge;  // one per reference run, as listed in the file
  std::vector<int64_t> seeds;              // parallel to epochs_to_converge, or empty when unknown
  std::vector<int64_t> ranks;              // parallel to epochs_to_converge, or empty when unknown
  std::vector<std::string> commands;       // how the reference runs were made ("{seed}": the seed)
  std::string creator, when, platform;     // provenance, "" when not given
};

struct RcpSet {
  std::string name;                        // the file stem, e.g. "resnet", "mini_gnmt"
  std::string benchmark;                   // MLPerf name
  std::string description, source, ruleset;
  int submission_runs = 0;                 // runs in a submission (N); the t-test uses N - 2
  nlohmann::json applies_to = nlohmann::json::object();
  std::vector<RcpRecord> records;          // ascending global batch size, one per batch size
};

// Throws UserError naming `origin` and the field when the text is not a valid RCP set.
RcpSet parse_rcp_set(const std::string& json_text, const std::string& origin);
// The sets compiled in from compliance/rcp/*.json, parsed once.
const std::vector<RcpSet>& embedded_rcp_sets();
// The set for runs of `benchmark` whose effective config (an object, or null for logs that have
// none) satisfies its applies_to; the one with the most applies_to keys wins. nullptr when none.
const RcpSet* find_rcp_set(const std::vector<RcpSet>& sets, const std::string& benchmark,
                           const nlohmann::json& effective_config);

// A record's statistics, or an interpolated point between two records.
struct RcpPoint {
  int64_t global_batch_size = 0;
  double mean_epochs = 0;
  double stdev_epochs = 0;
  double min_epochs = 0;                   // the smallest submission mean that passes
  std::string name;                        // record name, or "interpolated between A and B"
};

// The bisection described above (stdev 0: min = mean).
double min_acceptable_mean_epochs(double mean_epochs, double stdev_epochs, int reference_samples,
                                  int submission_samples);
RcpPoint rcp_point(const RcpRecord& record, int submission_runs);
// Linear interpolation of mean and stdev at `global_batch_size` between `low` and `high`; as the
// official checker does, the reference n of an interpolated point is 2 x submission_runs.
RcpPoint interpolate_rcp(int64_t global_batch_size, const RcpPoint& low, const RcpPoint& high,
                         int submission_runs);
// Every record's point, ascending batch size.
std::vector<RcpPoint> rcp_points(const RcpSet& set);
// The points the test uses: drop every record below the batch size of the fastest-converging one,
// then every record that converges slower than the interpolation of its neighbours.
std::vector<RcpPoint> pruned_rcp_points(const RcpSet& set);

enum class RcpOutcome {
  kPass,                     // mean epochs >= min epochs of the matched or interpolated point
  kFail,                     // converges faster than the reference allows
  kMissingRcp,               // batch size above every RCP, or below all and faster than the smallest
  kInsufficientConvergence,  // more than one run did not converge
};
const char* to_string(RcpOutcome outcome);

struct RcpVerdict {
  RcpOutcome outcome = RcpOutcome::kMissingRcp;
  std::optional<RcpPoint> reference;       // the point compared with
  std::optional<double> mean_epochs;       // olympic mean of the submission's epochs
  // RCP mean / submission mean when the submission passes faster than the RCP mean (the official
  // checker's score normalisation), else 1.
  double score_scale = 1.0;
  std::string message;                     // one line: what was compared and why it passes or fails
};

// `epochs_per_run`: epochs to converge per run, nullopt for a run that did not converge (it counts
// as the slowest; more than one makes the convergence insufficient).
RcpVerdict check_convergence(const RcpSet& set, int64_t global_batch_size,
                             const std::vector<std::optional<double>>& epochs_per_run);

}  // namespace mlh
