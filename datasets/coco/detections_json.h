// COCO detection results files, the form pycocotools' COCO.loadRes reads, so a run's detections can
// be scored by the reference tools too: a JSON list of {"image_id", "category_id", "score"} with a
// box, "bbox": [x, y, w, h], and/or a mask, "segmentation": {"size": [height, width], "counts": a
// compressed RLE string (datasets/coco/rle.h)}. Numbers are written in the shortest form that reads
// back as the same double, so loadRes + COCOeval on the file give evaluate_detections' numbers
// exactly.
#pragma once

#include <string>
#include <vector>

#include "datasets/coco/coco_eval.h"

namespace mlh::coco {

// Writes `detections` in order to `json_path` through a temporary file renamed into place, so a
// reader never sees a partial file. A detection with a mask is written as a mask result (its
// segmentation, no bbox: loadRes then takes its area from the mask, as mask AP needs); one without,
// as a box result. Throws UserError naming the file when it cannot be written, or the detection and
// field when a box or score is not a finite number (JSON has no NaN).
void write_detections_json(const std::string& json_path, const std::vector<Detection>& detections);

// Reads a results file in file order, as loadRes does: when the first entry has a non-empty "bbox",
// every entry is a box result (area w*h; a segmentation, when given, is kept for segm evaluation);
// otherwise every entry is a mask result (area from the mask; bbox as given, or the mask's box when
// missing). Extra keys are allowed and ignored. Throws UserError, one line naming the file and the
// entry's field, for: an unreadable file; malformed JSON; a top level that is not a list; an entry
// that is not an object; image_id or category_id missing or not an integer; a first entry with
// neither bbox nor segmentation; bbox missing (box results) or not a list of 4 numbers; segmentation
// missing (mask results), not an object, a size that is not [height, width] of at most 2^32-1
// pixels, counts that are not a compressed RLE string (loadRes reads no other), cannot be decoded, or
// do not cover height x width; score missing or not a number. The file is converted entry by entry
// as it is parsed, never held as a JSON tree.
std::vector<Detection> read_detections_json(const std::string& json_path);

}  // namespace mlh::coco
