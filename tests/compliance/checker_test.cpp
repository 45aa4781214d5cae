// The compliance checker against the official one: the published result logs and a set of broken
// logs written here get the verdict the official mlperf_logging checker gives them.
//
// Official verdicts recorded with mlcommons/logging at 7bbf792686936919201796120b970dd820331099:
//   cd mlcommons-logging && PYTHONPATH=. python3 -m mlperf_logging.compliance_checker
//       --usage training --ruleset 0.7.0|0.6.0 LOG      (one command)
// (SUCCESS -> PASS; FAILED or a crash -> FAIL; the cases marked "official: crashes" end in a
// Python traceback: a missing rules file, or a line without metadata). It has no NCF rules: v0.5
// NCF logs and mlharness's NCF logs are judged by our own rules, expected values derived from the
// logs themselves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "compliance/checker.h"
#include "compliance/log_reader.h"
#include "compliance/rule_set.h"
#include "base/user_error.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"
#include "tests/user_error_of.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string all_failures(const CheckResult& result) {
  std::string text;
  for (const RuleFailure& failure : result.failures) text += failure.to_string() + "\n";
  return text;
}

// ---------------------------------------------------------------------------------------------
// Every embedded rules file reads.

TEST(CheckRules, EveryEmbeddedFileParses) {
  const std::vector<std::string> names = embedded_rule_file_names();
  EXPECT_GE(names.size(), 27u);
  for (const std::string& name : names) {
    const size_t slash = name.find('/');
    ASSERT_NE(slash, std::string::npos) << name;
    std::optional<RuleFile> file;
    EXPECT_NO_THROW(file = load_rule_file(name.substr(0, slash), name.substr(slash + 1))) << name;
    ASSERT_TRUE(file.has_value()) << name;
    EXPECT_FALSE(file->keys.empty()) << name;
  }
  EXPECT_EQ(known_compliance_rulesets(), (std::vector<std::string>{"0.5.0", "0.6.0", "0.7.0"}));
}

TEST(CheckRules, MalformedRulesAreInternalErrors) {
  EXPECT_THROW(parse_rule_file("x", "y", "keys:\n  a: {count: twice}\n"), InternalError);
  EXPECT_THROW(parse_rule_file("x", "y", "keys:\n  a: {value: {bigger: 3}}\n"), InternalError);
  EXPECT_THROW(parse_rule_file("x", "y", "keys:\n  a: {inside: [nowhere]}\n"), InternalError);
  EXPECT_THROW(parse_rule_file("x", "y", "rules: []\n"), InternalError);
}

// ---------------------------------------------------------------------------------------------
// Published logs (tests/data/mlperf-results, a sample; README.md there): our verdict equals the
// official checker's.

const fs::path kPublished = test_paths::source_dir() + "/tests/data/mlperf-results";

struct PublishedVerdict {
  const char* path;     // below mlperf-results
  const char* ruleset;
  bool passes;
};

// Every v0.6 and v0.7 log passes the official checker (SUCCESS). The v0.5 NCF logs have no
// official checker: a run passes our 0.5.0 rules when run_stop says {"success": true} and an
// eval_accuracy reached HR@10 0.635; result_2 ends with success false below it.
std::vector<PublishedVerdict> published_verdicts() {
  std::vector<PublishedVerdict> verdicts;
  static std::vector<std::string> paths;  // keeps the c_str()s alive
  paths.clear();
  paths.reserve(50);
  auto add = [&](const std::string& path, const char* ruleset, bool passes) {
    paths.push_back(path);
    verdicts.push_back({paths.back().c_str(), ruleset, passes});
  };
  for (int i = 0; i < 10; ++i) {
    const std::string n = std::to_string(i);
    add("v0.6/NVIDIA/results/dgx1_ngc19.05_pytorch/transformer/result_" + n + ".txt", "0.6.0", true);
    add("v0.7/DellEMC/results/C4140/transformer/result_" + n + ".txt", "0.7.0", true);
  }
  for (int i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i);
    add("v0.7/NVIDIA/results/dgx1_ngc20.06_pytorch/ssd/result_" + n + ".txt", "0.7.0", true);
    add("v0.7/DellEMC/results/DSS8440/ssd/result_" + n + ".txt", "0.7.0", true);
  }
  for (int i = 0; i < 6; ++i)
    add("v0.5/v0.5.0/nvidia/submission/results/dgx1_ngc18.11_pytorch/ncf/result_" + std::to_string(i) + ".txt", "0.5.0", i != 2);
  return verdicts;
}

TEST(CheckPublished, VerdictsEqualTheOfficialChecker) {
  int checked = 0;
  for (const PublishedVerdict& expected : published_verdicts()) {
    const ParsedLog log = read_log_file((kPublished / expected.path).string());
    EXPECT_EQ(default_ruleset(log), expected.ruleset) << expected.path;
    const CheckResult result = check_log(log, expected.ruleset);
    EXPECT_EQ(result.passed, expected.passes) << expected.path << "\n" << all_failures(result);
    ++checked;
  }
  EXPECT_EQ(checked, 36);
}

// Every result file of the sample is in the list above: none is left unchecked.
TEST(CheckPublished, TheListCoversTheSample) {
  std::set<std::string> listed;
  for (const PublishedVerdict& expected : published_verdicts()) listed.insert(expected.path);
  int files = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kPublished)) {
    if (entry.path().extension() != ".txt") continue;
    ++files;
    EXPECT_EQ(listed.count(entry.path().lexically_relative(kPublished).generic_string()), 1u) << entry.path();
  }
  EXPECT_EQ(files, 36);
}

