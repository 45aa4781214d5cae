// RunResult records (result_<i>.json): harness/results.h's reader, and the report's, which reads the
// record beside a log (report/report_data.h collect_runs; the log here is fixed and valid).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/user_error.h"
#include "fuzz/fuzz_input.h"
#include "harness/results.h"
#include "report/report_data.h"

namespace {

const char kLog[] =
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"submission_benchmark\", \"value\": \"ncf\", \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 1}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"seed\", \"value\": 1, \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 1}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"INTERVAL_START\", \"key\": \"run_start\", \"value\": null, \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 1}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 9000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.7, \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 1, \"epoch_num\": 1}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 9000, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 1, \"status\": \"success\"}}\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const mlh::proto::RunResult record =
        mlh::run_result_from_json(std::string(reinterpret_cast<const char*>(data), size));
    mlh::format_run_summary(record);
  } catch (const mlh::UserError&) {
  }
  static const std::string log_path = [] {
    return mlh::fuzz::write_input("result_0.txt", reinterpret_cast<const uint8_t*>(kLog), sizeof(kLog) - 1);
  }();
  mlh::fuzz::write_input("result_0.json", data, size);
  try {
    mlh::report::collect_runs({log_path});
  } catch (const mlh::UserError&) {
  }
  return 0;
}
