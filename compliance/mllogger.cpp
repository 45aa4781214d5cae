#include "compliance/mllogger.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "base/user_error.h"

namespace mlh {
namespace {

constexpr std::string_view kMarker = ":::MLLOG ";

// Top-level project folders; a call site's path is logged from the last one it contains.
constexpr std::string_view kProjectFolders[] = {"/compliance/", "/harness/", "/datasets/",
                                                "/workloads/", "/launch/", "/tests/"};

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

int64_t system_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string scalar_json(const nlohmann::ordered_json& value) {
  using nlohmann::ordered_json;
  return value.dump(-1, ' ', /*ensure_ascii=*/true, ordered_json::error_handler_t::replace);
}

// Python json.dumps layout: ", " between items and ": " after keys.
void append_json(const nlohmann::ordered_json& value, std::string& out) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [name, item] : value.items()) {
      if (!first) out += ", ";
      first = false;
      out += scalar_json(name);
      out += ": ";
      append_json(item, out);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& item : value) {
      if (!first) out += ", ";
      first = false;
      append_json(item, out);
    }
    out += ']';
  } else {
    out += scalar_json(value);
  }
}

void write_line(std::FILE* stream, const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stream);
  std::fputc('\n', stream);
  std::fflush(stream);
}

}  // namespace

MLLogger::MLLogger(Options options) : options_(std::move(options)) {
  if (!options_.clock_ms) options_.clock_ms = system_clock_ms;
  if (!options_.enabled || options_.log_path.empty()) return;
  file_ = std::fopen(options_.log_path.c_str(), "w");
  if (file_ == nullptr) {
    throw UserError("cannot create log file '" + options_.log_path + "': " + std::strerror(errno) +
                    "; check that its folder exists and is writable");
  }
}

MLLogger::~MLLogger() { close(); }

void MLLogger::close() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
}

int64_t MLLogger::event(std::string_view key, const nlohmann::json& value,
                        const nlohmann::ordered_json& metadata, CallSite site) {
  const int64_t time_ms = options_.clock_ms();
  if (!options_.enabled) return time_ms;

  MLH_ASSERT(metadata.is_object() || metadata.is_null());
  nlohmann::ordered_json full_metadata = nlohmann::ordered_json::object();
  full_metadata["file"] = log_file_name(site.file);
  full_metadata["lineno"] = site.line;
  if (metadata.is_object()) {
    for (const auto& [name, item] : metadata.items()) full_metadata[name] = item;
  }
  const std::string line =
      format_line(options_.log_namespace, time_ms, key, value, full_metadata);

  const std::lock_guard<std::mutex> lock(mutex_);
  if (file_ != nullptr) {
    write_line(file_, line);
    if (std::ferror(file_)) {
      throw UserError("cannot write log file '" + options_.log_path + "': " +
                      std::strerror(errno));
    }
  }
  if (options_.also_stdout) write_line(stdout, line);
  return time_ms;
}

int64_t MLLogger::start(std::string_view key, const nlohmann::ordered_json& metadata,
                        CallSite site) {
  return event(key, nullptr, metadata, site);
}

int64_t MLLogger::end(std::string_view key, const nlohmann::ordered_json& metadata,
                      CallSite site) {
  return event(key, nullptr, metadata, site);
}

std::string MLLogger::format_line(const std::string& log_namespace, int64_t time_ms,
                                  std::string_view key, const nlohmann::json& value,
                                  const nlohmann::ordered_json& metadata) {
  nlohmann::ordered_json record = nlohmann::ordered_json::object();
  record["namespace"] = log_namespace;
  record["time_ms"] = time_ms;
  record["event_type"] = event_type_for(key);
  record["key"] = std::string(key);
  record["value"] = value;
  record["metadata"] = metadata.is_null() ? nlohmann::ordered_json::object() : metadata;
  std::string line(kMarker);
  append_json(record, line);
  return line;
}

const char* MLLogger::event_type_for(std::string_view key) {
  if (ends_with(key, "_start")) return "INTERVAL_START";
  if (ends_with(key, "_stop")) return "INTERVAL_END";
  return "POINT_IN_TIME";
}

std::string MLLogger::log_file_name(std::string_view source_path) {
  const std::string path = "/" + std::string(source_path);
  size_t folder_start = std::string::npos;
  for (std::string_view folder : kProjectFolders) {
    const size_t found = path.rfind(folder);
    if (found != std::string::npos && (folder_start == std::string::npos || found > folder_start)) {
      folder_start = found;
    }
  }
  if (folder_start == std::string::npos) {
    return path.substr(path.rfind('/') + 1);
  }
  constexpr std::string_view kTests = "/tests";
  if (ends_with(std::string_view(path).substr(0, folder_start), kTests)) {
    folder_start -= kTests.size();
  }
  return path.substr(folder_start + 1);
}

}  // namespace mlh