// The target fails the run; its run_stop status, which the v0.5 checker did not read, is a warning.
TEST(CheckPublished, FailingNcfRunsNameTheTargetAndTheStatus) {
  const fs::path path = kPublished / "v0.5/v0.5.0/nvidia/submission/results/dgx1_ngc18.11_pytorch/ncf/result_2.txt";
  const CheckResult result = check_log(read_log_file(path.string()));
  EXPECT_EQ(result.ruleset, "0.5.0");
  EXPECT_EQ(result.benchmark, "ncf");
  ASSERT_EQ(result.failures.size(), 1u) << all_failures(result);
  EXPECT_THAT(result.failures.front().to_string(), HasSubstr("eval_accuracy: reaches: none of"));
  EXPECT_THAT(result.warnings, ::testing::Contains(HasSubstr("run_stop: value: [success] false is not one of [true,\"true\"]")));
}

// ---------------------------------------------------------------------------------------------
// Logs written here, good and broken, in the three formats.

struct Line {
  double time_ms;
  std::string key;
  json value;
  json metadata;
};
using Lines = std::vector<Line>;

constexpr double kStartMs = 1593000000000;

std::string event_type(const std::string& key) {
  auto ends_with = [&key](const std::string& tail) {
    return key.size() > tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with("_start") ? "INTERVAL_START" : ends_with("_stop") ? "INTERVAL_END" : "POINT_IN_TIME";
}

std::string mllog_text(const Lines& lines) {
  std::string text;
  int lineno = 100;
  for (const Line& line : lines) {
    json metadata = {{"file", "train.py"}, {"lineno", lineno++}};
    if (line.metadata.is_object()) metadata.update(line.metadata);
    text += ":::MLLOG {\"namespace\": \"\", \"time_ms\": " + std::to_string(static_cast<long long>(line.time_ms)) +
            ", \"event_type\": \"" + event_type(line.key) + "\", \"key\": \"" + line.key +
            "\", \"value\": " + line.value.dump() + ", \"metadata\": " + metadata.dump() + "}\n";
  }
  return text;
}

std::string mll_text(const Lines& lines) {
  std::string text;
  int lineno = 100;
  for (const Line& line : lines) {
    json metadata = {{"file", "train.py"}, {"lineno", lineno++}};
    if (line.metadata.is_object()) metadata.update(line.metadata);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", line.time_ms / 1000.0);
    text += std::string(":::MLL ") + seconds + " " + line.key + ": " +
            json{{"value", line.value}, {"metadata", metadata}}.dump() + "\n";
  }
  return text;
}

using Hyperparameters = std::vector<std::pair<std::string, json>>;

// A run that logs everything the rules ask for: one block (epoch + eval) per accuracy.
Lines run_log(const std::string& benchmark, const Hyperparameters& hyperparameters, const std::vector<json>& accuracies,
              bool v06 = false) {
  double t = kStartMs;
  Lines lines = {{t, "submission_benchmark", benchmark, {}},
                 {t, "submission_org", "mlharness", {}},
                 {t, "submission_division", "closed", {}},
                 {t, "submission_status", "onprem", {}},
                 {t, "submission_platform", "1xTest", {}}};
  if (v06) {
    lines.push_back({t, "submission_poc_name", "Someone", {}});
    lines.push_back({t, "submission_entry", "{}", {}});
  }
  lines.push_back({t += 1000, "cache_clear", true, {}});
  lines.push_back({t += 1000, "init_start", nullptr, {}});
  for (const auto& [key, value] : hyperparameters) lines.push_back({t += 10, key, value, {}});
  lines.push_back({t += 60000, "init_stop", nullptr, {}});
  lines.push_back({t += 10, "run_start", nullptr, {}});
  lines.push_back({t += 10, "train_samples", 1000, {}});
  lines.push_back({t += 10, "eval_samples", 100, {}});
  int epoch = 1;
  for (const json& accuracy : accuracies) {
    lines.push_back({t += 10, "block_start", nullptr, {{"first_epoch_num", epoch}, {"epoch_count", 1}}});
    lines.push_back({t += 10, "epoch_start", nullptr, {{"epoch_num", epoch}}});
    lines.push_back({t += 60000, "epoch_stop", nullptr, {{"epoch_num", epoch}}});
    lines.push_back({t += 10, "eval_start", nullptr, {{"epoch_num", epoch}}});
    lines.push_back({t += 1000, "eval_accuracy", accuracy, {{"epoch_num", epoch}}});
    lines.push_back({t += 10, "eval_stop", nullptr, {{"epoch_num", epoch}}});
    lines.push_back({t += 10, "block_stop", nullptr, {{"first_epoch_num", epoch}}});
    ++epoch;
  }
  lines.push_back({t += 10, "run_stop", nullptr, {{"status", "success"}}});
  return lines;
}

const Hyperparameters kGnmtHyperparameters = {
    {"global_batch_size", 1024}, {"opt_base_learning_rate", 0.002}, {"opt_learning_rate_alt_decay_func", true},
    {"opt_learning_rate_alt_warmup_func", true}, {"opt_learning_rate_decay_factor", 0.5},
    {"opt_learning_rate_decay_interval", 809}, {"opt_learning_rate_decay_steps", 4},
    {"opt_learning_rate_remain_steps", 6453}, {"opt_learning_rate_warmup_steps", 200}, {"max_sequence_length", 75}};
const Hyperparameters kTransformerHyperparameters = {
    {"global_batch_size", 10240}, {"opt_name", "adam"}, {"opt_base_learning_rate", 1.976}, {"opt_learning_rate_warmup_steps", 1000},
    {"opt_adam_beta_1", 0.9}, {"opt_adam_beta_2", 0.98}, {"opt_adam_epsilon", 1e-9}, {"max_sequence_length", 256}};
const Hyperparameters kResnetLarsHyperparameters = {
    {"global_batch_size", 3264}, {"opt_name", "lars"}, {"lars_opt_base_learning_rate", 10.5},
    {"lars_opt_end_learning_rate", 0.0001}, {"lars_opt_learning_rate_decay_poly_power", 2},
    {"lars_opt_learning_rate_decay_steps", 14523}, {"lars_epsilon", 0.0}, {"lars_opt_learning_rate_warmup_epochs", 2},
    {"lars_opt_momentum", 0.9}, {"lars_opt_weight_decay", 0.00005}};
const Hyperparameters kMaskrcnnHyperparameters = {
    {"global_batch_size", 32}, {"opt_base_learning_rate", 0.04}, {"opt_learning_rate_warmup_steps", 625},
    {"opt_learning_rate_warmup_factor", 0.000256}, {"num_image_candidates", 6000}, {"opt_learning_rate_decay_factor", 0.1},
    {"opt_learning_rate_decay_steps", json::array({24000, 32000})}, {"min_image_size", 800}, {"max_image_size", 1333}};
const Hyperparameters kSsdHyperparameters = {
    {"global_batch_size", 1024}, {"model_bn_span", 32}, {"opt_learning_rate_warmup_factor", 0},
    {"opt_learning_rate_warmup_steps", 650}, {"opt_weight_decay", 0.0001}, {"opt_base_learning_rate", 0.003},
    {"max_samples", 1}, {"opt_learning_rate_decay_boundary_epochs", json::array({44, 55})}};

Lines good_gnmt() { return run_log("gnmt", kGnmtHyperparameters, {0.2012, 0.2310, 0.2421}); }
Lines good_transformer() {
  Lines lines = run_log("transformer", kTransformerHyperparameters, {0.21, 0.2512});
  for (Line& line : lines) {
    if (line.key == "max_sequence_length") line.metadata = {{"method", "discard"}};
  }
  return lines;
}

// Transformations of a good log.
Lines without(Lines lines, const std::string& key) {
  lines.erase(std::remove_if(lines.begin(), lines.end(), [&key](const Line& line) { return line.key == key; }), lines.end());
  return lines;
}
Lines with_value(Lines lines, const std::string& key, const json& value) {
  for (Line& line : lines) {
    if (line.key == key) line.value = value;
  }
  return lines;
}
Lines with_metadata(Lines lines, const std::string& key, const std::string& field, const json& value) {
  for (Line& line : lines) {
    if (line.key == key) line.metadata[field] = value;
  }
  return lines;
}
Lines without_metadata(Lines lines, const std::string& key, const std::string& field) {
  for (Line& line : lines) {
    if (line.key == key) line.metadata.erase(field);
  }
  return lines;
}
Lines repeated(Lines lines, const std::string& key, const json& value) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].key != key) continue;
    Line copy = lines[i];
    copy.value = value;
    lines.insert(lines.begin() + static_cast<long>(i) + 1, copy);
    return lines;
  }
  return lines;
}
// Moves the first `key` line to just before the first `before` line.
Lines moved_before(Lines lines, const std::string& key, const std::string& before) {
  auto from = std::find_if(lines.begin(), lines.end(), [&key](const Line& line) { return line.key == key; });
  Line moved = *from;
  lines.erase(from);
  auto to = std::find_if(lines.begin(), lines.end(), [&before](const Line& line) { return line.key == before; });
  moved.time_ms = to->time_ms;
  lines.insert(to, moved);
  return lines;
}
Lines init_stop_after_minutes(Lines lines, double minutes) {
  double init_start_ms = 0;
  double shift_ms = 0;
  for (Line& line : lines) {
    if (line.key == "init_start" && init_start_ms == 0) init_start_ms = line.time_ms;
    if (line.key == "init_stop") shift_ms = init_start_ms + minutes * 60000 - line.time_ms;
    line.time_ms += shift_ms;
  }
  return lines;
}
std::string truncated(const std::string& text) { return text.substr(0, text.size() - 30); }

