#include "harness/results.h"

#include <google/protobuf/util/json_util.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <cstdio>
#include <regex>
#include <vector>

#include "base/user_error.h"
#include "harness/quality.h"

namespace mlh {

namespace fs = std::filesystem;

ResultPaths allocate_result_paths(const std::string& out_dir, const std::string& platform,
                                  const std::string& benchmark) {
  ResultPaths paths;
  paths.folder = (fs::path(out_dir) / platform / benchmark).string();
  std::error_code error;
  fs::create_directories(paths.folder, error);
  if (error) throw UserError("cannot create results folder '" + paths.folder + "': " + error.message());
  const std::regex result_name(R"(result_(\d+)\.(txt|txt\.partial|json))");
  int next = 0;
  for (const auto& entry : fs::directory_iterator(paths.folder)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, match, result_name)) next = std::max(next, std::stoi(match[1]) + 1);
  }
  paths.index = next;
  const std::string stem = (fs::path(paths.folder) / ("result_" + std::to_string(next))).string();
  paths.log_file = stem + ".txt";
  paths.partial_log = stem + ".txt.partial";
  paths.record_file = stem + ".json";
  return paths;
}

std::string run_result_to_json(const proto::RunResult& result) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(result, &json, options);
  MLH_ASSERT(status.ok());
  return json;
}

proto::RunResult run_result_from_json(const std::string& json) {
  proto::RunResult result;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &result, options);
  if (!status.ok()) throw UserError("not a RunResult record: " + status.ToString());
  return result;
}

namespace {

// The record's targets; a record written before quality_targets existed has quality_name/target.
std::vector<proto::QualityTarget> targets_of(const proto::RunResult& r) {
  std::vector<proto::QualityTarget> targets(r.quality_targets().begin(), r.quality_targets().end());
  if (targets.empty() && !r.quality_name().empty()) {
    targets.emplace_back();
    targets.back().set_name(r.quality_name());
    targets.back().set_value(r.quality_target());
  }
  return targets;
}

// "BBOX 0.3812 (target >= 0.3770), SEGM 0.3301 (target >= 0.3390)" from the final quality.
std::string final_against_targets(const proto::RunResult& r) {
  std::string text;
  for (const auto& target : targets_of(r)) {
    const auto found = r.final_quality().find(target.name());
    const QualityTarget as_target{target.name(), target.value(), target.strict()};
    text += (text.empty() ? "" : ", ") +
            as_target.describe_measured(found == r.final_quality().end() ? nullptr : &found->second);
  }
  return text;
}

}  // namespace

std::string format_run_summary(const proto::RunResult& r) {
  char text[1024];
  const std::string quality = final_against_targets(r);
  if (r.converged()) {
    std::snprintf(text, sizeof text,
                  "%s seed %llu: reached %s in %lld epochs at global batch %lld; time to train %.1f s; %.0f train "
                  "samples/s\n",
                  r.workload().c_str(), static_cast<unsigned long long>(r.seed()), quality.c_str(),
                  static_cast<long long>(r.epochs_to_converge()), static_cast<long long>(r.global_batch_size()),
                  r.time_to_train_seconds(), r.train_samples_per_second());
  } else {
    std::snprintf(text, sizeof text,
                  "%s seed %llu: did NOT converge (%s); last %s; run time %.1f s; %.0f train samples/s\n",
                  r.workload().c_str(), static_cast<unsigned long long>(r.seed()), r.abort_reason().c_str(),
                  quality.c_str(), r.time_to_train_seconds(), r.train_samples_per_second());
  }
  std::string summary = text;
  if (r.has_energy_joules() || r.has_cpu_energy_joules()) {
    std::string parts;
    if (r.has_energy_joules()) {
      std::snprintf(text, sizeof text, "GPU boards %.1f kJ (NVML)", r.energy_joules() / 1000.0);
      parts = text;
    }
    if (r.has_cpu_energy_joules()) {
      std::snprintf(text, sizeof text, "CPU packages %.1f kJ (RAPL)", r.cpu_energy_joules() / 1000.0);
      parts += (parts.empty() ? "" : " + ") + std::string(text);
    }
    std::snprintf(text, sizeof text, "energy: %s; mean %.0f W, %.1f samples/J\n", parts.c_str(), r.mean_power_watts(),
                  r.samples_per_joule());
    summary += text;
  }
  if (r.skipped_steps() > 0) summary += "fp16 loss scaling skipped " + std::to_string(r.skipped_steps()) + " steps\n";
  for (const auto& [name, baseline] : r.baselines()) {
    std::snprintf(text, sizeof text, "%s: %s %.4f\n", name.c_str(), r.quality_name().c_str(), baseline);
    summary += text;
  }
  const std::string record = r.log_file().substr(0, r.log_file().size() - 4) + ".json";
  summary += "log:    " + r.log_file() + "\nrecord: " + record + "\n";
  return summary;
}

namespace {

[[noreturn]] void throw_write_error(const std::string& path, int error_number) {
  throw UserError("cannot write '" + path + "': " + std::strerror(error_number) +
                  (error_number == ENOSPC || error_number == EFBIG || error_number == EDQUOT
                       ? " (free some space, or point --out elsewhere)"
                       : ""));
}

}  // namespace

void sync_directory(const std::string& path) {
  const int fd = ::open(path.empty() ? "." : path.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_write_error(path, errno);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error_number = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw_write_error(path, error_number);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error_number = errno;
    ::unlink(temporary.c_str());
    throw_write_error(path, error_number);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temporary.c_str());
    throw_write_error(path, error_number);
  }
  sync_directory(fs::path(path).parent_path().string());
}

}  // namespace mlh
