// Small hand-written MLPerf logs (:::MLLOG lines) and RunResult records for the report's tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mllog_line.h"

namespace mlh::report_test {

struct LogSpec {
  std::string benchmark = "gnmt";
  std::string platform = "1xTest-GPU";
  std::optional<int64_t> seed = 1;
  double minutes = 10;                                  // run_stop - run_start
  // (epoch, eval_accuracy): a number, or an object such as Mask R-CNN's {"BBOX": .., "SEGM": ..}
  std::vector<std::pair<int, nlohmann::json>> evals = {{1, 0.1}, {2, 0.3}};
  std::optional<double> target = 0.24;                  // eval_target
  std::string status = "success";
  std::optional<int64_t> train_samples;                 // logged when set
  bool run_start = true;
  bool run_stop = true;
  std::string data_source;                              // logged in mlharness_effective_config when set
};

inline std::string make_log(const LogSpec& spec) {
  const double start = 1600000000000.0;
  std::string text;
  text += mllog_line("submission_benchmark", spec.benchmark, start - 1000);
  text += mllog_line("submission_platform", spec.platform, start - 1000);
  if (spec.seed) text += mllog_line("seed", *spec.seed, start - 900);
  if (!spec.data_source.empty())
    text += mllog_line("mlharness_effective_config", {{"data_source", spec.data_source}}, start - 850);
  if (spec.target) text += mllog_line("eval_target", *spec.target, start - 800);
  if (spec.run_start) text += mllog_line("run_start", nullptr, start);
  if (spec.train_samples) text += mllog_line("train_samples", *spec.train_samples, start + 1);
  const double step = spec.minutes * 60000.0 / static_cast<double>(spec.evals.size() + 1);
  double t = start;
  for (const auto& [epoch, value] : spec.evals) {
    text += mllog_line("epoch_start", nullptr, t + 2, {{"epoch_num", epoch}});
    t += step;
    text += mllog_line("eval_accuracy", value, t, {{"epoch_num", epoch}});
  }
  if (spec.run_stop) text += mllog_line("run_stop", nullptr, start + spec.minutes * 60000.0, {{"status", spec.status}});
  return text;
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A RunResult record as mlharness writes it (protobuf JSON: 64-bit integers as strings).
inline std::string make_record(const std::string& platform, int devices, double samples_per_second, int64_t seed) {
  nlohmann::json record = {{"benchmark", "gnmt"},
                           {"platform", platform},
                           {"device_model", "Test GPU"},
                           {"device_count", devices},
                           {"seed", std::to_string(seed)},
                           {"global_batch_size", "64"},
                           {"train_samples_per_second", samples_per_second},
                           {"quality_name", "bleu/100"},
                           {"quality_target", 0.24},
                           {"epochs_run", "2"},
                           {"evals",
                            {{{"epoch", "1"}, {"quality", {{"bleu/100", 0.1}}}},
                             {{"epoch", "2"}, {"quality", {{"bleu/100", 0.3}}}}}}};
  return record.dump(1);
}

}  // namespace mlh::report_test
