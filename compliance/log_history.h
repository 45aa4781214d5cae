// What came before a log line: the view of the log that the compliance rules judge a line against
// (which keys appeared, when, and their last metadata). Advanced one record at a time by the checker.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/log_reader.h"

namespace mlh {

class LogHistory {
 public:
  // `records` must outlive the history. Starts before the first record.
  explicit LogHistory(const std::vector<LogRecord>& records) : records_(records) {}

  // Moves past the record at `index` (records are passed in order).
  void add(size_t index);

  int count(const std::string& key) const;
  // The line number of the last `key` line before now; 0 when there was none.
  int last_line(const std::string& key) const;
  // The position (index into records) of the last `key` line before now; -1 when none.
  long last_index(const std::string& key) const;
  // The time of the first `key` line; nullptr when there was none.
  const double* first_time_ms(const std::string& key) const;
  // The metadata field `field` of the last `key` line that has it; nullptr when none.
  const nlohmann::json* last_metadata(const std::string& key, const std::string& field) const;

 private:
  const std::vector<LogRecord>& records_;
  std::map<std::string, std::vector<size_t>> indices_by_key_;
};

}  // namespace mlh
