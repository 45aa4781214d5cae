// COCO detection results files: a JSON list of {"image_id", "category_id", "bbox": [x, y, w, h],
// "score"}, the form pycocotools' COCO.loadRes reads, so a run's detections can be scored by the
// reference tools too. Numbers are written in the shortest form that reads back as the same double,
// so loadRes + COCOeval on the file give evaluate_boxes' numbers exactly.
#pragma once

#include <string>
#include <vector>

#include "datasets/coco/box_eval.h"

namespace mlh::coco {

// Writes `detections` in order to `json_path` through a temporary file renamed into place, so a
// reader never sees a partial file. Throws UserError naming the file when it cannot be written, or
// the detection and field when a box or score is not a finite number (JSON has no NaN).
void write_detections_json(const std::string& json_path, const std::vector<Detection>& detections);

// Reads a results file in file order. Extra keys are allowed and ignored. Throws UserError, one line
// naming the file and the entry's field, for: an unreadable file; malformed JSON; a top level that is
// not a list; an entry that is not an object; image_id or category_id missing or not an integer; bbox
// missing or not a list of 4 numbers; score missing or not a number.
std::vector<Detection> read_detections_json(const std::string& json_path);

}  // namespace mlh::coco