struct BrokenCase {
  std::string name;
  std::string ruleset;
  std::string text;
  bool official_passes;   // the official checker's verdict on `text` (see the top of this file)
  std::string named;      // our failures must mention this (the failing key, or the reason)
};

std::vector<BrokenCase> broken_cases() {
  const std::string good_gnmt_text = mllog_text(good_gnmt());
  const Lines resnet = run_log("resnet", kResnetLarsHyperparameters, {0.7012, 0.7605});
  const Lines maskrcnn = run_log("maskrcnn", kMaskrcnnHyperparameters,
                                 {json{{"BBOX", 0.301}, {"SEGM", 0.282}}, json{{"BBOX", 0.3781}, {"SEGM", 0.3415}}});
  const Lines ssd = run_log("ssd", kSsdHyperparameters, {0.19, 0.2305});
  const Lines gnmt_v06 = run_log("gnmt", kGnmtHyperparameters, {20.1, 24.1}, true);
  Lines gnmt_skipped_epoch = gnmt_v06;
  for (Line& line : gnmt_skipped_epoch) {
    for (const char* field : {"epoch_num", "first_epoch_num"}) {
      if (line.metadata.contains(field) && line.metadata[field] == 2) line.metadata[field] = 3;
    }
  }
  Lines late_accuracy = with_value(good_gnmt(), "eval_accuracy", 0.2);
  late_accuracy.push_back({late_accuracy.back().time_ms + 10, "eval_accuracy", 0.25, {{"epoch_num", 3}}});
  std::string no_metadata = good_gnmt_text;
  no_metadata.insert(no_metadata.find(":::MLLOG"),
                     ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1593000000000, \"event_type\": \"POINT_IN_TIME\", "
                     "\"key\": \"seed\", \"value\": 7}\n");
  return {
      {"good_gnmt", "0.7.0", good_gnmt_text, true, ""},
      {"good_transformer", "0.7.0", mllog_text(good_transformer()), true, ""},
      {"good_resnet_lars", "0.7.0", mllog_text(resnet), true, ""},
      {"good_maskrcnn", "0.7.0", mllog_text(maskrcnn), true, ""},
      {"good_ssd", "0.7.0", mllog_text(ssd), true, ""},
      {"good_gnmt_v06", "0.6.0", mll_text(gnmt_v06), true, ""},
      {"same_value_twice", "0.7.0", mllog_text(repeated(good_gnmt(), "global_batch_size", 1024)), true, ""},
      {"eval_after_run_stop_reaches", "0.7.0", mllog_text(late_accuracy), true, ""},
      {"missing_required_key", "0.7.0", mllog_text(without(good_gnmt(), "opt_learning_rate_remain_steps")), false,
       "opt_learning_rate_remain_steps: count: required exactly once, found none"},
      {"key_twice_different_values", "0.7.0", mllog_text(repeated(good_gnmt(), "global_batch_size", 2048)), false,
       "global_batch_size: count: required exactly once, found 2 with different values"},
      {"transformer_epsilon", "0.7.0", mllog_text(with_value(good_transformer(), "opt_adam_epsilon", 1e-8)), false,
       "opt_adam_epsilon: value: 1e-08 is not equal to 1e-09"},
      {"transformer_sequence_method", "0.7.0",
       mllog_text(with_metadata(good_transformer(), "max_sequence_length", "method", "crop")), false,
       "max_sequence_length: metadata: metadata method"},
      {"init_over_20_minutes", "0.7.0", mllog_text(init_stop_after_minutes(good_gnmt(), 21)), false,
       "init_stop: within: comes 21"},
      {"init_under_20_minutes", "0.7.0", mllog_text(init_stop_after_minutes(good_gnmt(), 19.5)), true, ""},
      {"target_never_reached", "0.7.0", mllog_text(with_value(good_gnmt(), "eval_accuracy", 0.2391)), false,
       "eval_accuracy: reaches: none of 3 lines reaches {min: 0.240, below: 1}"},
      {"accuracy_of_one", "0.7.0", mllog_text(with_value(good_gnmt(), "eval_accuracy", 1.0)), false,
       "eval_accuracy: reaches"},
      {"run_stop_before_run_start", "0.7.0", mllog_text(moved_before(good_gnmt(), "run_stop", "run_start")), false,
       "run_stop: after: no run_start before it"},
      {"init_start_after_run_start", "0.7.0", mllog_text(moved_before(good_gnmt(), "init_start", "train_samples")),
       false, "init_start: not_after: comes after init_stop"},
      {"missing_status", "0.7.0", mllog_text(without_metadata(good_gnmt(), "run_stop", "status")), false,
       "run_stop: metadata: metadata has no 'status'"},
      {"missing_epoch_num", "0.7.0", mllog_text(without_metadata(good_gnmt(), "eval_accuracy", "epoch_num")), false,
       "eval_accuracy: metadata: metadata has no 'epoch_num'"},
      {"empty_block", "0.7.0", mllog_text(with_metadata(good_gnmt(), "block_start", "epoch_count", 0)), false,
       "block_start: metadata: metadata epoch_count: 0 is not above 0"},
      {"missing_cache_clear", "0.7.0", mllog_text(without(good_gnmt(), "cache_clear")), false,
       "cache_clear: count: required at least once"},
      {"missing_run_stop", "0.7.0", mllog_text(without(good_gnmt(), "run_stop")), false, "run_stop: count"},
      {"missing_run_start", "0.7.0", mllog_text(without(good_gnmt(), "run_start")), false, "run_start: count"},
      {"truncated_last_line", "0.7.0", truncated(good_gnmt_text), false, "the last line is truncated"},
      {"line_without_metadata (official: crashes)", "0.7.0", no_metadata, false, "no metadata"},
      {"wrong_benchmark_name (official: crashes)", "0.7.0",
       mllog_text(with_value(good_gnmt(), "submission_benchmark", "gnmtx")), false,
       "submission_benchmark: value: \"gnmtx\" is not one of"},
      {"bad_division (official: crashes)", "0.7.0", mllog_text(with_value(good_gnmt(), "submission_division", "middle")), false,
       "submission_division: value"},
      {"resnet_lars_key_missing", "0.7.0", mllog_text(without(resnet, "lars_epsilon")), false,
       "lars_epsilon: count: required exactly once, found none [0.7.0/closed_resnet_lars]"},
      {"resnet_weight_decay", "0.7.0", mllog_text(with_value(resnet, "lars_opt_weight_decay", 0.00003)), false,
       "lars_opt_weight_decay: value: 3e-05 is not 0.0001 times a power of two"},
      {"resnet_unknown_optimizer (official: crashes)", "0.7.0", mllog_text(with_value(resnet, "opt_name", "adagrad")), false,
       "opt_name: value: \"adagrad\" is not one of"},
      {"maskrcnn_segm_short", "0.7.0",
       mllog_text(with_value(maskrcnn, "eval_accuracy", json{{"BBOX", 0.3781}, {"SEGM", 0.3385}})), false,
       "eval_accuracy: reaches"},
      {"maskrcnn_decay_steps", "0.7.0",
       mllog_text(with_value(maskrcnn, "opt_learning_rate_decay_steps", json::array({24000}))), false,
       "opt_learning_rate_decay_steps: value: [24000] has 1 elements, not 2"},
      {"ssd_max_samples", "0.7.0", mllog_text(with_value(ssd, "max_samples", 10)), false,
       "max_samples: value: 10 is not one of [1,50]"},
      {"ssd_decay_boundary", "0.7.0",
       mllog_text(with_value(ssd, "opt_learning_rate_decay_boundary_epochs", json::array({44, 57}))), false,
       "opt_learning_rate_decay_boundary_epochs: value: [1] 57 is not a multiple of 5"},
      {"v06_epoch_skipped", "0.6.0", mll_text(gnmt_skipped_epoch), false,
       "epoch_start: metadata: metadata epoch_num: 3 is not equal to 2"},
      {"v06_aborted", "0.6.0", mll_text(with_metadata(gnmt_v06, "run_stop", "status", "aborted")), false,
       "run_stop: metadata: metadata status: \"aborted\" is not equal to \"success\""},
      {"v06_alt_decay_not_boolean", "0.6.0", mll_text(with_value(gnmt_v06, "opt_learning_rate_alt_decay_func", 1)),
       false, "opt_learning_rate_alt_decay_func: value: 1 is not a boolean"},
      {"v06_missing_poc", "0.6.0", mll_text(without(gnmt_v06, "submission_poc_name")), false,
       "submission_poc_name: count"},
  };
}

