// MLLogger: writes MLPerf `:::MLLOG {json}` lines (spec/mlperf-logging.md §2), one flushed line per
// event, in mlperf_logging's field order: namespace, time_ms, event_type, key, value, metadata.
// event_type is derived from the key: *_start -> INTERVAL_START, *_stop -> INTERVAL_END, else
// POINT_IN_TIME. metadata always holds the call site's file and lineno, then the caller's fields in
// the order given (an ordered_json; a plain nlohmann::json converts but arrives sorted by key).
// A logger built with enabled=false (ranks other than 0) writes nothing. Injected, never global.
// Any thread may log or close: lines never interleave, and nothing reaches the file after close.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlh {

// The place in the source that logged an event; filled in at the call site by default arguments.
struct CallSite {
  const char* file = __builtin_FILE();
  int line = __builtin_LINE();
};

class MLLogger {
 public:
  struct Options {
    std::string log_path;          // the run's log file; empty = no file
    bool also_stdout = false;      // echo every line to stdout
    bool enabled = true;           // false on every rank but 0
    std::string log_namespace;     // the "namespace" field, "" by default
    std::function<int64_t()> clock_ms;  // ms since the Unix epoch; system clock when empty
  };

  // Creates (truncates) log_path when enabled; throws UserError naming it when that fails.
  explicit MLLogger(Options options);
  ~MLLogger();
  MLLogger(const MLLogger&) = delete;
  MLLogger& operator=(const MLLogger&) = delete;

  // One POINT_IN_TIME (or interval, by key suffix) event. Returns the time_ms it logged.
  // A disabled logger writes nothing but still returns the clock's time. Throws UserError when the
  // log file cannot be written.
  int64_t event(std::string_view key, const nlohmann::json& value = nullptr,
                const nlohmann::ordered_json& metadata = nlohmann::ordered_json::object(),
                CallSite site = {});
  // Interval events; value is null as in mlperf_logging.
  int64_t start(std::string_view key,
                const nlohmann::ordered_json& metadata = nlohmann::ordered_json::object(),
                CallSite site = {});
  int64_t end(std::string_view key,
              const nlohmann::ordered_json& metadata = nlohmann::ordered_json::object(),
              CallSite site = {});

  bool enabled() const { return options_.enabled; }
  const std::string& log_path() const { return options_.log_path; }
  // Closes the file (later events go to stdout only, if echoing). Idempotent.
  void close();

  // The exact line (without newline) for an event; exposed for tests and other writers. The JSON is
  // spaced like Python's json.dumps (`{"key": value, ...}`), non-ASCII escaped, metadata as given.
  static std::string format_line(const std::string& log_namespace, int64_t time_ms,
                                 std::string_view key, const nlohmann::json& value,
                                 const nlohmann::ordered_json& metadata);
  static const char* event_type_for(std::string_view key);
  // The call site's path as logged: project-relative from the last top-level project folder
  // ("/work/main/harness/driver.cpp" -> "harness/driver.cpp", tests keep their "tests/" prefix),
  // else the basename.
  static std::string log_file_name(std::string_view source_path);

 private:
  Options options_;
  std::mutex mutex_;  // guards file_ and the writes
  std::FILE* file_ = nullptr;
};

}  // namespace mlh
