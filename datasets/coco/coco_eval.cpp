// Mirrors pycocotools 2.0 cocoeval.py (evaluate, evaluateImg, accumulate, summarize); the overlaps,
// maskApi.c's bbIou and rleIou, live in rle.cpp. Work is done one category at a time: ground truths
// and detections are bucketed by (category, image) once, each bucket's IoU matrix is computed once
// and reused for the four area ranges, and the category's detections are sorted by score once for
// the three maxDets (each image's first maxDet detections are a subsequence of the stable order of
// all of them).
#include "datasets/coco/coco_eval.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

#include "base/user_error.h"

namespace mlh::coco {
namespace {

constexpr int kNumIouThresholds = 10;
constexpr int kNumRecallThresholds = 101;
constexpr int kNumAreaRanges = 4;  // all, small, medium, large
constexpr int kNumMaxDets = 3;
constexpr int kMaxDets[kNumMaxDets] = {1, 10, 100};
constexpr int kMaxDetectionsPerImage = 100;
constexpr int kFlagsPerDetection = kNumAreaRanges * kNumIouThresholds;
constexpr double kSpacingOfOne = std::numeric_limits<double>::epsilon();  // np.spacing(1)

struct AreaRange {
  double min_area, max_area;
};
constexpr AreaRange kAreaRanges[kNumAreaRanges] = {{0.0, 1e10}, {0.0, 1024.0}, {1024.0, 9216.0}, {9216.0, 1e10}};

bool outside(const AreaRange& range, double area) { return area < range.min_area || area > range.max_area; }

// A detection's outcome at one area range and IoU threshold (pycocotools' dtMatches/dtIgnore).
enum Outcome : uint8_t { kFalsePositive = 0, kTruePositive = 1, kIgnored = 2 };

// numpy's ascending order of float sort keys: NaN last.
bool key_before(double a, double b) { return a < b || (!std::isnan(a) && std::isnan(b)); }

// np.linspace(start, stop, N): i * ((stop - start) / (N - 1)) + start, the last one stop itself.
template <size_t N>
std::array<double, N> numpy_linspace(double start, double stop) {
  std::array<double, N> values{};
  const double step = (stop - start) / static_cast<double>(N - 1);
  for (size_t i = 0; i < N; ++i) values[i] = static_cast<double>(i) * step + start;
  values[N - 1] = stop;
  return values;
}

// Calls work(index, worker) for every index in [0, count) on `num_threads` threads (worker in
// [0, num_threads)), indices handed out in turn; the first exception thrown is rethrown here.
template <typename Work>
void for_each_in_parallel(int64_t count, int num_threads, const Work& work) {
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto worker = [&](int id) {
    try {
      for (int64_t i = next++; i < count; i = next++) work(i, id);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> helpers;
  for (int id = 1; id < num_threads && id < count; ++id) helpers.emplace_back(worker, id);
  worker(0);
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

// Items bucketed by key, each bucket in input order: items[offsets[key] .. offsets[key + 1]).
struct Buckets {
  std::vector<int32_t> offsets;
  std::vector<int32_t> items;
};

Buckets bucket_by_key(const std::vector<int64_t>& key_of_item, int64_t num_keys) {
  Buckets buckets;
  buckets.offsets.assign(static_cast<size_t>(num_keys) + 1, 0);
  for (int64_t key : key_of_item) {
    if (key >= 0) ++buckets.offsets[static_cast<size_t>(key) + 1];
  }
  for (size_t k = 1; k < buckets.offsets.size(); ++k) buckets.offsets[k] += buckets.offsets[k - 1];
  buckets.items.resize(static_cast<size_t>(buckets.offsets.back()));
  std::vector<int32_t> next(buckets.offsets.begin(), buckets.offsets.end() - 1);
  for (size_t item = 0; item < key_of_item.size(); ++item) {
    const int64_t key = key_of_item[item];
    if (key >= 0) buckets.items[static_cast<size_t>(next[static_cast<size_t>(key)]++)] = static_cast<int32_t>(item);
  }
  return buckets;
}

// Sums of the precision and recall entries that are not -1, for the summary's means.
struct Sums {
  double precision_sum[kNumAreaRanges][kNumMaxDets][kNumIouThresholds] = {};
  int64_t precision_count[kNumAreaRanges][kNumMaxDets][kNumIouThresholds] = {};
  double recall_sum[kNumAreaRanges][kNumMaxDets][kNumIouThresholds] = {};
  int64_t recall_count[kNumAreaRanges][kNumMaxDets][kNumIouThresholds] = {};

  // Adds another's entries, as accumulating them here one by one after these would.
  void add(const Sums& other) {
    for (int a = 0; a < kNumAreaRanges; ++a) {
      for (int m = 0; m < kNumMaxDets; ++m) {
        for (int t = 0; t < kNumIouThresholds; ++t) {
          precision_sum[a][m][t] += other.precision_sum[a][m][t];
          precision_count[a][m][t] += other.precision_count[a][m][t];
          recall_sum[a][m][t] += other.recall_sum[a][m][t];
          recall_count[a][m][t] += other.recall_count[a][m][t];
        }
      }
    }
  }

  // Mean over the IoU thresholds in [first, last] (np.mean(s[s > -1]), -1 when there are none).
  double mean(bool precision, int area, int max_dets, int first, int last) const {
    double sum = 0;
    int64_t count = 0;
    for (int t = first; t <= last; ++t) {
      sum += precision ? precision_sum[area][max_dets][t] : recall_sum[area][max_dets][t];
      count += precision ? precision_count[area][max_dets][t] : recall_count[area][max_dets][t];
    }
    return count == 0 ? -1.0 : sum / static_cast<double>(count);
  }
};

// Buffers reused across images and categories so the loops do not allocate.
struct Scratch {
  // one (category, image) bucket
  std::vector<int32_t> detections;    // indices into the detection list, sorted by score, cut at 100
  std::vector<double> detection_areas;  // for the area ranges
  std::vector<double> ious;           // [detection][ground truth in bucket order]
  std::vector<int32_t> ground_truth_order;  // non-ignored first, per area range
  std::vector<uint8_t> ground_truth_ignored;  // in ground_truth_order
  std::vector<uint8_t> ground_truth_matched;
  // one category, all images
  std::vector<double> sort_keys;      // -score
  std::vector<int32_t> rank_in_image;
  std::vector<uint8_t> outcomes;      // [detection][area][threshold]
  std::vector<int32_t> score_order;
  std::vector<int32_t> kept;          // score_order less those beyond maxDet in their image
  std::vector<uint8_t> kept_outcomes; // [area][threshold][kept]
  std::vector<double> precision, recall;
  int64_t non_ignored_ground_truths[kNumAreaRanges] = {};  // of the current category
};

class Evaluator {
 public:
  Evaluator(const Annotations& ground_truth, const std::vector<Detection>& detections, IouType iou_type,
            const std::vector<int64_t>& image_ids, int num_threads)
      : gt_(ground_truth), detections_(detections), iou_type_(iou_type), num_threads_(std::max(1, num_threads)) {
    iou_thresholds_ = coco_iou_thresholds();
    select_images(image_ids);
    bucket();
    if (iou_type_ == IouType::kSegmentation) make_masks();
  }

  // Categories are independent: workers take them in turn, each category's sums are kept apart and
  // added in category order, so the numbers do not depend on the thread count.
  CocoEvalStats run() {
    const int64_t num_categories = gt_.num_classes();
    std::vector<Sums> category_sums(static_cast<size_t>(num_categories));
    std::vector<Scratch> scratch(static_cast<size_t>(num_threads_));
    for_each_in_parallel(num_categories, num_threads_, [&](int64_t category, int worker) {
      evaluate_category(category, scratch[static_cast<size_t>(worker)], category_sums[static_cast<size_t>(category)]);
    });
    for (const Sums& sums : category_sums) sums_.add(sums);
    return summarize();
  }
 private:
  void select_images(const std::vector<int64_t>& image_ids) {
    std::vector<int64_t> ids = image_ids;
    if (ids.empty()) {
      for (const Image& image : gt_.images) ids.push_back(image.id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    position_of_image_.assign(gt_.images.size(), -1);
    for (int64_t id : ids) {
      const auto found = gt_.image_index.find(id);
      if (found == gt_.image_index.end()) {
        throw UserError(gt_.path + ": image id " + std::to_string(id) +
                        " to evaluate is not an image of this ground truth");
      }
      position_of_image_[static_cast<size_t>(found->second)] = static_cast<int32_t>(selected_images_.size());
      selected_images_.push_back(found->second);
    }
  }

  int64_t category_index(int64_t category_id) const {
    const auto found = gt_.label_of_category.find(category_id);
    return found == gt_.label_of_category.end() ? -1 : found->second - 1;
  }

  void bucket() {
    const int64_t num_images = static_cast<int64_t>(selected_images_.size());
    const int64_t num_keys = gt_.num_classes() * num_images;
    std::vector<int64_t> keys(gt_.annotations.size(), -1);
    for (int64_t position = 0; position < num_images; ++position) {
      for (int32_t a : gt_.images[static_cast<size_t>(selected_images_[static_cast<size_t>(position)])].annotations) {
        const int64_t category = category_index(gt_.annotations[static_cast<size_t>(a)].category_id);
        MLH_ASSERT(category >= 0);
        keys[static_cast<size_t>(a)] = category * num_images + position;
      }
    }
    ground_truth_ = bucket_by_key(keys, num_keys);

    keys.assign(detections_.size(), -1);
    for (size_t d = 0; d < detections_.size(); ++d) {
      const Detection& detection = detections_[d];
      const auto image = gt_.image_index.find(detection.image_id);
      if (image == gt_.image_index.end()) {
        throw UserError(gt_.path + ": detection " + std::to_string(d) + " has image_id " +
                        std::to_string(detection.image_id) +
                        ", not an image of this ground truth (results do not correspond to this COCO set)");
      }
      const int32_t position = position_of_image_[static_cast<size_t>(image->second)];
      const int64_t category = category_index(detection.category_id);
      if (position >= 0 && category >= 0) keys[d] = category * num_images + position;
    }
    detections_by_key_ = bucket_by_key(keys, num_keys);
  }

  // COCOeval._prepare's _toMask: each ground truth's mask (annToRLE) and each mask's box, once.
  void make_masks() {
    truth_boxes_.assign(gt_.annotations.size(), {0, 0, 0, 0});
    truth_masks_.resize(gt_.annotations.size());
    for_each_in_parallel(static_cast<int64_t>(selected_images_.size()), num_threads_, [this](int64_t position, int) {
      const Image& image = gt_.images[static_cast<size_t>(selected_images_[static_cast<size_t>(position)])];
      for (int32_t a : image.annotations) {
        RunLengthMask& mask = truth_masks_[static_cast<size_t>(a)];
        mask = annotation_mask(gt_.annotations[static_cast<size_t>(a)].segmentation, image.height, image.width);
        truth_boxes_[static_cast<size_t>(a)] = mask_box(mask);
      }
    });
    for (int32_t d : detections_by_key_.items) {
      const Detection& detection = detections_[static_cast<size_t>(d)];
      if (detection.segmentation.counts.empty()) {
        throw UserError("detection " + std::to_string(d) + " (image_id " + std::to_string(detection.image_id) +
                        ") has no segmentation; segm evaluation needs a mask for every detection");
      }
    }
    detection_boxes_.assign(detections_.size(), {0, 0, 0, 0});
    const int64_t num_keyed = static_cast<int64_t>(detections_by_key_.items.size());
    for_each_in_parallel(num_keyed, num_threads_, [this](int64_t i, int) {
      const int32_t d = detections_by_key_.items[static_cast<size_t>(i)];
      detection_boxes_[static_cast<size_t>(d)] = mask_box(detections_[static_cast<size_t>(d)].segmentation);
    });
  }

  double overlap(int32_t detection_index, int32_t truth_index) const {
    const Detection& detection = detections_[static_cast<size_t>(detection_index)];
    const Annotation& truth = gt_.annotations[static_cast<size_t>(truth_index)];
    if (iou_type_ == IouType::kBox) {
      return box_iou({detection.x, detection.y, detection.w, detection.h}, {truth.x, truth.y, truth.w, truth.h},
                     truth.iscrowd);
    }
    return mask_iou(detection.segmentation, detection_boxes_[static_cast<size_t>(detection_index)],
                    truth_masks_[static_cast<size_t>(truth_index)], truth_boxes_[static_cast<size_t>(truth_index)],
                    truth.iscrowd);
  }

  // evaluateImg for one image of the category at all area ranges; appends the image's detections
  // (score order, at most 100) and their outcomes to the category's lists.
  void evaluate_image(int64_t key, Scratch& s) const {
    const size_t bucket = static_cast<size_t>(key);
    const int32_t* gts = ground_truth_.items.data() + ground_truth_.offsets[bucket];
    const int num_gts = ground_truth_.offsets[bucket + 1] - ground_truth_.offsets[bucket];
    const int32_t* dts = detections_by_key_.items.data() + detections_by_key_.offsets[bucket];
    const int num_dts_all = detections_by_key_.offsets[bucket + 1] - detections_by_key_.offsets[bucket];
    if (num_gts == 0 && num_dts_all == 0) return;

    s.detections.assign(dts, dts + num_dts_all);
    std::stable_sort(s.detections.begin(), s.detections.end(), [this](int32_t a, int32_t b) {
      return key_before(-detections_[static_cast<size_t>(a)].score, -detections_[static_cast<size_t>(b)].score);
    });
    const int num_dts = std::min(num_dts_all, kMaxDetectionsPerImage);
    s.detections.resize(static_cast<size_t>(num_dts));
    s.detection_areas.resize(static_cast<size_t>(num_dts));
    for (int d = 0; d < num_dts; ++d) {
      s.detection_areas[static_cast<size_t>(d)] =
          detections_[static_cast<size_t>(s.detections[static_cast<size_t>(d)])].area_for_ranges();
    }
    s.ious.resize(static_cast<size_t>(num_dts) * static_cast<size_t>(num_gts));
    for (int g = 0; g < num_gts; ++g) {
      for (int d = 0; d < num_dts; ++d) {
        s.ious[static_cast<size_t>(d) * num_gts + g] = overlap(s.detections[static_cast<size_t>(d)], gts[g]);
      }
    }

    const size_t first_outcome = s.outcomes.size();
    s.outcomes.resize(first_outcome + static_cast<size_t>(num_dts) * kFlagsPerDetection);
    for (int d = 0; d < num_dts; ++d) {
      s.sort_keys.push_back(-detections_[static_cast<size_t>(s.detections[static_cast<size_t>(d)])].score);
      s.rank_in_image.push_back(d);
    }

    for (int area = 0; area < kNumAreaRanges; ++area) {
      const AreaRange& range = kAreaRanges[area];
      // Ground truths in pycocotools' order: not ignored first, each group in file order.
      s.ground_truth_order.clear();
      s.ground_truth_ignored.clear();
      for (int pass = 0; pass < 2; ++pass) {
        for (int g = 0; g < num_gts; ++g) {
          const Annotation& truth = gt_.annotations[static_cast<size_t>(gts[g])];
          const bool ignored = truth.iscrowd || outside(range, truth.area);
          if (ignored == (pass == 1)) {
            s.ground_truth_order.push_back(g);
            s.ground_truth_ignored.push_back(ignored);
          }
        }
      }
      for (uint8_t ignored : s.ground_truth_ignored) {
        if (!ignored) ++s.non_ignored_ground_truths[area];
      }
      for (int t = 0; t < kNumIouThresholds; ++t) {
        s.ground_truth_matched.assign(static_cast<size_t>(num_gts), 0);
        for (int d = 0; d < num_dts; ++d) {
          double best_iou = std::min(iou_thresholds_[static_cast<size_t>(t)], 1 - 1e-10);
          int match = -1;  // position in ground_truth_order
          for (int j = 0; j < num_gts; ++j) {
            const int g = s.ground_truth_order[static_cast<size_t>(j)];
            const Annotation& truth = gt_.annotations[static_cast<size_t>(gts[g])];
            if (s.ground_truth_matched[static_cast<size_t>(j)] && !truth.iscrowd) continue;
            if (match > -1 && !s.ground_truth_ignored[static_cast<size_t>(match)] &&
                s.ground_truth_ignored[static_cast<size_t>(j)]) {
              break;
            }
            const double iou = s.ious[static_cast<size_t>(d) * num_gts + g];
            if (iou < best_iou) continue;
            best_iou = iou;
            match = j;
          }
          const bool outside_range = outside(range, s.detection_areas[static_cast<size_t>(d)]);
          Outcome outcome = outside_range ? kIgnored : kFalsePositive;
          if (match > -1) {
            s.ground_truth_matched[static_cast<size_t>(match)] = 1;
            // COCOeval records the match as the ground truth's id, so an id of 0 reads as no match.
            const int64_t matched_id =
                gt_.annotations[static_cast<size_t>(gts[s.ground_truth_order[static_cast<size_t>(match)]])].id;
            if (s.ground_truth_ignored[static_cast<size_t>(match)]) {
              outcome = kIgnored;
            } else if (matched_id != 0) {
              outcome = kTruePositive;
            }
          }
          s.outcomes[first_outcome + static_cast<size_t>(d) * kFlagsPerDetection + area * kNumIouThresholds + t] =
              outcome;
        }
      }
    }
  }

  // accumulate for one category: precision at the recall points and final recall per area range,
  // maxDets and threshold, added to the summary sums.
  void evaluate_category(int64_t category, Scratch& s, Sums& sums) const {
    s.sort_keys.clear();
    s.rank_in_image.clear();
    s.outcomes.clear();
    std::fill(std::begin(s.non_ignored_ground_truths), std::end(s.non_ignored_ground_truths), 0);
    const int64_t num_images = static_cast<int64_t>(selected_images_.size());
    for (int64_t position = 0; position < num_images; ++position) evaluate_image(category * num_images + position, s);

    const int64_t num_detections = static_cast<int64_t>(s.sort_keys.size());
    s.score_order.resize(static_cast<size_t>(num_detections));
    std::iota(s.score_order.begin(), s.score_order.end(), 0);
    std::stable_sort(s.score_order.begin(), s.score_order.end(), [&s](int32_t a, int32_t b) {
      return key_before(s.sort_keys[static_cast<size_t>(a)], s.sort_keys[static_cast<size_t>(b)]);
    });
    const std::array<double, kNumRecallThresholds>& recall_thresholds = coco_recall_thresholds();

    for (int m = 0; m < kNumMaxDets; ++m) {
      s.kept.clear();
      for (int32_t d : s.score_order) {
        if (s.rank_in_image[static_cast<size_t>(d)] < kMaxDets[m]) s.kept.push_back(d);
      }
      const size_t num_kept = s.kept.size();
      s.kept_outcomes.resize(num_kept * kFlagsPerDetection);
      for (size_t i = 0; i < num_kept; ++i) {
        const uint8_t* from = s.outcomes.data() + static_cast<size_t>(s.kept[i]) * kFlagsPerDetection;
        for (int f = 0; f < kFlagsPerDetection; ++f) s.kept_outcomes[static_cast<size_t>(f) * num_kept + i] = from[f];
      }
      s.precision.resize(num_kept);
      s.recall.resize(num_kept);
      for (int area = 0; area < kNumAreaRanges; ++area) {
        const int64_t num_positives = s.non_ignored_ground_truths[area];
        if (num_positives == 0) continue;  // -1: left out of the means
        for (int t = 0; t < kNumIouThresholds; ++t) {
          const uint8_t* outcomes =
              s.kept_outcomes.data() + static_cast<size_t>(area * kNumIouThresholds + t) * num_kept;
          double true_positives = 0, false_positives = 0;
          for (size_t i = 0; i < num_kept; ++i) {
            if (outcomes[i] == kTruePositive) true_positives += 1;
            if (outcomes[i] == kFalsePositive) false_positives += 1;
            s.recall[i] = true_positives / static_cast<double>(num_positives);
            s.precision[i] = true_positives / (false_positives + true_positives + kSpacingOfOne);
          }
          sums.recall_sum[area][m][t] += num_kept > 0 ? s.recall[num_kept - 1] : 0.0;
          sums.recall_count[area][m][t] += 1;
          for (size_t i = num_kept; i-- > 1;) {
            if (s.precision[i] > s.precision[i - 1]) s.precision[i - 1] = s.precision[i];
          }
          // np.searchsorted(recall, recall_thresholds, side='left'); points beyond the last
          // detection's recall keep precision 0.
          double precision_sum = 0;
          size_t i = 0;
          for (double threshold : recall_thresholds) {
            while (i < num_kept && s.recall[i] < threshold) ++i;
            if (i == num_kept) break;
            precision_sum += s.precision[i];
          }
          sums.precision_sum[area][m][t] += precision_sum;
          sums.precision_count[area][m][t] += kNumRecallThresholds;
        }
      }
    }
  }

  // The IoU index summarize() finds with np.where(iouThr == p.iouThrs); -1 when none is equal.
  int threshold_index(double iou) const {
    for (int t = 0; t < kNumIouThresholds; ++t) {
      if (iou_thresholds_[static_cast<size_t>(t)] == iou) return t;
    }
    return -1;
  }

  CocoEvalStats summarize() const {
    constexpr int kAll = 0, kSmall = 1, kMedium = 2, kLarge = 3, kLast = kNumIouThresholds - 1;
    constexpr int k1 = 0, k10 = 1, k100 = 2;
    const auto at_threshold = [this](double iou) {
      const int t = threshold_index(iou);
      return t < 0 ? -1.0 : sums_.mean(true, kAll, k100, t, t);
    };
    CocoEvalStats stats;
    stats.ap = sums_.mean(true, kAll, k100, 0, kLast);
    stats.ap50 = at_threshold(0.5);
    stats.ap75 = at_threshold(0.75);
    stats.ap_small = sums_.mean(true, kSmall, k100, 0, kLast);
    stats.ap_medium = sums_.mean(true, kMedium, k100, 0, kLast);
    stats.ap_large = sums_.mean(true, kLarge, k100, 0, kLast);
    stats.ar1 = sums_.mean(false, kAll, k1, 0, kLast);
    stats.ar10 = sums_.mean(false, kAll, k10, 0, kLast);
    stats.ar100 = sums_.mean(false, kAll, k100, 0, kLast);
    stats.ar_small = sums_.mean(false, kSmall, k100, 0, kLast);
    stats.ar_medium = sums_.mean(false, kMedium, k100, 0, kLast);
    stats.ar_large = sums_.mean(false, kLarge, k100, 0, kLast);
    return stats;
  }

  const Annotations& gt_;
  const std::vector<Detection>& detections_;
  IouType iou_type_;
  int num_threads_;
  std::vector<RunLengthMask> truth_masks_;            // kSegmentation: per annotation of a selected image
  std::vector<std::array<double, 4>> truth_boxes_;    // their mask_box()es
  std::vector<std::array<double, 4>> detection_boxes_;  // kSegmentation: per detection, its mask's box
  std::array<double, kNumIouThresholds> iou_thresholds_{};
  std::vector<int32_t> selected_images_;     // indices into gt_.images, ascending image id
  std::vector<int32_t> position_of_image_;   // per gt_.images index: position in selected_images_ or -1
  Buckets ground_truth_;                     // by category * images + position
  Buckets detections_by_key_;
  Sums sums_;
};

}  // namespace

std::array<double, 12> CocoEvalStats::as_array() const {
  return {ap, ap50, ap75, ap_small, ap_medium, ap_large, ar1, ar10, ar100, ar_small, ar_medium, ar_large};
}

const std::array<double, 10>& coco_iou_thresholds() {
  static const std::array<double, 10> thresholds = numpy_linspace<10>(0.5, 0.95);
  return thresholds;
}

const std::array<double, 101>& coco_recall_thresholds() {
  static const std::array<double, 101> thresholds = numpy_linspace<101>(0.0, 1.0);
  return thresholds;
}

const char* iou_type_name(IouType type) { return type == IouType::kBox ? "bbox" : "segm"; }

CocoEvalStats evaluate_detections(const Annotations& ground_truth, const std::vector<Detection>& detections,
                                  IouType iou_type, const std::vector<int64_t>& image_ids, int num_threads) {
  return Evaluator(ground_truth, detections, iou_type, image_ids, num_threads).run();
}

std::string format_coco_eval_stats(const CocoEvalStats& stats) {
  struct Line {
    bool precision;
    const char* iou;
    const char* area;
    int max_dets;
  };
  static constexpr Line kLines[12] = {
      {true, "0.50:0.95", "all", 100},    {true, "0.50", "all", 100},        {true, "0.75", "all", 100},
      {true, "0.50:0.95", "small", 100},  {true, "0.50:0.95", "medium", 100}, {true, "0.50:0.95", "large", 100},
      {false, "0.50:0.95", "all", 1},     {false, "0.50:0.95", "all", 10},    {false, "0.50:0.95", "all", 100},
      {false, "0.50:0.95", "small", 100}, {false, "0.50:0.95", "medium", 100}, {false, "0.50:0.95", "large", 100},
  };
  const std::array<double, 12> values = stats.as_array();
  std::string text;
  char line[128];
  for (int i = 0; i < 12; ++i) {
    const Line& l = kLines[i];
    std::snprintf(line, sizeof line, " %-18s %s @[ IoU=%-9s | area=%6s | maxDets=%3d ] = %0.3f\n",
                  l.precision ? "Average Precision" : "Average Recall", l.precision ? "(AP)" : "(AR)", l.iou, l.area,
                  l.max_dets, values[static_cast<size_t>(i)]);
    text += line;
  }
  return text;
}

}  // namespace mlh::coco