std::string file_name_of(const std::string& case_name) { return case_name.substr(0, case_name.find(' ')) + ".txt"; }

TEST(CheckBrokenLogs, VerdictsEqualTheOfficialChecker) {
  const fs::path folder = testing_files::fresh_test_folder("checker");
  for (const BrokenCase& broken : broken_cases()) {
    const fs::path path = folder / file_name_of(broken.name);
    std::ofstream(path, std::ios::binary) << broken.text;
    const CheckResult result = check_log(read_log_file(path.string()));
    EXPECT_EQ(result.ruleset, broken.ruleset) << broken.name;
    EXPECT_EQ(result.passed, broken.official_passes) << broken.name << "\n" << all_failures(result);
    if (!broken.named.empty()) {
      EXPECT_THAT(all_failures(result), HasSubstr(broken.named)) << broken.name;
    }
  }
}

TEST(CheckBrokenLogs, FailuresNameTheLine) {
  const CheckResult result =
      check_log(parse_log_text(mllog_text(with_value(good_transformer(), "opt_adam_epsilon", 1e-8))));
  ASSERT_EQ(result.failures.size(), 1u) << all_failures(result);
  const RuleFailure& failure = result.failures.front();
  EXPECT_EQ(failure.key, "opt_adam_epsilon");
  EXPECT_EQ(failure.rule, "value");
  EXPECT_EQ(failure.line_number, 14);
  EXPECT_EQ(failure.file, "0.7.0/closed_transformer");
  EXPECT_EQ(failure.to_string(),
            "line 14: opt_adam_epsilon: value: 1e-08 is not equal to 1e-09 [0.7.0/closed_transformer]");
}

