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
constexpr std::string_view kAlibabaMarker = "MLPerf: ";

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
  auto time_s = line.find("time_s");
  if (time_ms != line.end() && time_ms->is_number()) {
    record.time_ms = time_ms->get<double>();
  } else if (time_ms == line.end() && time_s != line.end() && time_s->is_number()) {
    record.format = LogFormat::kMllogSeconds;
    record.time_ms = time_s->get<double>() * 1000.0;
  } else {
    throw LineError{"no numeric \"time_ms\""};
  }
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

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// `mm/dd/yy hh:mm:ss` as milliseconds since the Unix epoch, the clock read as UTC.
double parse_alibaba_time(std::string_view text) {
  static constexpr std::string_view kShape = "00/00/00 00:00:00";
  if (text.size() != kShape.size()) throw LineError{"expected [mm/dd/yy hh:mm:ss]"};
  for (size_t i = 0; i < kShape.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (kShape[i] == '0' ? !digit : text[i] != kShape[i]) throw LineError{"expected [mm/dd/yy hh:mm:ss]"};
  }
  const auto number = [&](size_t at) { return (text[at] - '0') * 10 + (text[at + 1] - '0'); };
  const int month = number(0), day = number(3), year = 2000 + number(6);
  const int hours = number(9), minutes = number(12), seconds = number(15);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60)
    throw LineError{"bad date or time '" + std::string(text) + "'"};
  const int64_t since_epoch_s = days_from_civil(year, month, day) * 86400 + hours * 3600 + minutes * 60 + seconds;
  return static_cast<double>(since_epoch_s) * 1000.0;
}

// A value as Alibaba's v0.6 logger wrote it: JSON where it parses, with a percentage read as its
// fraction (`{"value": 75.98000%, "epoch": 79}`); otherwise the text itself (`(224, 224, 3) -> ...`).
nlohmann::json parse_alibaba_value(std::string_view text) {
  std::string json;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      json += text[i];
      continue;
    }
    size_t start = json.size();
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(json[start - 1])) || json[start - 1] == '.')) --start;
    if (start > 0 && json[start - 1] == '-') --start;
    if (start == json.size()) {
      json += '%';
      continue;
    }
    const double percent = std::strtod(json.c_str() + start, nullptr);
    json.resize(start);
    json += nlohmann::json(percent / 100.0).dump();
  }
  nlohmann::json value = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::string(text);
  return value;
}

// Alibaba v0.6: `<benchmark> [mm/dd/yy hh:mm:ss], <key>[: <value>]` (after "MLPerf: "). nullopt for
// a line of free text after the time (`Total runtime: 24.409763 minutes`).
std::optional<LogRecord> parse_alibaba(std::string_view body) {
  LogRecord record;
  record.format = LogFormat::kAlibabaV06;
  record.benchmark = std::string(take_token(body));
  skip_spaces(body);
  if (record.benchmark.empty() || body.empty() || body.front() != '[') throw LineError{"expected '<benchmark> [<date time>]'"};
  const size_t close = body.find(']');
  if (close == std::string_view::npos) throw LineError{"expected ']' after the date and time"};
  record.time_ms = parse_alibaba_time(body.substr(1, close - 1));
  body.remove_prefix(close + 1);
  if (body.empty() || body.front() != ',') throw LineError{"expected ', <key>' after the time"};
  body.remove_prefix(1);
  skip_spaces(body);
  size_t key_end = 0;
  while (key_end < body.size() && is_key_char(body[key_end])) ++key_end;
  const std::string_view rest = trim(body.substr(key_end));
  if (key_end == 0 || !(rest.empty() || rest.front() == ':')) return std::nullopt;
  record.key = std::string(body.substr(0, key_end));
  if (!rest.empty()) {
    const std::string_view value = trim(rest.substr(1));
    if (!value.empty()) record.value = parse_alibaba_value(value);
  }
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
  // Alibaba's v0.6 lines begin with their marker and a benchmark, then "[" (prose may say "MLPerf: ").
  if (line.rfind(kAlibabaMarker, 0) == 0) {
    const std::string_view rest = line.substr(kAlibabaMarker.size());
    const size_t space = rest.find(' ');
    if (space != std::string_view::npos && space > 0 && rest.substr(space + 1, 1) == "[")
      return Marker{LogFormat::kAlibabaV06, 0, kAlibabaMarker.size()};
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
    case LogFormat::kMllogSeconds:
      return ":::MLLOG with time_s";
    case LogFormat::kAlibabaV06:
      return "MLPerf: (Alibaba v0.6)";
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
      case LogFormat::kAlibabaV06:
        if (std::optional<LogRecord> parsed = parse_alibaba(body)) {
          record = std::move(*parsed);
          break;
        }
        return std::nullopt;
      case LogFormat::kMllogSeconds:
        MLH_ASSERT(!"a line's format, not a marker's");
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
