// Where runs go and how their records are written. Layout follows the MLPerf submission tree so the
// official tools read it: <out>/<platform>/<benchmark>/result_<i>.txt with result_<i>.json beside it.
// A run writes its log as result_<i>.txt.partial and renames it when the run ends, so a crash or a
// user error never leaves a file that looks like a result.
#pragma once

#include <string>

#include "harness/run_result.pb.h"

namespace mlh {

struct ResultPaths {
  std::string folder;       // <out>/<platform>/<benchmark>
  int index = 0;
  std::string log_file;     // .../result_<i>.txt
  std::string partial_log;  // .../result_<i>.txt.partial, while the run is going
  std::string record_file;  // .../result_<i>.json
};

// Creates the folder and picks the next free index: one past the highest existing result_<i>.txt,
// .txt.partial or .json. Throws UserError when the folder cannot be created.
ResultPaths allocate_result_paths(const std::string& out_dir, const std::string& platform,
                                  const std::string& benchmark);

// RunResult as indented JSON (protobuf's JSON mapping, field names as in the .proto).
std::string run_result_to_json(const proto::RunResult& result);
proto::RunResult run_result_from_json(const std::string& json);  // throws UserError
// The console report of a finished run: outcome, epochs, time to train, throughput, and files.
std::string format_run_summary(const proto::RunResult& result);
// Writes `path` whole or not at all: a temporary beside it, fsync, rename, fsync of the folder. A full
// disk or a file-size limit is a UserError naming the path and the cause; the old file stays.
void write_text_file(const std::string& path, const std::string& text);
// fsync of a folder, so the renames in it survive a power cut (errors ignored).
void sync_directory(const std::string& path);

}  // namespace mlh
