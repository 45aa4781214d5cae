#include "compliance/log_reader.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "base/user_error.h"

namespace mlh {
namespace {

constexpr std::string_view kMllogMarker = ":::MLLOG ";
constexpr std::string_view kMllMarker = ":::MLL ";
constexpr std::string_view kMlpMarker = ":::MLPv0.5.0 ";

// Thrown inside this file only; parse_log_line turns it into a LogParseError.
struct LineError {
  std::string message;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

void skip_spaces(std::string_view& text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
}

std::string_view take_token(std::string_view& text) {
  size_t end = 0;
  while (end < text.size() && !is_space(text[end])) ++end;
  std::string_view token = text.substr(0, end);
  text.remove_prefix(end);
  return token;
}

std::string_view take_key(std::string_view& text) {
  size_t end = 0;
  while (end < text.size() && is_key_char(text[end])) ++end;
  if (end == 0) throw LineError{"expected a key"};
  std::string_view key = text.substr(0, end);
  text.remove_prefix(end);
  return key;
}

double parse_seconds(std::string_view token) {
  const std::string text(token);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(seconds)) {
    throw LineError{"bad timestamp '" + text + "'"};
  }
  return seconds;
}

nlohmann::json parse_json(std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw LineError{std::string("malformed JSON: ") + e.what()};
  }
}

// v0.7+: `{"namespace", "time_ms", "event_type", "key", "value", "metadata"}`; the official
// checker reads time_ms, key, value and metadata and crashes when one is missing.
LogRecord parse_mllog(std::string_view body) {
  nlohmann::json line = parse_json(body);
  if (!line.is_object()) throw LineError{"the JSON is not an object"};
  LogRecord record;
  record.format = LogFormat::kMllog;
  auto key = line.find("key");
  if (key == line.end() || !key->is_string()) throw LineError{"no string \"key\""};
  record.key = key->get<std::string>();
  auto time_ms = line.find("time_ms");
  if (time_ms == line.end() || !time_ms->is_number()) throw LineError{"no numeric \"time_ms\""};
  record.time_ms = time_ms->get<double>();
  auto value = line.find("value");
  if (value == line.end()) throw LineError{"no value"};
  record.value = std::move(*value);
  auto metadata = line.find("metadata");
  if (metadata == line.end()) throw LineError{"no metadata"};
  if (!metadata->is_object()) throw LineError{"metadata is not an object"};
  record.metadata = std::move(*metadata);
  return record;
}

// v0.6: `<seconds> <key>: {"value": ..., "metadata": {...}}`.
LogRecord parse_mll(std::string_view body) {
  LogRecord record;
  record.format = LogFormat::kMll;
  skip_spaces(body);
  record.time_ms = parse_seconds(take_token(body)) * 1000.0;
  skip_spaces(body);
  record.key = std::string(take_key(body));
  skip_spaces(body);
  if (body.empty() || body.front() != ':') throw LineError{"expected ':' after the key"};
  body.remove_prefix(1);
  nlohmann::json payload = parse_json(body);
  if (!payload.is_object()) throw LineError{"the JSON is not an object"};
  auto value = payload.find("value");
  if (value == payload.end()) throw LineError{"no value"};
  record.value = std::move(*value);
  auto metadata = payload.find("metadata");
  if (metadata == payload.end()) throw LineError{"no metadata"};
  if (!metadata->is_object()) throw LineError{"metadata is not an object"};
  record.metadata = std::move(*metadata);
  return record;
}

// v0.5: `<benchmark> <seconds> (<file>:<line>) <key>[: <json value>]`. The file may itself hold
// ':' or ')', so the call site ends at the first ")" that follows ":<digits>" and ends a word.
LogRecord parse_mlp(std::string_view body) {
  LogRecord record;
  record.format = LogFormat::kMlpV05;
  skip_spaces(body);
  record.benchmark = std::string(take_token(body));
  if (record.benchmark.empty()) throw LineError{"no benchmark"};
  skip_spaces(body);
  record.time_ms = parse_seconds(take_token(body)) * 1000.0;
  skip_spaces(body);
  if (body.empty() || body.front() != '(') throw LineError{"expected '(<file>:<line>)'"};
  body.remove_prefix(1);

  size_t close = std::string_view::npos;
  size_t colon = std::string_view::npos;
  for (size_t pos = body.find(')'); pos != std::string_view::npos; pos = body.find(')', pos + 1)) {
    const bool ends_word = pos + 1 == body.size() || is_space(body[pos + 1]);
    size_t digits = pos;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(body[digits - 1]))) --digits;
    if (ends_word && digits < pos && digits > 0 && body[digits - 1] == ':') {
      close = pos;
      colon = digits - 1;
      break;
    }
  }
  if (close == std::string_view::npos) throw LineError{"expected '(<file>:<line>)'"};
  record.metadata = nlohmann::json::object();
  record.metadata["file"] = std::string(body.substr(0, colon));
  record.metadata["lineno"] = std::stoll(std::string(body.substr(colon + 1, close - colon - 1)));
  body.remove_prefix(close + 1);

  skip_spaces(body);
  record.key = std::string(take_key(body));
  body = trim(body);
  if (body.empty()) return record;
  if (body.front() != ':') throw LineError{"unexpected text after the key"};
  body.remove_prefix(1);
  if (trim(body).empty()) throw LineError{"no value after ':'"};
  record.value = parse_json(body);
  return record;
}