TEST(CheckBrokenLogs, RepeatedSameValueOnlyWarns) {
  const CheckResult result = check_log(parse_log_text(mllog_text(repeated(good_gnmt(), "global_batch_size", 1024))));
  EXPECT_TRUE(result.passed);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_THAT(result.warnings.front(), HasSubstr("global_batch_size"));
}

TEST(CheckRulesets, DefaultFollowsTheLineFormat) {
  EXPECT_EQ(default_ruleset(parse_log_text(mllog_text(good_gnmt()))), "0.7.0");
  EXPECT_EQ(default_ruleset(parse_log_text(mll_text(good_gnmt()))), "0.6.0");
  EXPECT_EQ(default_ruleset(parse_log_text(":::MLPv0.5.0 ncf 1538679544 (ncf.py:1) run_start\n")), "0.5.0");
  EXPECT_EQ(default_ruleset(parse_log_text("no log here\n")), "");
}

TEST(CheckRulesets, UnknownRulesetIsAUserError) {
  EXPECT_THAT(user_error_of([] { check_log(parse_log_text(mllog_text(good_gnmt())), "0.8.0"); }),
              HasSubstr("unknown compliance ruleset '0.8.0' (known: 0.5.0, 0.6.0, 0.7.0)"));
}

TEST(CheckRulesets, AnotherFormatThanTheRulesetsFails) {
  const CheckResult result = check_log(parse_log_text(mll_text(good_gnmt())), "0.7.0");
  EXPECT_FALSE(result.passed);
  EXPECT_THAT(all_failures(result), HasSubstr("no :::MLLOG lines (its lines are :::MLL"));
}

TEST(CheckRulesets, TextWithoutLogLinesFails) {
  const CheckResult result = check_log(parse_log_text("hello\nworld\n"));
  EXPECT_FALSE(result.passed);
  EXPECT_THAT(all_failures(result), HasSubstr("no MLPerf log lines"));
}

// ---------------------------------------------------------------------------------------------
// NCF: our own rules (the official checker has none and crashes on submission_benchmark "ncf").

const Hyperparameters kNcfHyperparameters = {
    {"global_batch_size", 1048576}, {"opt_name", "adam"}, {"opt_base_learning_rate", 0.0045}, {"opt_adam_beta_1", 0.25},
    {"opt_adam_beta_2", 0.5}, {"opt_adam_epsilon", 1e-8}, {"preproc_hp_min_ratings", 20}, {"preproc_hp_num_eval", 999},
    {"preproc_hp_sample_eval_replacement", true}, {"input_hp_num_neg", 4}, {"input_hp_sample_train_replacement", true},
    {"eval_hp_num_users", 138493}, {"eval_hp_num_neg", 999}, {"model_hp_loss_fn", "binary_cross_entropy"},
    {"model_hp_mf_dim", 64}, {"model_hp_mlp_layer_sizes", json::array({256, 256, 128, 64})}};

