#include "compliance/log_history.h"

namespace mlh {

void LogHistory::add(size_t index) { indices_by_key_[records_.at(index).key].push_back(index); }

int LogHistory::count(const std::string& key) const {
  const auto found = indices_by_key_.find(key);
  return found == indices_by_key_.end() ? 0 : static_cast<int>(found->second.size());
}

long LogHistory::last_index(const std::string& key) const {
  const auto found = indices_by_key_.find(key);
  return found == indices_by_key_.end() ? -1 : static_cast<long>(found->second.back());
}

int LogHistory::last_line(const std::string& key) const {
  const long index = last_index(key);
  return index < 0 ? 0 : records_[index].line_number;
}

const double* LogHistory::first_time_ms(const std::string& key) const {
  const auto found = indices_by_key_.find(key);
  return found == indices_by_key_.end() ? nullptr : &records_[found->second.front()].time_ms;
}

const nlohmann::json* LogHistory::last_metadata(const std::string& key, const std::string& field) const {
  const auto found = indices_by_key_.find(key);
  if (found == indices_by_key_.end()) return nullptr;
  for (auto index = found->second.rbegin(); index != found->second.rend(); ++index) {
    const nlohmann::json& metadata = records_[*index].metadata;
    if (const auto value = metadata.find(field); value != metadata.end()) return &*value;
  }
  return nullptr;
}

}  // namespace mlh
