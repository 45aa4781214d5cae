#include "harness/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "base/user_error.h"
#include "harness/device.h"
#include "harness/libtorch_compat.h"

namespace mlh {

void DeviceBenchStep::synchronize() { synchronize_device(spec_.device); }

std::string DeviceBenchStep::device_used() const { return device_name(spec_.device); }

BenchReport run_bench(Workload& workload, const std::string& workload_name, const World& world,
                      const BenchOptions& options, const std::string& platform_label) {
  if (options.timed_steps < 1 || options.repeats < 1 || options.warmup_steps < 0)
    throw UserError("bench needs --steps >= 1, --repeats >= 1 and --warmup >= 0");
  BenchReport report;
  report.workload = workload_name;
  report.platform = platform_label;
  report.device_model = device_model(options.device);
  report.world_size = world.size();
  report.threads_per_rank = configure_threads(world, options.blas_threads, options.intra_op_threads);
  const bool tf32_as_configured = libtorch::cuda_tf32_enabled();
  const bool count_syncs = options.mode != BenchMode::kLoader && HostSyncCounter::can_count(options.device);

  for (const int64_t batch_size : options.batch_sizes) {
    if (batch_size < 1) throw UserError("bench batch sizes must be positive");
    for (const auto& precision : options.precisions) {
      BenchSpec spec;
      spec.batch_size = batch_size;
      spec.mode = options.mode;
      spec.precision = precision;
      spec.channels_last = options.channels_last;
      spec.data_root = options.data_root;
      spec.device = options.device;
      libtorch::set_cuda_tf32(tf32_as_configured && parse_precision(precision, "bench precision") !=
                                                        Precision::kFp32Strict);
      std::unique_ptr<BenchStep> step = workload.make_bench_step(spec, world);
      for (int64_t i = 0; i < options.warmup_steps; ++i) step->run();
      step->synchronize();
      BenchCaseResult result;
      result.batch_size = batch_size;
      result.precision = precision;
      result.precision_used = step->precision_used();
      result.precision_note = step->precision_note();
      result.mode = bench_mode_name(options.mode);
      result.memory_format = step->memory_format_used();
      result.device = step->device_used();
      result.unit = step->sample_unit();
      HostSyncCounter syncs(options.device);
      for (int64_t r = 0; r < options.repeats; ++r) {
        world.comm().barrier();
        const auto start = std::chrono::steady_clock::now();
        syncs.start();
        for (int64_t i = 0; i < options.timed_steps; ++i) step->run();
        syncs.stop();
        step->synchronize();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        result.window_rates.push_back(options.timed_steps * step->samples_per_step() / seconds);
      }
      if (count_syncs)
        result.host_syncs_per_step =
            static_cast<double>(syncs.count()) / static_cast<double>(options.repeats * options.timed_steps);
      std::vector<double> sorted = result.window_rates;
      std::sort(sorted.begin(), sorted.end());
      const double median = sorted[sorted.size() / 2];
      if (options.mode == BenchMode::kInference) {
        std::vector<double> latencies_ms;
        world.comm().barrier();
        for (int64_t i = 0; i < options.repeats * options.timed_steps; ++i) {
          const auto start = std::chrono::steady_clock::now();
          step->run();
          step->synchronize();
          latencies_ms.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        result.latency_p50_ms = nearest_rank_percentile(latencies_ms, 50);
        result.latency_p90_ms = nearest_rank_percentile(latencies_ms, 90);
        result.latency_p99_ms = nearest_rank_percentile(latencies_ms, 99);
      }
      result.total_per_second = world.allreduce_sum(median);
      result.per_rank_per_second = result.total_per_second / world.size();
      result.loader_threads = step->loader_threads();
      if (result.loader_threads > 0)
        result.per_loader_thread_per_second = result.total_per_second / (world.size() * result.loader_threads);
      report.cases.push_back(result);
    }
  }
  libtorch::set_cuda_tf32(tf32_as_configured);
  return report;
}

double nearest_rank_percentile(std::vector<double> values, double percent) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(percent / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size(), std::max<size_t>(rank, 1)) - 1];
}

std::string bench_mode_name(BenchMode mode) {
  switch (mode) {
    case BenchMode::kTrain: return "train";
    case BenchMode::kInference: return "inference";
    case BenchMode::kLoader: return "loader";
  }
  return "?";
}