TEST(CheckNcf, MllogRunsFollowOurNcfRules) {
  const Lines good = run_log("ncf", kNcfHyperparameters, {0.61, 0.6361});
  const CheckResult passing = check_log(parse_log_text(mllog_text(good)));
  EXPECT_TRUE(passing.passed) << all_failures(passing);
  EXPECT_EQ(passing.benchmark, "ncf");

  const CheckResult short_of_target = check_log(parse_log_text(mllog_text(with_value(good, "eval_accuracy", 0.634))));
  EXPECT_FALSE(short_of_target.passed);
  EXPECT_THAT(all_failures(short_of_target), HasSubstr("eval_accuracy: reaches: none of 2 lines reaches {min: 0.635"));

  const CheckResult fewer_negatives = check_log(parse_log_text(mllog_text(with_value(good, "eval_hp_num_neg", 99))));
  EXPECT_THAT(all_failures(fewer_negatives), HasSubstr("eval_hp_num_neg: value: 99 is not equal to 999 [0.7.0/closed_ncf]"));

  Lines open = with_value(without(good, "opt_adam_epsilon"), "submission_division", "open");
  EXPECT_TRUE(check_log(parse_log_text(mllog_text(open))).passed) << "open division: only the target";
}

// ---------------------------------------------------------------------------------------------
// A run resumed from a checkpoint: its time to train covers only the resumed part, so it fails.

constexpr const char* kResumedCheckpoint = "results/1xCPU/ncf/result_0.checkpoints/epoch_0005";
constexpr const char* kResumedMessage =
    "line 8: mlharness_resumed_from: resumed: resumed from a checkpoint after epoch 5 "
    "(results/1xCPU/ncf/result_0.checkpoints/epoch_0005): a resumed run's time to train is not a compliant result";

// The log the engine writes when it resumes after `epoch`: the mlharness_resumed_from line just after
// init_start (line 8 of a run_log), and epochs counted on from epoch + 1.
Lines resumed_after(Lines lines, int epoch) {
  for (Line& line : lines) {
    for (const char* field : {"epoch_num", "first_epoch_num"}) {
      if (line.metadata.is_object() && line.metadata.contains(field)) line.metadata[field] = line.metadata[field].get<int>() + epoch;
    }
  }
  const auto init_start = std::find_if(lines.begin(), lines.end(), [](const Line& line) { return line.key == "init_start"; });
  const Line resumed = {init_start->time_ms + 5, "mlharness_resumed_from",
                        {{"epoch", epoch}, {"checkpoint", kResumedCheckpoint}, {"log_file", "results/1xCPU/ncf/result_0.txt"}},
                        {}};
  lines.insert(init_start + 1, resumed);
  return lines;
}

TEST(CheckResumed, AResumedRunFailsWithOneMessage) {
  const Lines good = run_log("ncf", kNcfHyperparameters, {0.61, 0.6361});
  const CheckResult passing = check_log(parse_log_text(mllog_text(good)));
  EXPECT_TRUE(passing.passed) << all_failures(passing);

  const CheckResult resumed = check_log(parse_log_text(mllog_text(resumed_after(good, 5))));
  EXPECT_FALSE(resumed.passed);
  ASSERT_EQ(resumed.failures.size(), 1u) << all_failures(resumed);
  EXPECT_EQ(resumed.failures.front().key, "mlharness_resumed_from");
  EXPECT_EQ(resumed.failures.front().rule, "resumed");
  EXPECT_EQ(resumed.failures.front().to_string(), kResumedMessage);

  // An official benchmark's rules let the key through (unknown keys are ignored); the verdict is ours.
  EXPECT_TRUE(check_log(parse_log_text(mllog_text(good_gnmt())), "0.7.0").passed);
  const CheckResult gnmt = check_log(parse_log_text(mllog_text(resumed_after(good_gnmt(), 2))));
  ASSERT_EQ(gnmt.failures.size(), 1u) << all_failures(gnmt);
  EXPECT_THAT(gnmt.failures.front().message, HasSubstr("resumed from a checkpoint after epoch 2"));
}

TEST(CheckResumed, TheRestOfAResumedLogIsStillChecked) {
  const Lines broken = with_value(run_log("ncf", kNcfHyperparameters, {0.61, 0.6361}), "eval_hp_num_neg", 99);
  const CheckResult result = check_log(parse_log_text(mllog_text(resumed_after(broken, 5))));
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.failures.size(), 2u) << all_failures(result);
  EXPECT_EQ(result.failures[0].to_string(), kResumedMessage);
  EXPECT_THAT(result.failures[1].to_string(), HasSubstr("eval_hp_num_neg: value: 99 is not equal to 999 [0.7.0/closed_ncf]"));
}

std::string v05_ncf_log(const std::string& success, double best_accuracy) {
  std::string text;
  auto line = [&text](const std::string& rest) { text += ":::MLPv0.5.0 ncf 1538679544.123456789 (ncf.py:1) " + rest + "\n"; };
  line("run_clear_caches");
  line("preproc_hp_num_eval: 999");
  line("preproc_hp_sample_eval_replacement: true");
  line("preproc_hp_min_ratings: 20");
  line("input_hp_sample_train_replacement: true");
  line("input_step_eval_neg_gen");
  line("run_start");
  line("input_batch_size: 1048576");
  line("model_hp_mf_dim");
  line("model_hp_mlp_layer_sizes: [256, 256, 128, 64]");
  line("opt_learning_rate: 0.0045");
  line("opt_name: \"Adam\"");
  line("opt_hp_Adam_beta1: 0.25");
  line("opt_hp_Adam_beta2: 0.5");
  line("opt_hp_Adam_epsilon: 1e-08");
  line("model_hp_loss_fn: \"binary_cross_entropy\"");
  line("train_loop");
  for (int epoch = 0; epoch < 2; ++epoch) {
    line("input_step_train_neg_gen");
    line("train_epoch: " + std::to_string(epoch));
    line("input_hp_num_neg: 4");
    line("eval_start");
    line("eval_size: {\"epoch\": " + std::to_string(epoch) + ", \"value\": 138493000}");
    line("eval_hp_num_users: 138493");
    line("eval_hp_num_neg: 999");
    line("eval_accuracy: {\"epoch\": " + std::to_string(epoch) + ", \"value\": " +
         std::to_string(epoch == 0 ? 0.5 : best_accuracy) + "}");
    line("eval_target: 0.635");
    line("eval_stop");
  }
  line("run_stop: {\"success\": " + success + "}");
  line("run_final");
  return text;
}

