// The golden cases of the COCO evaluation tests: <folder>/<case>/{instances,detections}.json, written
// by tools/make_coco_eval_goldens.py and tools/make_coco_mask_goldens.py with pycocotools' answers.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "datasets/coco/annotations.h"
#include "datasets/coco/coco_eval.h"
#include "datasets/coco/detections_json.h"

namespace mlh::coco {

inline Annotations read_golden_annotations(const std::filesystem::path& folder, const std::string& name) {
  ReadOptions options;
  options.keep_images_without_annotations = true;  // COCOeval evaluates every image of the file
  return read_annotations((folder / name / "instances.json").string(), options);
}

inline std::vector<Detection> read_golden_detections(const std::filesystem::path& folder, const std::string& name) {
  return read_detections_json((folder / name / "detections.json").string());
}

}  // namespace mlh::coco
