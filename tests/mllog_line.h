// One `:::MLLOG` line, for tests that write MLPerf logs by hand (event_type is not read by any
// reader, so every line says POINT_IN_TIME).
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace mlh {

inline std::string mllog_line(const std::string& key, const nlohmann::json& value, double time_ms,
                              nlohmann::json metadata = nlohmann::json::object()) {
  const nlohmann::json line = {{"namespace", ""}, {"time_ms", time_ms}, {"event_type", "POINT_IN_TIME"},
                               {"key", key},      {"value", value},     {"metadata", std::move(metadata)}};
  return ":::MLLOG " + line.dump() + "\n";
}

}  // namespace mlh
