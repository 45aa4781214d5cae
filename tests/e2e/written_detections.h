// The detections a detection mini run wrote with `--set write_detections=true`, beside what it
// logged, and their score by `mlharness coco-eval`: the checks that what a run writes is what it
// judged (SsdDetections, MaskRcnnDetections).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compliance/log_reader.h"
#include "tests/e2e/cli_fixture.h"
#include "tests/e2e/run_logs.h"
#include "tests/test_paths.h"

namespace mlh {

// One evaluation's files and its logged eval_accuracy value.
struct WrittenDetections {
  int64_t epoch = 0;
  std::filesystem::path boxes;  // <log stem>_detections_epoch<N>.json
  std::filesystem::path masks;  // <log stem>_mask_detections_epoch<N>.json (a run with masks)
  nlohmann::json logged;
};

// Every evaluation of the run, each with the files it wrote (a missing box file fails the test).
inline std::vector<WrittenDetections> written_detections_of(const std::string& run) {
  const std::string log = log_of(run).string();
  const std::string stem = log.substr(0, log.size() - 4);  // without ".txt"
  std::vector<WrittenDetections> written;
  for (const LogRecord& record : records_of(run)) {
    if (record.key != "eval_accuracy") continue;
    const int64_t epoch = record.metadata.at("epoch_num").get<int64_t>();
    const std::string suffix = "_epoch" + std::to_string(epoch) + ".json";
    written.push_back({epoch, stem + "_detections" + suffix, stem + "_mask_detections" + suffix, record.value});
    EXPECT_TRUE(std::filesystem::exists(written.back().boxes)) << written.back().boxes;
  }
  return written;
}

// The val annotations of the set the run generated under its data folder (exactly one).
inline std::filesystem::path val_annotations_of(const std::string& run) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(test_paths::e2e_runs_dir()) / run / "data"))
    if (entry.path().filename() == "instances_val2017.json") found.push_back(entry.path());
  EXPECT_EQ(found.size(), 1u) << run;
  return found.empty() ? std::filesystem::path() : found[0];
}

// The fixture: AP (stats[0]) of a detections file, as `mlharness coco-eval --iou-type <bbox|segm>`
// scores it against the annotations (-1 when the command fails, which fails the test).
class WrittenDetectionsCheck : public Cli {
 protected:
  double coco_eval_ap(const std::filesystem::path& annotations, const std::filesystem::path& detections,
                      const std::string& iou_type) {
    const Outcome scored = run("coco-eval --annotations " + annotations.string() + " --detections " +
                               detections.string() + " --iou-type " + iou_type + " --json scored.json");
    EXPECT_EQ(scored.exit_code, 0) << scored.err;
    if (scored.exit_code != 0) return -1;
    return nlohmann::json::parse(read_file(dir_ / "scored.json")).at("stats").at(0).get<double>();
  }
};

}  // namespace mlh
