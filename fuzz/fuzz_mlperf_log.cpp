// MLPerf result logs in the three line formats (compliance/log_reader.h), parsed from memory: a
// malformed line is an entry in ParsedLog::errors, so nothing at all may be thrown here.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compliance/log_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mlh::parse_log_text(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
