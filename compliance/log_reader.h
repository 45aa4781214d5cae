// LogReader: parses MLPerf result logs in the three published line formats and ignores every other
// line (spec/mlperf-logging.md §2):
//   v0.7+  `:::MLLOG {json}`                                 (time_ms in the JSON)
//   v0.6   `:::MLL <seconds> <key>: {"value":..,"metadata":..}`
//   v0.5   `:::MLPv0.5.0 <benchmark> <seconds> (<file>:<line>) <key>[: <json value>]`
// and the two that Alibaba's published results use, which MLPerf published though no official
// checker reads them (tests/data/mlperf-rounds/README.md):
//   v0.7   `:::MLLOG {json}` with "time_s" (seconds) where the format has "time_ms"
//   v0.6   `MLPerf: <benchmark> [mm/dd/yy hh:mm:ss], <key>[: <value>]`, the time a local clock's to
//          the second (read as UTC: only differences are used), values JSON where they parse, a
//          percentage as its fraction (75.98000% -> 0.7598), free text as a string; a line without
//          a key (`Total runtime: 24.4 minutes`) is not a record
// Anything before the marker on a line (a rank prefix, say) is dropped. Every record gets time_ms in
// milliseconds whatever its format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlh {

enum class LogFormat { kMllog, kMll, kMlpV05, kMllogSeconds, kAlibabaV06 };
const char* to_string(LogFormat format);

struct LogRecord {
  double time_ms = 0;            // ms since the Unix epoch (v0.5/v0.6 seconds converted)
  std::string key;
  nlohmann::json value;          // null when the line has none
  nlohmann::json metadata = nlohmann::json::object();  // v0.5: {"file","lineno"} from the call site; Alibaba v0.6: {}
  LogFormat format = LogFormat::kMllog;
  std::string benchmark;         // v0.5 and Alibaba v0.6 lines only: the benchmark field
  int line_number = 0;           // 1-based line in the source text
};

// A line that carries a format marker but could not be parsed (malformed JSON, missing fields).
struct LogParseError {
  int line_number = 0;
  std::string message;
};

struct ParsedLog {
  std::string path;              // as given; empty for text parsed from memory
  std::vector<LogRecord> records;
  std::vector<LogParseError> errors;
  // The text did not end with a newline and its last line failed (that error is in errors too).
  bool truncated_last_line = false;
};

// Parses one line. nullopt for lines without a marker; throws nothing. Sets *error for a marked but
// unparsable line.
std::optional<LogRecord> parse_log_line(std::string_view line, int line_number,
                                        LogParseError* error);

ParsedLog parse_log_text(std::string_view text);

// Why a log without a single readable MLPerf line is not one: "not an MLPerf log (no :::MLLOG, :::MLL
// or :::MLPv0.5.0 line)", or, when marked lines failed, the first failure ("no readable MLPerf line;
// line 1: malformed JSON: ...").
std::string not_a_log_reason(const ParsedLog& log);
// Throws UserError naming the file when it cannot be opened or read.
ParsedLog read_log_file(const std::string& path);

}  // namespace mlh