TEST(CheckNcf, V05LogsFollowOurNcfRules) {
  const CheckResult passing = check_log(parse_log_text(v05_ncf_log("true", 0.6371)));
  EXPECT_EQ(passing.ruleset, "0.5.0");
  EXPECT_TRUE(passing.passed) << all_failures(passing);
  EXPECT_TRUE(passing.warnings.empty()) << testing::PrintToString(passing.warnings);
  EXPECT_TRUE(passing.not_checked.empty()) << testing::PrintToString(passing.not_checked);

  const CheckResult failing = check_log(parse_log_text(v05_ncf_log("false", 0.6349)));
  EXPECT_FALSE(failing.passed);
  EXPECT_THAT(all_failures(failing), HasSubstr("eval_accuracy: reaches"));
  EXPECT_THAT(failing.warnings, ::testing::Contains(HasSubstr("run_stop: value: [success] false is not one of")));

  std::string other_benchmark = v05_ncf_log("true", 0.6371);
  for (size_t at = other_benchmark.find(" ncf "); at != std::string::npos; at = other_benchmark.find(" ncf ", at)) {
    other_benchmark.replace(at, 5, " rnn ");
  }
  EXPECT_THAT(all_failures(check_log(parse_log_text(other_benchmark))),
              HasSubstr("ruleset 0.5.0 has no rules file 'rnn' (named by the log's benchmark 'rnn')"));
}

// ---------------------------------------------------------------------------------------------
// Rule levels: `level: warning` on a key and `warn:` on some of its tests (compliance/rules/README.md).

TEST(CheckRules, LevelIsWarningOrFailure) {
  const RuleFile file = parse_rule_file("x", "y",
                                        "keys:\n  a: {count: exactly_one, level: warning}\n"
                                        "  b: {count: at_least_one, warn: {value: {type: boolean}}}\n  c: {level: failure}\n");
  ASSERT_EQ(file.keys.size(), 3u);
  EXPECT_TRUE(file.keys[0].warning);
  EXPECT_FALSE(file.keys[1].warning);
  EXPECT_EQ(file.keys[1].warning_tests.size(), 1u);
  EXPECT_TRUE(file.keys[1].line_tests.empty());
  EXPECT_FALSE(file.keys[2].warning);
  EXPECT_THROW(parse_rule_file("x", "y", "keys:\n  a: {level: loud}\n"), InternalError);
  EXPECT_THROW(parse_rule_file("x", "y", "keys:\n  a: {warn: {count: exactly_one}}\n"), InternalError);
}

std::string without_line(std::string text, const std::string& key) {
  const size_t at = text.find(") " + key);
  const size_t start = text.rfind('\n', at) + 1;
  return text.erase(start, text.find('\n', at) + 1 - start);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

// A key marked `level: warning` fails nothing: each of its failed rules is a warning, written as a
// failure would be; a `warn:` test warns while the key's count still fails.
TEST(CheckNcf, WarningLevelRulesOnlyWarn) {
  const std::string good = v05_ncf_log("true", 0.6371);
  const CheckResult no_batch = check_log(parse_log_text(without_line(good, "input_batch_size")));
  EXPECT_TRUE(no_batch.passed) << all_failures(no_batch);
  EXPECT_THAT(no_batch.warnings,
              ::testing::ElementsAre("input_batch_size: count: required exactly once, found none [0.5.0/ncf]"));

  const CheckResult bad_beta = check_log(parse_log_text(replaced(good, "opt_hp_Adam_beta1: 0.25", "opt_hp_Adam_beta1: 1.5")));
  EXPECT_TRUE(bad_beta.passed) << all_failures(bad_beta);
  EXPECT_THAT(bad_beta.warnings,
              ::testing::ElementsAre("line 13: opt_hp_Adam_beta1: value: 1.5 is not below 1.0 [0.5.0/ncf]"));

  const std::string no_value = replaced(good, "preproc_hp_sample_eval_replacement: true", "preproc_hp_sample_eval_replacement");
  const CheckResult without_value = check_log(parse_log_text(no_value));
  EXPECT_TRUE(without_value.passed) << all_failures(without_value);
  EXPECT_THAT(without_value.warnings,
              ::testing::ElementsAre("line 3: preproc_hp_sample_eval_replacement: value: null is not a boolean [0.5.0/ncf]"));
  const CheckResult missing = check_log(parse_log_text(without_line(good, "preproc_hp_sample_eval_replacement")));
  EXPECT_FALSE(missing.passed);
  EXPECT_THAT(all_failures(missing),
              HasSubstr("preproc_hp_sample_eval_replacement: count: required at least once, found none [0.5.0/ncf]"));
}

// ---------------------------------------------------------------------------------------------
// Published logs of every round (tests/data/mlperf-rounds/checker, README.md there).

const fs::path kRounds = test_paths::source_dir() + "/tests/data/mlperf-rounds/checker";

CheckResult check_round_log(const std::string& path, const std::string& ruleset = "") {
  return check_log(read_log_file((kRounds / path).string()), ruleset);
}

// Intel's v0.5 NCF (BigDL on Xeon), published by MLPerf: a run that logged success at HR@10 0.6359
// passes; what the v0.5 checker did not demand, or named otherwise, is only warned about.
TEST(CheckRounds, IntelV05NcfConvergedRunPasses) {
  const CheckResult result = check_round_log("v0.5/v0.5.0/intel/intel_ncf_submission/results/skx8180/ncf/result_91.txt");
  EXPECT_EQ(result.ruleset, "0.5.0");
  EXPECT_EQ(result.benchmark, "ncf");
  EXPECT_TRUE(result.passed) << all_failures(result);
  EXPECT_TRUE(result.not_checked.empty()) << testing::PrintToString(result.not_checked);
  std::string warnings;
  for (const std::string& warning : result.warnings) warnings += warning + "\n";
  EXPECT_EQ(warnings,
            "line 23: preproc_hp_sample_eval_replacement: value: null is not a boolean [0.5.0/ncf]\n"
            "input_batch_size: count: required exactly once, found none [0.5.0/ncf]\n");
}

// The same submission's run that did not converge fails on convergence alone: the target, with its
// run_stop status (which the v0.5 checker did not read) among the warnings.
TEST(CheckRounds, IntelV05NcfUnconvergedRunFailsOnlyOnConvergence) {
  const CheckResult result = check_round_log("v0.5/v0.5.0/intel/intel_ncf_submission/results/skx8180/ncf/result_5.txt");
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.failures.size(), 1u) << all_failures(result);
  EXPECT_EQ(result.failures[0].to_string(),
            "eval_accuracy: reaches: none of 20 lines reaches {at: {value: {min: 0.635, below: 1}}}; the last is "
            "{\"epoch\":19,\"value\":0.6191649} (line 365) [0.5.0/ncf]");
  EXPECT_THAT(result.warnings,
              ::testing::Contains("line 369: run_stop: value: [success] false is not one of [true,\"true\"] [0.5.0/common]"));
}

