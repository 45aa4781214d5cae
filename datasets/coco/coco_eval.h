// COCO detection metrics as pycocotools' COCOeval computes them (evaluate, accumulate, summarize),
// number for number, for boxes (iouType 'bbox': SSD's target and Mask R-CNN's first) and masks
// (iouType 'segm': Mask R-CNN's second), stats[0] being AP@[.5:.95] (spec/workloads.md §3, §4). One
// evaluator; the two kinds differ only in the overlap measured. No LibTorch here.
//
// What COCOeval does and this mirrors, per category of the ground truth and image:
// - detections sorted by score, highest first, stably (ties keep input order), cut at 100;
// - the overlap: IoU of boxes (bbIou) or of run-length masks (rleIou, datasets/coco/rle.h; the
//   ground truth's mask made as COCO.annToRLE makes it); against a crowd, intersection over the
//   detection's area;
// - per area range (all [0, 1e10], small [0, 32²], medium [32², 96²], large [96², 1e10], bounds
//   included), ground truths that are crowd or whose `area` field lies outside the range are
//   ignored; at each IoU threshold .50:.05:.95 a detection matches the best-IoU ground truth not
//   yet matched (crowd ones match any number), preferring non-ignored ones; unmatched detections
//   whose area (Detection::area, as loadRes sets it) lies outside the range are ignored;
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
#include "datasets/coco/rle.h"

namespace mlh::coco {

// One detection: COCO ids, pixels of the original image, as a results JSON holds it.
struct Detection {
  int64_t image_id = 0;
  int64_t category_id = 0;
  double x = 0, y = 0, w = 0, h = 0;  // its box
  double score = 0;
  RunLengthMask segmentation;  // its mask, on the whole image; no counts: none
  double area = -1;            // for the area ranges, as loadRes sets it (the box's w*h for box
                               // results, the mask's area for mask results); below 0: w*h

  double area_for_ranges() const { return area >= 0 ? area : w * h; }
};

// A detection with a box only, as a box detector reports it.
inline Detection box_detection(int64_t image_id, int64_t category_id, double x, double y, double w, double h,
                               double score) {
  Detection detection;
  detection.image_id = image_id;
  detection.category_id = category_id;
  detection.x = x, detection.y = y, detection.w = w, detection.h = h;
  detection.score = score;
  return detection;
}

// COCOeval's iouType.
enum class IouType { kBox, kSegmentation };
const char* iou_type_name(IouType type);  // "bbox", "segm"

// COCOeval.stats, in its order; -1 where pycocotools gives -1 (no ground truth to measure).
struct CocoEvalStats {
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
// COCOeval does; empty: every image of ground_truth) and all of its categories, measuring overlap as
// `iou_type` says. Detections on other images of ground_truth, and detections of categories
// ground_truth does not declare, never count (COCOeval filters them out). Throws UserError, naming
// ground_truth.path, for a detection or an image id that is not an image of ground_truth
// (pycocotools: "Results do not correspond to current coco set"), and for a detection without a mask
// under kSegmentation. Images that read_annotations dropped for having no annotations are not images
// of ground_truth, so read with keep_images_without_annotations to score detections there. Unlike
// pycocotools' loadRes, an empty detection list is fine (every AP and AR is then 0 or -1). Under
// kSegmentation each ground truth's mask is made once; masks of a size other than their image's
// never match (pycocotools' IoU of -1). Work is spread over `num_threads` threads (categories, and
// the ground truths' masks); the numbers are the same for any count.
CocoEvalStats evaluate_detections(const Annotations& ground_truth, const std::vector<Detection>& detections,
                                  IouType iou_type, const std::vector<int64_t>& image_ids = {}, int num_threads = 1);

// The 12 lines COCOeval.summarize() prints, each ending in '\n', e.g.
// " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.231".
std::string format_coco_eval_stats(const CocoEvalStats& stats);

}  // namespace mlh::coco