struct Marker {
  LogFormat format;
  size_t position;
  size_t length;
};

// The official v0.7 parser drops everything up to the last ":::MLLOG " on a line.
std::optional<Marker> find_marker(std::string_view line) {
  if (size_t pos = line.rfind(kMllogMarker); pos != std::string_view::npos) {
    return Marker{LogFormat::kMllog, pos, kMllogMarker.size()};
  }
  if (size_t pos = line.find(kMlpMarker); pos != std::string_view::npos) {
    return Marker{LogFormat::kMlpV05, pos, kMlpMarker.size()};
  }
  if (size_t pos = line.find(kMllMarker); pos != std::string_view::npos) {
    return Marker{LogFormat::kMll, pos, kMllMarker.size()};
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(LogFormat format) {
  switch (format) {
    case LogFormat::kMllog:
      return ":::MLLOG";
    case LogFormat::kMll:
      return ":::MLL";
    case LogFormat::kMlpV05:
      return ":::MLPv0.5.0";
  }
  return "unknown";
}

std::optional<LogRecord> parse_log_line(std::string_view line, int line_number,
                                        LogParseError* error) {
  const std::optional<Marker> marker = find_marker(line);
  if (!marker) return std::nullopt;
  std::string_view body = trim(line.substr(marker->position + marker->length));
  try {
    LogRecord record;
    switch (marker->format) {
      case LogFormat::kMllog:
        record = parse_mllog(body);
        break;
      case LogFormat::kMll:
        record = parse_mll(body);
        break;
      case LogFormat::kMlpV05:
        record = parse_mlp(body);
        break;
    }
    record.line_number = line_number;
    return record;
  } catch (const LineError& e) {
    if (error != nullptr) *error = LogParseError{line_number, e.message};
  } catch (const std::exception& e) {
    if (error != nullptr) *error = LogParseError{line_number, e.what()};
  }
  return std::nullopt;
}

ParsedLog parse_log_text(std::string_view text) {
  ParsedLog log;
  int line_number = 0;
  bool last_line_failed = false;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    last_line_failed = false;
    LogParseError error;
    if (std::optional<LogRecord> record = parse_log_line(line, line_number, &error)) {
      log.records.push_back(std::move(*record));
    } else if (error.line_number != 0) {
      log.errors.push_back(std::move(error));
      last_line_failed = newline == std::string_view::npos;
    }
  }
  log.truncated_last_line = last_line_failed;
  return log;
}

std::string not_a_log_reason(const ParsedLog& log) {
  if (log.errors.empty()) return "not an MLPerf log (no :::MLLOG, :::MLL or :::MLPv0.5.0 line)";
  const LogParseError& first = log.errors.front();
  return "no readable MLPerf line (" + std::to_string(log.errors.size()) + " marked lines fail; line " +
         std::to_string(first.line_number) + ": " + first.message + ")";
}

ParsedLog read_log_file(const std::string& path) {
  auto fail = [&path](int error_number) {
    return UserError("cannot read log file '" + path + "': " + std::strerror(error_number));
  };
  struct Closer {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw fail(errno);
  std::string text;
  char buffer[1 << 16];
  size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, count);
  if (std::ferror(file.get())) throw fail(errno);
  ParsedLog log = parse_log_text(text);
  log.path = path;
  return log;
}

}  // namespace mlh