// A v0.5 GNMT log: our 0.5.0 rules have no GNMT file, so its benchmark rules are not checked (they
// failed "no rules file 'gnmt'" before); its run structure still is.
TEST(CheckRounds, V05GoogleGnmtIsNotChecked) {
  const CheckResult result = check_round_log("v0.5/v0.5.0/google/research_v3.32/gnmt-tpuv3-32/results/tpu/gnmt/result_0.txt");
  EXPECT_EQ(result.ruleset, "0.5.0");
  EXPECT_EQ(result.benchmark, "gnmt");
  EXPECT_TRUE(result.passed) << all_failures(result);
  EXPECT_THAT(result.not_checked,
              ::testing::ElementsAre("ruleset 0.5.0 has no rules for benchmark 'gnmt' (mlharness's 0.5.0 rules cover ncf), "
                                     "so its benchmark rules are not checked"));
}

// A benchmark outside mlharness's six that the official 0.7.0 rules know: not checked, with the
// reason benchmark_names.h gives; an unknown name still fails.
TEST(CheckRounds, SkippedBenchmarkIsNotCheckedAndUnknownFails) {
  const CheckResult bert = check_log(parse_log_text(mllog_text(with_value(good_gnmt(), "submission_benchmark", "bert"))));
  EXPECT_TRUE(bert.passed) << all_failures(bert);
  ASSERT_EQ(bert.not_checked.size(), 1u);
  EXPECT_THAT(bert.not_checked.front(), HasSubstr("ruleset 0.7.0 has no rules for benchmark 'bert' ("));
  EXPECT_THAT(bert.not_checked.front(), HasSubstr("not one of mlharness's six workloads"));

  const CheckResult unknown = check_log(parse_log_text(mllog_text(with_value(good_gnmt(), "submission_benchmark", "gnmtx"))));
  EXPECT_FALSE(unknown.passed);
  EXPECT_TRUE(unknown.not_checked.empty()) << testing::PrintToString(unknown.not_checked);
  EXPECT_THAT(all_failures(unknown), HasSubstr("ruleset 0.7.0 has no rules file 'closed_gnmtx'"));
}

// Google's v0.6 Transformer on a TPU v3-128, published by MLPerf, fails today's 0.6.0 rules as the
// official checker does (mlperf-logging 4.1.68: "CHECK for 'cache_clear' failed in line 5", then a
// block_start, the point of contact and the entry; it counts log lines, we count file lines).
TEST(CheckRounds, V06GoogleLogFailsToday) {
  const CheckResult result = check_round_log("v0.6/Google/results/tpu-v3-128/transformer/result_9.txt");
  EXPECT_EQ(result.ruleset, "0.6.0");
  EXPECT_FALSE(result.passed);
  const std::string text = all_failures(result);
  EXPECT_THAT(text, HasSubstr("line 6: cache_clear: value: null is not equal to true [0.6.0/common]"));
  EXPECT_THAT(text, HasSubstr("submission_poc_name: count: required exactly once, found none [0.6.0/common]"));
  EXPECT_THAT(text, HasSubstr("submission_entry: count: required exactly once, found none [0.6.0/common]"));
  EXPECT_THAT(text, HasSubstr("line 20: block_start: any_of: no alternative holds"));
  EXPECT_TRUE(result.not_checked.empty()) << testing::PrintToString(result.not_checked);
}

// Google's v0.6 Mask R-CNN logs name their benchmark "mask". The official checker fails the name and
// then crashes looking for mask.yaml; we fail the name as it does and check the log with maskrcnn's rules.
TEST(CheckRounds, V06GoogleMaskIsCheckedWithMaskrcnnRules) {
  const CheckResult result = check_round_log("v0.6/Google/results/tpu-v3-128/mask/result_3.txt");
  EXPECT_EQ(result.benchmark, "mask");
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(result.not_checked.empty()) << testing::PrintToString(result.not_checked);
  const std::string text = all_failures(result);
  EXPECT_THAT(text, HasSubstr("submission_benchmark: value: \"mask\" is not one of"));
  EXPECT_THAT(text, HasSubstr("[0.6.0/maskrcnn]"));
  EXPECT_THAT(text, Not(HasSubstr("no rules file")));
}

}  // namespace
}  // namespace mlh