namespace {

// The lines under the bench table: each loader's decode threads and rate, then the starred
// precisions' notes and their rates beside fp32's.
std::string format_bench_footnotes(const BenchReport& report) {
  std::string text;
  char line[256];
  for (const auto& c : report.cases) {
    if (c.loader_threads == 0) continue;
    std::snprintf(line, sizeof line, "  loader at batch %lld: %d decode thread%s per rank, %.1f %s/s per loader thread\n",
                  static_cast<long long>(c.batch_size), c.loader_threads, c.loader_threads > 1 ? "s" : "",
                  c.per_loader_thread_per_second, c.unit.c_str());
    text += line;
  }
  std::vector<std::string> notes;
  for (const auto& c : report.cases) {
    if (c.precision_note.empty()) continue;
    std::string note = "  * " + c.precision + ": " + c.precision_note + "\n";
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  }
  // Each starred case beside its fp32 twin (same mode, layout and batch), where bench ran both.
  for (const auto& c : report.cases) {
    if (c.precision_note.empty()) continue;
    for (const auto& fp32 : report.cases) {
      if (fp32.precision != "fp32" || fp32.mode != c.mode || fp32.memory_format != c.memory_format ||
          fp32.batch_size != c.batch_size || fp32.total_per_second <= 0)
        continue;
      std::snprintf(line, sizeof line, "  * %s %s at batch %lld: %.2fx the fp32 rate here\n", c.mode.c_str(),
                    c.precision.c_str(), static_cast<long long>(c.batch_size), c.total_per_second / fp32.total_per_second);
      notes.push_back(line);
    }
  }
  for (const auto& note : notes) text += note;
  return text;
}

}  // namespace

std::string format_bench_table(const BenchReport& report) {
  std::string text;
  char line[256];
  std::snprintf(line, sizeof line, "%s bench on %s (%d rank%s x %d thread%s, %s)\n",
                report.workload.c_str(), report.platform.c_str(), report.world_size,
                report.world_size > 1 ? "s" : "", report.threads_per_rank,
                report.threads_per_rank > 1 ? "s" : "", report.device_model.c_str());
  text += line;
  bool latencies = false;
  bool syncs = false;
  for (const auto& c : report.cases) {
    latencies = latencies || c.latency_p50_ms.has_value();
    syncs = syncs || c.host_syncs_per_step.has_value();
  }
  std::snprintf(line, sizeof line, "%-11s %-11s %-14s %-8s %7s %14s %14s", "mode", "precision", "layout",
                "device", "batch", "per rank /s", "total /s");
  text += line;
  if (syncs) {
    std::snprintf(line, sizeof line, " %11s", "syncs/step");
    text += line;
  }
  if (latencies) {
    std::snprintf(line, sizeof line, "  %9s %9s %9s  %s", "p50 ms", "p90 ms", "p99 ms", "unit");
    text += line;
  }
  text += "\n";
  std::vector<std::string> meanings;
  for (const auto& c : report.cases) {
    // What ran: tf32 where fp32 used TF32 tensor cores. A precision that falls back or is slow on
    // this device is starred; the note follows the table.
    const std::string precision =
        (uses_tf32(c.precision_used) ? "tf32" : c.precision) + (c.precision_note.empty() ? "" : "*");
    std::snprintf(line, sizeof line, "%-11s %-11s %-14s %-8s %7lld %14.1f %14.1f", c.mode.c_str(),
                  precision.c_str(), c.memory_format.c_str(), c.device.c_str(),
                  static_cast<long long>(c.batch_size), c.per_rank_per_second, c.total_per_second);
    text += line;
    if (c.host_syncs_per_step) {
      std::snprintf(line, sizeof line, " %11.2f", *c.host_syncs_per_step);
      text += line;
    } else if (syncs) {
      text += std::string(12, ' ');
    }
    if (latencies && c.latency_p50_ms) {
      std::snprintf(line, sizeof line, "  %9.2f %9.2f %9.2f", *c.latency_p50_ms, *c.latency_p90_ms, *c.latency_p99_ms);
      text += line;
    } else if (latencies) {
      text += std::string(31, ' ');
    }
    text += "  " + c.unit + "\n";
    const std::string meaning = c.precision + " = " + c.precision_used;
    if (c.precision != c.precision_used &&
        std::find(meanings.begin(), meanings.end(), meaning) == meanings.end())
      meanings.push_back(meaning);
  }
  for (const auto& meaning : meanings) text += "  " + meaning + "\n";
  return text + format_bench_footnotes(report);
}

nlohmann::json bench_report_to_json(const BenchReport& report) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : report.cases) {
    cases.push_back({{"mode", c.mode},
                     {"precision", c.precision},
                     {"precision_used", c.precision_used},
                     {"precision_note", c.precision_note},
                     {"memory_format", c.memory_format},
                     {"device", c.device},
                     {"batch_size_per_rank", c.batch_size},
                     {"unit", c.unit},
                     {"per_rank_per_second", c.per_rank_per_second},
                     {"total_per_second", c.total_per_second},
                     {"rank0_window_rates_per_second", c.window_rates}});
    if (c.loader_threads > 0) {
      cases.back()["loader_threads_per_rank"] = c.loader_threads;
      cases.back()["per_loader_thread_per_second"] = c.per_loader_thread_per_second;
    }
    if (c.host_syncs_per_step) cases.back()["host_syncs_per_step"] = *c.host_syncs_per_step;
    if (c.latency_p50_ms) {
      cases.back()["rank0_latency_ms"] = {
          {"p50", *c.latency_p50_ms}, {"p90", *c.latency_p90_ms}, {"p99", *c.latency_p99_ms}};
    }
  }
  return {{"workload", report.workload},  {"platform", report.platform},
          {"device_model", report.device_model}, {"world_size", report.world_size},
          {"threads_per_rank", report.threads_per_rank}, {"cases", cases}};
}

}  // namespace mlh
