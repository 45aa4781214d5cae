// What one MLPerf result log says about its run, whatever its line format (v0.5 `:::MLPv0.5.0`,
// v0.6 `:::MLL`, v0.7+ `:::MLLOG`): the facts that scoring, reference convergence points and the
// report need. It does not judge compliance (that is the checker's job); it reads.
//
// Conventions (spec/mlperf-logging.md §6, §7):
// - time to train = run_stop - run_start;
// - converged = the run's own log says so (converged_by_own_log): run_stop says success (v0.6+:
//   metadata.status "success"; v0.5: value {"success": true}, or "true" as Google's TPU logs wrote it)
//   and, when the log names its target (eval_target) and the accuracy is a number, the last
//   eval_accuracy before run_stop reaches it; a run_stop that gives no verdict (NVIDIA's v0.5
//   ResNet-50 and Transformer logs) converged when that accuracy reaches the logged target. An accuracy
//   of several numbers (Mask R-CNN's {"BBOX": .., "SEGM": ..}) is judged the same way member by member
//   against member_targets: reached only when every member reaches its own. "Reaches"
//   allows kTargetTolerance: the rounds logged float32 accuracies (a v0.5 DGX-2 GNMT run stops with
//   success at BLEU 21.799999 of 21.8);
// - benchmark = the logged name made canonical (benchmark_names.h: Google's v0.6 "mask" is maskrcnn);
// - epochs to converge = the epoch of the last eval_accuracy before that run_stop (v0.6+:
//   metadata.epoch_num, epochs counted from 1; v0.5: value.epoch, counted from 0, so + 1);
// - a run resumed from a checkpoint (mlharness_resumed_from) times only its resumed part, so it is
//   no compliant result and no scored run (resumed_run_reason says why, for check and score alike).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/benchmark_facts.h"
#include "compliance/log_reader.h"

namespace mlh {

struct EvalAccuracyPoint {
  double epoch = 0;            // as the log counts them, v0.5 shifted to count from 1
  nlohmann::json value;        // a number, or an object such as {"BBOX": .., "SEGM": ..}
  double time_ms = 0;
};

struct RunSummary {
  std::string path;
  LogFormat format = LogFormat::kMllog;
  std::string benchmark;       // canonical_benchmark(logged_benchmark)
  std::string logged_benchmark;  // submission_benchmark, or the v0.5 lines' benchmark field
  std::string platform;        // submission_platform ("" when not logged)
  std::string division;        // submission_division ("" when not logged)
  std::string org;             // submission_org ("" when not logged)
  std::optional<int64_t> seed;
  std::optional<int64_t> global_batch_size;  // global_batch_size (v0.5: input_batch_size)
  std::optional<double> run_start_ms;
  std::optional<double> run_stop_ms;
  std::string status;          // "success", "aborted", ... ("" without run_stop, or a run_stop without a verdict)
  std::optional<double> target;              // eval_target, when logged as a number
  // The targets of an eval_accuracy of several numbers, member by member: an eval_target object the log
  // names, else MLPerf's for the benchmark (mlperf_member_targets: maskrcnn BBOX 0.377, SEGM 0.339);
  // empty when every eval_accuracy is one number.
  std::vector<MemberTarget> member_targets;
  std::vector<EvalAccuracyPoint> evals;      // every eval_accuracy, in log order
  nlohmann::json effective_config;           // mlharness_effective_config (null in others' logs)
  bool written_by_mlharness = false;         // the log has mlharness_* lines: the user's own run
  bool resumed = false;                      // the log has a mlharness_resumed_from line
  std::optional<int64_t> resumed_from_epoch;  // the last epoch its checkpoint had finished
  std::string resumed_from_checkpoint;        // the checkpoint's path ("" when the line does not say)
  std::string resumed_from_log;               // the interrupted run's log ("" when the line does not say)
  bool converged = false;
  std::optional<double> epochs_to_converge;  // set when converged
  std::vector<std::string> problems;          // why it cannot be used: no run_start, parse errors, ...

  // run_stop - run_start in minutes (nullopt without both).
  std::optional<double> time_to_train_minutes() const;
  bool usable() const { return problems.empty(); }
};

RunSummary summarize_run(const ParsedLog& log);

// Relative tolerance of "reaches the target": 1e-6, about 8 float32 ulps, far below any accuracy step.
constexpr double kTargetTolerance = 1e-6;
bool reaches_target(double accuracy, double target);

// The members of an eval_accuracy value of several numbers, in `targets`' order: an object's by name
// ({"BBOX": .., "SEGM": ..}), an array's by position (Google's v0.6 Mask R-CNN logs: [box AP, mask AP]);
// nullopt for a member it lacks. Empty when the value is neither an object nor an array.
std::vector<std::optional<double>> member_values(const nlohmann::json& value, const std::vector<MemberTarget>& targets);

// The members of `value` that miss their targets, "SEGM 0.3301 < 0.339" (or "SEGM missing"),
// ", "-joined; "" when every member reaches its own.
std::string members_below_target(const nlohmann::json& value, const std::vector<MemberTarget>& targets);

// The convergence rule above, from the run's status, target and evals (score and report both use it
// through RunSummary::converged).
bool converged_by_own_log(const RunSummary& run);

// What a mlharness_resumed_from line's value says (fields the value lacks stay empty).
struct ResumedFrom {
  std::optional<int64_t> epoch;
  std::string checkpoint;
  std::string log_file;
};
ResumedFrom read_resumed_from(const nlohmann::json& value);

// "resumed from a checkpoint after epoch 5 (results/.../epoch_0005): a resumed run's time to train is
// not a compliant result"; without the epoch or the checkpoint, the text leaves them out.
std::string resumed_run_reason(const ResumedFrom& resumed);

}  // namespace mlh
