// COCO box detection metrics as pycocotools' COCOeval(iouType='bbox') computes them (evaluate,
// accumulate, summarize), number for number: SSD's quality target is stats[0], AP@[.5:.95]
// (spec/workloads.md §3). No LibTorch here.
//
// What COCOeval does and this mirrors, per category of the ground truth and image:
// - detections sorted by score, highest first, stably (ties keep input order), cut at 100;
// - IoU of boxes; against a crowd box, intersection over the detection's area;
// - per area range (all [0, 1e10], small [0, 32²], medium [32², 96²], large [96², 1e10], bounds
//   included), ground truths that are crowd or whose `area` field lies outside the range are
//   ignored; at each IoU threshold .50:.05:.95 a detection matches the best-IoU ground truth not
//   yet matched (crowd ones match any number), preferring non-ignored ones; unmatched detections
//   whose w*h lies outside the range are ignored;
// - precision at 101 recall points from all images' detections (each image's first 1, 10 or 100)
//   sorted by score, made monotone; recall is the final one; -1 where a category has no
//   non-ignored ground truth, and the summary averages the entries that are not -1.
// One quirk kept: like COCOeval, a ground-truth annotation with id 0 counts as unmatched.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/coco/annotations.h"

namespace mlh::coco {

// One detected box: COCO ids, pixels of the original image, as a results JSON holds it.
struct Detection {
  int64_t image_id = 0;
  int64_t category_id = 0;
  double x = 0, y = 0, w = 0, h = 0;
  double score = 0;
};

// COCOeval.stats, in its order; -1 where pycocotools gives -1 (no ground truth to measure).
struct BoxEvalStats {
  double ap = -1;         // AP @[IoU .50:.95], all areas, 100 detections per image
  double ap50 = -1;       // AP @ IoU .50
  double ap75 = -1;       // AP @ IoU .75
  double ap_small = -1;   // area <= 32²
  double ap_medium = -1;  // 32² <= area <= 96²
  double ap_large = -1;   // area >= 96²
  double ar1 = -1;        // AR @[.50:.95], 1 detection per image
  double ar10 = -1;
  double ar100 = -1;
  double ar_small = -1;   // AR, 100 detections
  double ar_medium = -1;
  double ar_large = -1;

  std::array<double, 12> as_array() const;
};

// The IoU thresholds (np.linspace(.5, .95, 10)) and recall points (np.linspace(0, 1, 101)) as
// numpy computes them, bit for bit; matching compares IoUs against these exact doubles.
const std::array<double, 10>& coco_iou_thresholds();
const std::array<double, 101>& coco_recall_thresholds();

// Evaluates `detections` against `ground_truth` over `image_ids` (sorted and deduplicated as
// COCOeval does; empty: every image of ground_truth) and all of its categories. Detections on
// other images of ground_truth, and detections of categories ground_truth does not declare, never
// count (COCOeval filters them out). Throws UserError, naming ground_truth.path, for a detection or
// an image id that is not an image of ground_truth (pycocotools: "Results do not correspond to
// current coco set"); images that read_annotations dropped for having no annotations are not
// images of ground_truth, so read with keep_images_without_annotations to score detections there.
// Unlike pycocotools' loadRes, an empty detection list is fine (every AP and AR is then 0 or -1).
BoxEvalStats evaluate_boxes(const Annotations& ground_truth, const std::vector<Detection>& detections,
                            const std::vector<int64_t>& image_ids = {});

// The 12 lines COCOeval.summarize() prints, each ending in '\n', e.g.
// " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.231".
std::string format_box_eval_stats(const BoxEvalStats& stats);

}  // namespace mlh::coco
