// What the COCO workloads' CLI tests do alike beside Cli's runs: find the logs a run wrote, copy the
// generated COCO folder a first run made so a test can break it, and read and write its JSON files.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/cli_fixture.h"

namespace mlh {

class CocoCli : public Cli {
 protected:
  // The MLPerf logs under results/.
  std::vector<fs::path> logs() {
    std::vector<fs::path> found;
    if (!fs::exists(dir_ / "results")) return found;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "results"))
      if (entry.path().extension() == ".txt") found.push_back(entry.path());
    return found;
  }
  // Runs mlharness with `generating_args` (a synthetic_coco run, which generates its set under data/),
  // copies the generated folder to coco/ and drops the run's results.
  fs::path generated_coco_copy(const std::string& generating_args) {
    const Outcome made = run(generating_args, "", 300);
    EXPECT_LE(made.exit_code, 1) << made.err;
    fs::path generated;
    for (const auto& entry : fs::directory_iterator(dir_ / "data")) generated = entry.path();
    const fs::path copy = dir_ / "coco";
    fs::copy(generated, copy, fs::copy_options::recursive);
    fs::remove_all(dir_ / "results");
    return copy;
  }
  nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_file(path)); }
  void write_json(const fs::path& path, const nlohmann::json& json) { std::ofstream(path) << json.dump(); }
};

}  // namespace mlh
