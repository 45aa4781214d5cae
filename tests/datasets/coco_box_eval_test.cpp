// COCO box evaluation against pycocotools' numbers (goldens made by tools/make_coco_eval_goldens.py)
// and the detection results file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "datasets/coco/annotations.h"
#include "datasets/coco/coco_eval.h"
#include "datasets/coco/detections_json.h"
#include "tests/datasets/coco_golden_cases.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"
#include "tests/user_error_of.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;
using testing_files::contents_of;
using testing_files::fresh_test_folder;

const fs::path kGoldens = fs::path(test_paths::source_dir()) / "tests/datasets/data/coco_eval";

CocoEvalStats evaluate_boxes(const Annotations& ground_truth, const std::vector<Detection>& detections,
                             const std::vector<int64_t>& image_ids = {}) {
  return evaluate_detections(ground_truth, detections, IouType::kBox, image_ids);
}

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(contents_of(path)); }

Annotations read_case_annotations(const std::string& name) { return read_golden_annotations(kGoldens, name); }

std::vector<Detection> read_case_detections(const std::string& name) { return read_golden_detections(kGoldens, name); }

TEST(CocoBoxEval, ThresholdsAreNumpysLinspaceBitForBit) {
  const nlohmann::json thresholds = read_json(kGoldens / "thresholds.json");
  const auto& iou = thresholds.at("iou_thresholds");
  const auto& recall = thresholds.at("recall_thresholds");
  ASSERT_EQ(iou.size(), coco_iou_thresholds().size());
  ASSERT_EQ(recall.size(), coco_recall_thresholds().size());
  for (size_t i = 0; i < iou.size(); ++i) EXPECT_EQ(iou[i].get<double>(), coco_iou_thresholds()[i]) << i;
  for (size_t i = 0; i < recall.size(); ++i) EXPECT_EQ(recall[i].get<double>(), coco_recall_thresholds()[i]) << i;
}

class CocoBoxEvalGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CocoBoxEvalGolden, MatchesPycocotools) {
  const std::string name = GetParam();
  const Annotations ground_truth = read_case_annotations(name);
  const std::vector<Detection> detections = read_case_detections(name);
  const nlohmann::json evaluations = read_json(kGoldens / name / "expected_stats.json");
  ASSERT_FALSE(evaluations.empty());
  double largest_difference = 0;
  for (const nlohmann::json& evaluation : evaluations) {
    const auto image_ids = evaluation.at("image_ids").get<std::vector<int64_t>>();
    const auto expected = evaluation.at("stats").get<std::vector<double>>();
    ASSERT_EQ(expected.size(), 12u);
    const std::array<double, 12> stats = evaluate_boxes(ground_truth, detections, image_ids).as_array();
    for (size_t i = 0; i < 12; ++i) {
      EXPECT_NEAR(stats[i], expected[i], 1e-12) << name << " stats[" << i << "], " << image_ids.size() << " image ids";
      largest_difference = std::max(largest_difference, std::abs(stats[i] - expected[i]));
    }
  }
  std::cout << name << ": largest difference from pycocotools " << largest_difference << "\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, CocoBoxEvalGolden,
                         ::testing::Values("perfect", "crowd", "no_gt_image", "no_detection_image", "duplicates",
                                           "area_ranges", "max_dets", "score_ties", "category_without_gt",
                                           "iou_edges", "random"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(CocoBoxEval, FormatsAsSummarizePrints) {
  const CocoEvalStats stats = evaluate_boxes(read_case_annotations("random"), read_case_detections("random"));
  EXPECT_EQ(format_coco_eval_stats(stats), contents_of(kGoldens / "random" / "summary.txt"));
}

TEST(CocoBoxEval, FormatsMinusOne) {
  CocoEvalStats stats;
  stats.ap = 0.23456;
  const std::string text = format_coco_eval_stats(stats);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.235");
  EXPECT_NE(text.find(" Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = -1.000\n"),
            std::string::npos);
}

TEST(CocoBoxEval, NoDetectionsScoreZeroWhereThereAreObjects) {
  const CocoEvalStats stats = evaluate_boxes(read_case_annotations("area_ranges"), {});
  for (double value : stats.as_array()) EXPECT_EQ(value, 0.0);
  // crowd's ground truth has no large objects: -1 there, as pycocotools gives.
  const CocoEvalStats crowd = evaluate_boxes(read_case_annotations("crowd"), {});
  EXPECT_EQ(crowd.ap, 0.0);
  EXPECT_EQ(crowd.ap_large, -1.0);
  EXPECT_EQ(crowd.ar_large, -1.0);
}

TEST(CocoBoxEval, DetectionOnAnImageNotInTheGroundTruthIsAUserError) {
  const Annotations ground_truth = read_case_annotations("perfect");
  std::vector<Detection> detections = read_case_detections("perfect");
  detections.push_back(box_detection(999, 1, 0, 0, 10, 10, 0.5));
  const std::string message = user_error_of([&] { evaluate_boxes(ground_truth, detections); });
  EXPECT_NE(message.find("perfect/instances.json"), std::string::npos) << message;
  EXPECT_NE(message.find("image_id 999"), std::string::npos) << message;
}

TEST(CocoBoxEval, DetectionOnAnImageDroppedForHavingNoObjectsIsAUserError) {
  // Read the default way, no_gt_image's image 2 (no annotations) is dropped, so its detections
  // have no image to be scored on.
  const Annotations ground_truth = read_annotations((kGoldens / "no_gt_image" / "instances.json").string());
  const std::string message = user_error_of([&] { evaluate_boxes(ground_truth, read_case_detections("no_gt_image")); });
  EXPECT_NE(message.find("image_id 2"), std::string::npos) << message;
}

TEST(CocoBoxEval, ImageIdToEvaluateMustBeInTheGroundTruth) {
  const Annotations ground_truth = read_case_annotations("perfect");
  const std::string message =
      user_error_of([&] { evaluate_boxes(ground_truth, read_case_detections("perfect"), {1, 42}); });
  EXPECT_NE(message.find("image id 42"), std::string::npos) << message;
}

TEST(CocoBoxEval, ImageIdsAreDeduplicatedAndDetectionsElsewhereIgnored) {
  const Annotations ground_truth = read_case_annotations("random");
  const std::vector<Detection> detections = read_case_detections("random");
  const auto subset = evaluate_boxes(ground_truth, detections, {9, 3, 9, 6}).as_array();
  const auto sorted = evaluate_boxes(ground_truth, detections, {3, 6, 9}).as_array();
  std::vector<Detection> on_subset;
  for (const Detection& d : detections) {
    if (d.image_id == 3 || d.image_id == 6 || d.image_id == 9) on_subset.push_back(d);
  }
  const auto only_those = evaluate_boxes(ground_truth, on_subset, {3, 6, 9}).as_array();
  EXPECT_EQ(subset, sorted);
  EXPECT_EQ(subset, only_those);
}

// Synthetic ground truth held in memory: `num_images` images of 640x480, `objects_per_image`
// objects each, categories 1..num_categories.
Annotations synthetic_ground_truth(int num_images, int objects_per_image, int num_categories) {
  Annotations gt;
  gt.path = "synthetic";
  for (int c = 1; c <= num_categories; ++c) {
    gt.categories.push_back({c, "c" + std::to_string(c), c});
    gt.label_of_category[c] = c;
  }
  for (int i = 0; i < num_images; ++i) {
    Image image;
    image.id = 1000 + i;
    image.width = 640;
    image.height = 480;
    for (int o = 0; o < objects_per_image; ++o) {
      Annotation a;
      a.id = static_cast<int64_t>(gt.annotations.size()) + 1;
      a.image_id = image.id;
      a.category_id = 1 + (i * 7 + o) % num_categories;
      a.label = a.category_id;
      a.x = 10.0 * o + (i % 13);
      a.y = 5.0 * o + (i % 7);
      a.w = 8.0 + 9.0 * o;
      a.h = 6.0 + 11.0 * o;
      a.area = a.w * a.h;
      image.annotations.push_back(static_cast<int32_t>(gt.annotations.size()));
      gt.annotations.push_back(a);
    }
    gt.image_index[image.id] = static_cast<int32_t>(gt.images.size());
    gt.images.push_back(image);
  }
  return gt;
}

// COCO val2017's size: every object found exactly (one per category and image), scored above 80
// false positives per image, so each category's precision is 1 up to full recall.
TEST(CocoBoxEval, FiveThousandImagesOfExactDetectionsScoreOne) {
  const Annotations gt = synthetic_ground_truth(5000, 20, 80);
  std::vector<Detection> detections;
  detections.reserve(5000 * 100);
  for (const Annotation& a : gt.annotations) {
    detections.push_back(box_detection(a.image_id, a.category_id, a.x, a.y, a.w, a.h, 0.5 + 0.4 * (a.id % 97) / 97.0));
  }
  for (const Image& image : gt.images) {
    for (int f = 0; f < 80; ++f) {
      detections.push_back(box_detection(image.id, 1 + (f * 3 + image.id) % 80, 300.0 + f, 300.0, 20.0, 20.0, 0.01 * (f % 40)));
    }
  }
  const CocoEvalStats stats = evaluate_boxes(gt, detections);
  // Precision is tp / (tp + fp + machine epsilon), a hair under 1.
  for (double value : stats.as_array()) EXPECT_NEAR(value, 1.0, 1e-12);
}

TEST(CocoDetectionsJson, RoundTripsEveryDoubleExactly) {
  const fs::path path = fresh_test_folder("coco_detections_json") / "detections.json";
  const std::vector<Detection> detections = {
      box_detection(397133, 1, 0.1 + 0.2, 1.0 / 3.0, 123456.789012345678, 1e-7, 0.123456789012345),
      box_detection(1, 90, -0.0, 5e-324, 1e300, 2.0, 1.0),
      box_detection(-5, 0, 0, 0, 0, 0, 0),
  };
  write_detections_json(path.string(), detections);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  const std::vector<Detection> back = read_detections_json(path.string());
  ASSERT_EQ(back.size(), detections.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].image_id, detections[i].image_id);
    EXPECT_EQ(back[i].category_id, detections[i].category_id);
    EXPECT_EQ(back[i].x, detections[i].x);
    EXPECT_EQ(back[i].y, detections[i].y);
    EXPECT_EQ(back[i].w, detections[i].w);
    EXPECT_EQ(back[i].h, detections[i].h);
    EXPECT_EQ(back[i].score, detections[i].score);
  }
  write_detections_json(path.string(), {});  // replaces the file
  EXPECT_TRUE(read_detections_json(path.string()).empty());
}

