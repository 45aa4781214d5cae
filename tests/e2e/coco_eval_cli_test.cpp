// `mlharness coco-eval` through the binary: pycocotools' 12 lines for boxes and masks on the committed
// golden sets, --json, and one line naming the file and the field for bad input (exit 2).
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_fixture.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

const std::string kBoxCase = test_paths::source_dir() + "/tests/datasets/data/coco_eval/random/";
const std::string kMaskCase = test_paths::source_dir() + "/tests/datasets/data/coco_mask/segm_eval/hand/";

class CocoEvalCli : public Cli {};

TEST_F(CocoEvalCli, PrintsPycocotoolsSummaryForBoxes) {
  const Outcome outcome = run("coco-eval --annotations " + kBoxCase + "instances.json --detections " + kBoxCase +
                              "detections.json");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(outcome.out, read_file(kBoxCase + "summary.txt"));
  EXPECT_THAT(outcome.err, HasSubstr("coco-eval: bbox, 50 images"));
}

TEST_F(CocoEvalCli, PrintsPycocotoolsSummaryForMasksAndWritesJson) {
  const Outcome outcome = run("coco-eval --annotations " + kMaskCase + "instances.json --detections " + kMaskCase +
                              "detections.json --iou-type segm --json stats.json");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(outcome.out, read_file(kMaskCase + "summary_segm.txt"));
  const nlohmann::json written = nlohmann::json::parse(read_file(dir_ / "stats.json"));
  const nlohmann::json expected = nlohmann::json::parse(read_file(kMaskCase + "expected_stats.json"));
  EXPECT_EQ(written.at("iou_type"), "segm");
  const auto stats = written.at("stats").get<std::vector<double>>();
  const auto want = expected.at("segm").at(0).at("stats").get<std::vector<double>>();
  ASSERT_EQ(stats.size(), 12u);
  for (size_t i = 0; i < 12; ++i) EXPECT_NEAR(stats[i], want[i], 1e-9) << i;
  EXPECT_EQ(written.at("AP").get<double>(), stats[0]);
  EXPECT_FALSE(fs::exists(dir_ / "stats.json.tmp"));
}

TEST_F(CocoEvalCli, BadInputIsOneLineNamingFileAndField) {
  std::ofstream(dir_ / "bad_detections.json")
      << R"([{"image_id": 1, "category_id": 1, "segmentation": {"size": [4, 4], "counts": 16}, "score": 0.5}])";
  std::ofstream(dir_ / "bad_annotations.json") << R"({"images": [{"id": 1}], "annotations": [], "categories": []})";
  const std::string gt = kMaskCase + "instances.json";
  expect_user_error("coco-eval --annotations " + gt + " --detections bad_detections.json --iou-type segm",
                    "bad_detections.json: [0].segmentation.counts 16 is not a compressed RLE string");
  expect_user_error("coco-eval --annotations bad_annotations.json --detections " + kMaskCase + "detections.json",
                    "bad_annotations.json: images[0].file_name: is missing");
  expect_user_error("coco-eval --annotations missing.json --detections " + kMaskCase + "detections.json",
                    "missing.json: no such file");
  std::ofstream(dir_ / "boxes.json") << R"([{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.5}])";
  expect_user_error("coco-eval --annotations " + gt + " --detections boxes.json --iou-type segm",
                    "boxes.json: [0].segmentation is missing: --iou-type segm scores mask results");
  expect_user_error("coco-eval --annotations " + gt + " --detections " + kMaskCase + "detections.json --iou-type mask",
                    "--iou-type 'mask' is neither bbox nor segm");
  expect_user_error("coco-eval --detections " + kMaskCase + "detections.json", "give --annotations");
}

}  // namespace
}  // namespace mlh
