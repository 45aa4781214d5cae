// COCO mask evaluation (iouType 'segm') against pycocotools' numbers, and box evaluation of the same
// mask results as loadRes reads them (goldens made by tools/make_coco_mask_goldens.py).
#include <gtest/gtest.h>

#include <algorithm>
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

const fs::path kGoldens = fs::path(test_paths::source_dir()) / "tests/datasets/data/coco_mask/segm_eval";

Annotations read_case_annotations(const std::string& name) { return read_golden_annotations(kGoldens, name); }

std::vector<Detection> read_case_detections(const std::string& name) { return read_golden_detections(kGoldens, name); }

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kGoldens)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class CocoSegmEvalGolden : public ::testing::TestWithParam<std::string> {};

// All 12 numbers within 1e-9 of pycocotools' (they agree exactly where the arithmetic is the same).
TEST_P(CocoSegmEvalGolden, MatchesPycocotoolsForMasksAndTheirBoxes) {
  const std::string name = GetParam();
  const Annotations ground_truth = read_case_annotations(name);
  const std::vector<Detection> detections = read_case_detections(name);
  const nlohmann::json expected = nlohmann::json::parse(contents_of(kGoldens / name / "expected_stats.json"));
  for (const IouType iou_type : {IouType::kSegmentation, IouType::kBox}) {
    const nlohmann::json& evaluations = expected.at(iou_type_name(iou_type));
    ASSERT_FALSE(evaluations.empty()) << name;
    for (const nlohmann::json& evaluation : evaluations) {
      const auto image_ids = evaluation.at("image_ids").get<std::vector<int64_t>>();
      const auto want = evaluation.at("stats").get<std::vector<double>>();
      const std::array<double, 12> got = evaluate_detections(ground_truth, detections, iou_type, image_ids).as_array();
      for (size_t i = 0; i < 12; ++i) {
        EXPECT_NEAR(got[i], want[i], 1e-9) << name << " " << iou_type_name(iou_type) << " stat " << i << " on "
                                           << image_ids.size() << " image ids";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CocoSegmEvalGolden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(CocoSegmEval, SummaryPrintsAsPycocotools) {
  const CocoEvalStats stats =
      evaluate_detections(read_case_annotations("hand"), read_case_detections("hand"), IouType::kSegmentation);
  EXPECT_EQ(format_coco_eval_stats(stats), contents_of(kGoldens / "hand" / "summary_segm.txt"));
}

TEST(CocoSegmEval, MaskResultsWithoutBoxTakeAreaAndBoxFromTheMask) {
  const std::vector<Detection> detections = read_case_detections("hand");
  ASSERT_FALSE(detections.empty());
  for (const Detection& d : detections) {
    EXPECT_EQ(d.area, static_cast<double>(mask_area(d.segmentation)));
    EXPECT_EQ((std::array<double, 4>{d.x, d.y, d.w, d.h}), mask_box(d.segmentation));
  }
  // With a box in the first entry, loadRes reads box results: the area is the box's.
  for (const Detection& d : read_case_detections("with_bbox")) EXPECT_EQ(d.area, d.w * d.h);
}

TEST(CocoSegmEval, WrittenMaskResultsScoreTheSame) {
  const Annotations ground_truth = read_case_annotations("random_1");
  const std::vector<Detection> detections = read_case_detections("random_1");
  const fs::path path = fresh_test_folder("coco_segm_eval") / "detections.json";
  write_detections_json(path.string(), detections);
  const std::vector<Detection> back = read_detections_json(path.string());
  ASSERT_EQ(back.size(), detections.size());
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i].segmentation, detections[i].segmentation) << i;
  EXPECT_EQ(evaluate_detections(ground_truth, back, IouType::kSegmentation).as_array(),
            evaluate_detections(ground_truth, detections, IouType::kSegmentation).as_array());
}

TEST(CocoSegmEval, BoxResultsCannotBeScoredAsMasks) {
  const Annotations ground_truth = read_case_annotations("hand");
  std::vector<Detection> detections = {box_detection(ground_truth.images[0].id, ground_truth.categories[0].id, 1, 1, 5, 5, 0.5)};
  const std::string message = user_error_of([&] { evaluate_detections(ground_truth, detections, IouType::kSegmentation); });
  EXPECT_NE(message.find("detection 0"), std::string::npos) << message;
  EXPECT_NE(message.find("no segmentation"), std::string::npos) << message;
}

// Each object's own mask as its detection: everything matches, on the images whose objects all have
// pixels (an object whose polygon covers no pixel centre can match nothing, in pycocotools too).
TEST(CocoSegmEval, PerfectMasksScoreOne) {
  const Annotations ground_truth = read_case_annotations("random_2");
  std::vector<Detection> detections;
  std::vector<int64_t> image_ids;
  for (const Image& image : ground_truth.images) {
    bool all_have_pixels = true;
    for (int32_t a : image.annotations) {
      const Annotation& truth = ground_truth.annotations[static_cast<size_t>(a)];
      Detection d = box_detection(truth.image_id, truth.category_id, 0, 0, 0, 0, 0.5);
      d.segmentation = annotation_mask(truth.segmentation, image.height, image.width);
      d.area = truth.area;  // the ground truth's area field, so both fall in the same area range
      all_have_pixels = all_have_pixels && mask_area(d.segmentation) > 0;
      if (!truth.iscrowd) detections.push_back(d);
    }
    if (all_have_pixels) image_ids.push_back(image.id);
  }
  ASSERT_GE(image_ids.size(), 40u);
  const CocoEvalStats stats = evaluate_detections(ground_truth, detections, IouType::kSegmentation, image_ids);
  EXPECT_NEAR(stats.ap, 1.0, 1e-12);
  EXPECT_NEAR(stats.ar100, 1.0, 1e-12);
}

TEST(CocoSegmEval, MalformedMaskResultsAreUserErrorsNamingTheField) {
  const fs::path folder = fresh_test_folder("coco_segm_eval");
  const auto message_for = [&](const std::string& text) {
    const fs::path path = folder / "bad.json";
    std::ofstream(path) << text;
    return user_error_of([&] { read_detections_json(path.string()); });
  };
  const std::string first = R"([{"image_id": 1, "category_id": 2, "segmentation": {"size": [2, 3], "counts": "06"}, "score": 0.5}, )";
  const struct {
    std::string text, expected;
  } cases[] = {
      {R"([{"image_id": 1, "category_id": 2, "score": 0.5}])", "[0].bbox is missing, and so is .segmentation"},
      {first + R"({"image_id": 1, "category_id": 2, "score": 0.5}])", "[1].segmentation is missing"},
      {first + R"({"image_id": 1, "category_id": 2, "segmentation": [[1, 2, 3, 4, 5, 6]], "score": 0.5}])",
       "[1].segmentation [[1,2,3,4,5,6]] is not an RLE object"},
      {first + R"({"image_id": 1, "category_id": 2, "segmentation": {"size": [2], "counts": "06"}, "score": 0.5}])",
       "[1].segmentation.size is [2], not [height, width]"},
      {first + R"({"image_id": 1, "category_id": 2, "segmentation": {"size": [2, 3], "counts": [0, 6]}, "score": 0.5}])",
       "[1].segmentation.counts [0,6] is not a compressed RLE string"},
      {first + R"({"image_id": 1, "category_id": 2, "segmentation": {"size": [2, 3], "counts": "0~"}, "score": 0.5}])",
       "[1].segmentation.counts: compressed RLE character '~'"},
      {first + R"({"image_id": 1, "category_id": 2, "segmentation": {"size": [2, 3], "counts": "05"}, "score": 0.5}])",
       "[1].segmentation.counts: runs cover 5 pixels, not height x width = 6"},
      {R"([{"image_id": 1, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}, )" +
           std::string(R"({"image_id": 1, "category_id": 2, "segmentation": {"size": [2, 3], "counts": "06"}, "score": 0.5}])"),
       "[1].bbox is missing (the first entry is a box result"},
  };
  for (const auto& c : cases) {
    const std::string message = message_for(c.text);
    EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.text << " -> " << message;
  }
}

}  // namespace
}  // namespace mlh::coco