TEST(CocoDetectionsJson, WrittenGoldenDetectionsScoreTheSame) {
  const Annotations gt = read_case_annotations("random");
  const std::vector<Detection> detections = read_case_detections("random");
  const fs::path path = fresh_test_folder("coco_detections_json") / "detections.json";
  write_detections_json(path.string(), detections);
  EXPECT_EQ(evaluate_boxes(gt, read_detections_json(path.string())).as_array(),
            evaluate_boxes(gt, detections).as_array());
}

TEST(CocoDetectionsJson, NonFiniteValueIsAUserError) {
  const fs::path path = fresh_test_folder("coco_detections_json") / "detections.json";
  const std::string message = user_error_of(
      [&] { write_detections_json(path.string(), {box_detection(1, 1, 0, 0, 1, 1, 0.5), box_detection(1, 1, 0, 0, 1, 1, std::nan(""))}); });
  EXPECT_NE(message.find("detection 1"), std::string::npos) << message;
  EXPECT_NE(message.find("score"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(path));
}

TEST(CocoDetectionsJson, MalformedFilesAreUserErrorsNamingFileAndField) {
  const fs::path folder = fresh_test_folder("coco_detections_json");
  const auto message_for = [&](const std::string& text) {
    const fs::path path = folder / "bad.json";
    std::ofstream(path) << text;
    return user_error_of([&] { read_detections_json(path.string()); });
  };
  const std::string entry_start = R"([{"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}, )";
  const struct {
    std::string text, expected;
  } cases[] = {
      {"[{", "not valid JSON"},
      {"[1e999]", "not valid JSON: [json.exception.out_of_range.406] number overflow"},  // fuzz_coco_json
      {R"({"image_id": 1})", "not a list"},
      {"[3]", "[0] is not an object"},
      {entry_start + R"({"category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}])", "[1].image_id is missing"},
      {entry_start + R"({"image_id": 1.5, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}])",
       "[1].image_id is not an integer"},
      {entry_start + R"({"image_id": 1, "category_id": "2", "bbox": [1, 2, 3, 4], "score": 0.5}])",
       "[1].category_id is not an integer"},
      {entry_start + R"({"image_id": 9223372036854775808, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}])",
       "[1].image_id is larger than 2^63-1"},
      {entry_start + R"({"image_id": 1, "category_id": 2, "score": 0.5}])", "[1].bbox is missing"},
      {entry_start + R"({"image_id": 1, "category_id": 2, "bbox": [1, 2, 3], "score": 0.5}])",
       "[1].bbox is not a list of 4 numbers"},
      {entry_start + R"({"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, null], "score": 0.5}])",
       "[1].bbox is not a list of 4 numbers"},
      {entry_start + R"({"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4]}])", "[1].score is missing"},
      {entry_start + R"({"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4], "score": "high"}])",
       "[1].score is not a number"},
  };
  for (const auto& c : cases) {
    const std::string message = message_for(c.text);
    EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.text << " -> " << message;
  }
  const std::string missing = user_error_of([&] { read_detections_json((folder / "none.json").string()); });
  EXPECT_NE(missing.find("none.json: no such file"), std::string::npos) << missing;
}

}  // namespace
}  // namespace mlh::coco
