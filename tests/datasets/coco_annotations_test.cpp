#include "datasets/coco/annotations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = testing_files::fresh_test_folder("mlh_coco_annotations_test") / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// Three categories with COCO-like gaps, four images (one without annotations), and one annotation of
// each segmentation kind: polygons, uncompressed RLE (a crowd), compressed RLE.
constexpr const char* kGoodFile = R"({
  "info": {"description": "test"},
  "licenses": [],
  "images": [
    {"id": 42, "file_name": "000000000042.jpg", "width": 640, "height": 480},
    {"id": 7, "file_name": "000000000007.jpg", "width": 10, "height": 15},
    {"id": 8, "file_name": "000000000008.jpg", "width": 320, "height": 200},
    {"id": 9, "file_name": "000000000009.jpg", "width": 10, "height": 6}
  ],
  "annotations": [
    {"id": 100, "image_id": 42, "category_id": 90, "bbox": [10.5, 20, 30, 40.25], "area": 812.5,
     "iscrowd": 0, "segmentation": [[10.5, 20, 40.5, 20, 40.5, 60.25], [1, 2, 3, 4, 5, 6, 7, 8]]},
    {"id": 101, "image_id": 7, "category_id": 1, "bbox": [0, 0, 10, 15], "area": 111, "iscrowd": 1,
     "segmentation": {"counts": [0, 5, 37, 100, 2, 6], "size": [15, 10]}},
    {"id": 102, "image_id": 42, "category_id": 3, "bbox": [1, 2, 0, 0], "area": 0,
     "segmentation": {"counts": "05U1o2mNRM", "size": [15, 10]}},
    {"id": 103, "image_id": 9, "category_id": 1, "bbox": [0, 0, 4, 3], "iscrowd": 0,
     "segmentation": {"counts": "32:On03", "size": [6, 10]}}
  ],
  "categories": [
    {"id": 90, "name": "toothbrush", "supercategory": "indoor"},
    {"id": 1, "name": "person"},
    {"id": 3, "name": "car"}
  ]
})";

TEST(CocoAnnotations, ReadsCategoriesImagesBoxesAndEverySegmentationKind) {
  const std::string path = write_file("instances_good.json", kGoodFile);
  const Annotations read = read_annotations(path);

  EXPECT_EQ(read.path, path);
  ASSERT_EQ(read.num_classes(), 3);
  EXPECT_EQ(read.categories[0].id, 1);
  EXPECT_EQ(read.categories[0].name, "person");
  EXPECT_EQ(read.categories[0].label, 1);
  EXPECT_EQ(read.categories[1].id, 3);
  EXPECT_EQ(read.categories[1].label, 2);
  EXPECT_EQ(read.categories[2].id, 90);
  EXPECT_EQ(read.categories[2].name, "toothbrush");
  EXPECT_EQ(read.categories[2].label, 3);
  EXPECT_EQ(read.label_of_category, (std::map<int64_t, int64_t>{{1, 1}, {3, 2}, {90, 3}}));

  // Image 8 has no annotation: dropped and counted; the others keep file order.
  EXPECT_EQ(read.dropped_images, 1);
  ASSERT_EQ(read.images.size(), 3u);
  EXPECT_EQ(read.images[0].id, 42);
  EXPECT_EQ(read.images[0].file_name, "000000000042.jpg");
  EXPECT_EQ(read.images[0].width, 640);
  EXPECT_EQ(read.images[0].height, 480);
  EXPECT_THAT(read.images[0].annotations, ElementsAre(0, 2));
  EXPECT_EQ(read.images[1].id, 7);
  EXPECT_THAT(read.images[1].annotations, ElementsAre(1));
  EXPECT_EQ(read.images[2].id, 9);
  EXPECT_THAT(read.images[2].annotations, ElementsAre(3));
  EXPECT_EQ(read.image_index, (std::map<int64_t, int32_t>{{7, 1}, {9, 2}, {42, 0}}));

  ASSERT_EQ(read.annotations.size(), 4u);
  const Annotation& polygons = read.annotations[0];
  EXPECT_EQ(polygons.id, 100);
  EXPECT_EQ(polygons.image_id, 42);
  EXPECT_EQ(polygons.category_id, 90);
  EXPECT_EQ(polygons.label, 3);
  EXPECT_DOUBLE_EQ(polygons.x, 10.5);
  EXPECT_DOUBLE_EQ(polygons.y, 20);
  EXPECT_DOUBLE_EQ(polygons.w, 30);
  EXPECT_DOUBLE_EQ(polygons.h, 40.25);
  EXPECT_DOUBLE_EQ(polygons.area, 812.5);
  EXPECT_FALSE(polygons.iscrowd);
  ASSERT_EQ(polygons.segmentation.kind, Segmentation::Kind::kPolygons);
  EXPECT_THAT(polygons.segmentation.polygons,
              ElementsAre(ElementsAre(10.5, 20, 40.5, 20, 40.5, 60.25), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8)));

  const Annotation& crowd = read.annotations[1];
  EXPECT_TRUE(crowd.iscrowd);
  EXPECT_EQ(crowd.label, 1);
  ASSERT_EQ(crowd.segmentation.kind, Segmentation::Kind::kRle);
  EXPECT_EQ(crowd.segmentation.rle.height, 15);
  EXPECT_EQ(crowd.segmentation.rle.width, 10);
  EXPECT_THAT(crowd.segmentation.rle.counts, ElementsAre(0, 5, 37, 100, 2, 6));

  // pycocotools' mask.frPyObjects({'counts': [0,5,37,100,2,6], 'size': [15,10]}, 15, 10) gives
  // "05U1o2mNRM": counts from the fourth on are deltas, two of them negative.
  const Annotation& compressed = read.annotations[2];
  EXPECT_EQ(compressed.label, 2);
  EXPECT_DOUBLE_EQ(compressed.w, 0);
  ASSERT_EQ(compressed.segmentation.kind, Segmentation::Kind::kRle);
  EXPECT_THAT(compressed.segmentation.rle.counts, ElementsAre(0, 5, 37, 100, 2, 6));
  // And "32:On03" for [3,2,10,1,40,4] of a 6 x 10 mask.
  const Annotation& short_rle = read.annotations[3];
  EXPECT_THAT(short_rle.segmentation.rle.counts, ElementsAre(3, 2, 10, 1, 40, 4));
  EXPECT_EQ(short_rle.segmentation.rle.height, 6);
  // Without `area` the box's area stands in.
  EXPECT_DOUBLE_EQ(short_rle.area, 12);
  EXPECT_EQ(read.dropped_polygons, 0);
}

TEST(CocoAnnotations, KeepsImagesWithoutAnnotationsWhenAsked) {
  const std::string path = write_file("instances_good.json", kGoodFile);
  ReadOptions options;
  options.keep_images_without_annotations = true;
  const Annotations read = read_annotations(path, options);
  EXPECT_EQ(read.dropped_images, 0);
  ASSERT_EQ(read.images.size(), 4u);
  EXPECT_EQ(read.images[2].id, 8);
  EXPECT_TRUE(read.images[2].annotations.empty());
  EXPECT_EQ(read.image_index.at(9), 3);
  EXPECT_THAT(read.images[3].annotations, ElementsAre(3));
}

TEST(CocoAnnotations, DropsPolygonsOfTwoPointsAndCountsThem) {
  const std::string path = write_file("instances_short_polygon.json", R"({
    "images": [{"id": 1, "file_name": "a.jpg", "width": 8, "height": 8}],
    "annotations": [
      {"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, 2, 0],
       "segmentation": [[1, 1, 3, 1], [0, 0, 4, 0, 4, 4]]},
      {"id": 2, "image_id": 1, "category_id": 1, "bbox": [1, 1, 2, 0], "segmentation": [[1, 1, 3, 1]]}],
    "categories": [{"id": 1, "name": "a"}]})");
  const Annotations read = read_annotations(path);
  EXPECT_EQ(read.dropped_polygons, 2);
  EXPECT_EQ(read.annotations[0].segmentation.kind, Segmentation::Kind::kPolygons);
  EXPECT_THAT(read.annotations[0].segmentation.polygons, ElementsAre(ElementsAre(0, 0, 4, 0, 4, 4)));
  EXPECT_EQ(read.annotations[1].segmentation.kind, Segmentation::Kind::kNone);
}

// The message of reading a file of `text`, checked to name the file.
std::string error_of_file(const std::string& text) {
  const std::string path = write_file("instances_bad.json", text);
  const std::string message = user_error_of([&] { read_annotations(path); });
  EXPECT_THAT(message, HasSubstr(path + ": "));
  return message;
}

// The message of reading a file whose annotations list is `annotations`, with image 1 and category 1.
std::string error_of_annotations(const std::string& annotations) {
  return error_of_file(R"({"images": [{"id": 1, "file_name": "a.jpg", "width": 8, "height": 8}],
    "categories": [{"id": 1, "name": "a"}], "annotations": )" +
                       annotations + "}");
}

constexpr const char* kGoodAnnotation = R"({"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2]})";

TEST(CocoAnnotations, MissingFileIsAUserError) {
  const std::string path = (testing_files::fresh_test_folder("mlh_coco_annotations_test") / "none.json").string();
  EXPECT_THAT(user_error_of([&] { read_annotations(path); }), AllOf(HasSubstr(path), HasSubstr("no such file")));
}

TEST(CocoAnnotations, MalformedJsonNamesTheFileAndTheParserMessage) {
  EXPECT_THAT(error_of_file(R"({"images": [{"id": 1,}]})"), HasSubstr("not valid JSON: [json.exception.parse_error"));
  EXPECT_THAT(error_of_file("[1, 2]"), HasSubstr("top level is not a JSON object"));
}

// Found by fuzz/fuzz_coco_json: nlohmann-json throws out_of_range, not parse_error, for a number
// beyond a double's range.
TEST(CocoAnnotations, NumberBeyondADoubleIsAUserError) {
  EXPECT_THAT(error_of_file(R"({"images": [{"id": 1, "width": 1e999}]})"),
              AllOf(HasSubstr("not valid JSON"), HasSubstr("number overflow parsing '1e999'")));
}

TEST(CocoAnnotations, MissingListOrFieldIsNamed) {
  EXPECT_THAT(error_of_file(R"({"images": [], "annotations": []})"), HasSubstr(": categories is missing"));
  EXPECT_THAT(error_of_file(R"({"images": {}, "annotations": [], "categories": []})"),
              HasSubstr(": images is not a list"));
  EXPECT_THAT(error_of_annotations(R"([)" + std::string(kGoodAnnotation) +
                                   R"(, {"id": 2, "image_id": 1, "bbox": [0, 0, 1, 1]}])"),
              HasSubstr(": annotations[1].category_id: is missing"));
  EXPECT_THAT(error_of_file(R"({"images": [{"id": 1, "width": 8, "height": 8}], "annotations": [],
                                "categories": []})"),
              HasSubstr(": images[0].file_name: is missing"));
  EXPECT_THAT(error_of_file(R"({"images": [], "annotations": [], "categories": [{"name": "a"}]})"),
              HasSubstr(": categories[0].id: is missing"));
}

TEST(CocoAnnotations, MistypedFieldIsNamed) {
  EXPECT_THAT(error_of_annotations(R"([{"id": "1", "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2]}])"),
              HasSubstr(": annotations[0].id: \"1\" is not an integer"));
  EXPECT_THAT(error_of_annotations(R"([{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2]}])"),
              HasSubstr(": annotations[0].bbox: [0,0,2] is not 4 numbers"));
  EXPECT_THAT(error_of_annotations(R"([{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, "0", 2, 2]}])"),
              HasSubstr(": annotations[0].bbox[1]: \"0\" is not a number"));
  EXPECT_THAT(error_of_file(R"({"images": [{"id": 1, "file_name": "a.jpg", "width": 0, "height": 8}],
                                "annotations": [], "categories": []})"),
              HasSubstr(": images[0].width: 0 is not positive"));
  EXPECT_THAT(error_of_annotations("[3]"), HasSubstr(": annotations[0]: 3 is not an object"));
}

TEST(CocoAnnotations, DuplicateIdsAreNamed) {
  EXPECT_THAT(error_of_file(R"({"images": [{"id": 5, "file_name": "a.jpg", "width": 8, "height": 8},
                                           {"id": 5, "file_name": "b.jpg", "width": 8, "height": 8}],
                                "annotations": [], "categories": []})"),
              HasSubstr(": images[1].id: 5 is already the id of images[0]"));
  EXPECT_THAT(error_of_file(R"({"images": [], "annotations": [],
                                "categories": [{"id": 2}, {"id": 3}, {"id": 2}]})"),
              HasSubstr(": categories[2].id: 2 is already the id of categories[0]"));
}

TEST(CocoAnnotations, UnknownImageOrCategoryIsNamed) {
  EXPECT_THAT(error_of_annotations(R"([)" + std::string(kGoodAnnotation) +
                                   R"(, {"id": 2, "image_id": 99, "category_id": 1, "bbox": [0, 0, 1, 1]}])"),
              HasSubstr(": annotations[1].image_id: 99 is not an image id of the file"));
  EXPECT_THAT(error_of_annotations(R"([{"id": 1, "image_id": 1, "category_id": 7, "bbox": [0, 0, 1, 1]}])"),
              HasSubstr(": annotations[0].category_id: 7 is not a declared category"));
}

TEST(CocoAnnotations, NegativeBoxSizeIsNamed) {
  EXPECT_THAT(error_of_annotations(R"([{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, -3, 2]}])"),
              HasSubstr(": annotations[0].bbox: width -3 is negative"));
  EXPECT_THAT(error_of_annotations(R"([{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 3, -0.5]}])"),
              HasSubstr(": annotations[0].bbox: height -0.5 is negative"));
}

std::string error_of_segmentation(const std::string& segmentation) {
  return error_of_annotations(R"([{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2],
                                   "segmentation": )" +
                              segmentation + "}]");
}

TEST(CocoAnnotations, BadSegmentationIsNamed) {
  EXPECT_THAT(error_of_segmentation("[[0, 0, 4, 0, 4]]"),
              HasSubstr(": annotations[0].segmentation[0]: has 5 numbers; a polygon takes x, y pairs"));
  EXPECT_THAT(error_of_segmentation("[[0, 0, 4, 0, 4, 4], 3]"),
              HasSubstr(": annotations[0].segmentation[1]: 3 is not a polygon"));
  EXPECT_THAT(error_of_segmentation("[[0, 0, 4, 0, 4, null]]"),
              HasSubstr(": annotations[0].segmentation[0]: null is not a number"));
  EXPECT_THAT(error_of_segmentation("\"abc\""), HasSubstr(": annotations[0].segmentation: \"abc\" is neither"));
  EXPECT_THAT(error_of_segmentation(R"({"counts": [3, 2]})"), HasSubstr(": annotations[0].segmentation.size: is missing"));
  EXPECT_THAT(error_of_segmentation(R"({"counts": [3, 2], "size": [2, 2]})"),
              HasSubstr(": annotations[0].segmentation.counts: runs cover 5 pixels, not height x width = 4"));
  EXPECT_THAT(error_of_segmentation(R"({"counts": [3, -1], "size": [1, 2]})"),
              HasSubstr(": annotations[0].segmentation.counts: -1 is not a run length"));
  EXPECT_THAT(error_of_segmentation(R"({"counts": "3~", "size": [6, 10]})"),
              HasSubstr(": annotations[0].segmentation.counts: compressed RLE character '~' at offset 1"));
  // 'n' (code 62) sets the continuation bit, so the string ends inside a count.
  EXPECT_THAT(error_of_segmentation(R"({"counts": "32n", "size": [6, 10]})"),
              HasSubstr(": annotations[0].segmentation.counts: compressed RLE ends inside a count"));
  // "32:On03" less its last three characters, [3, 2, 10, 1], covers fewer pixels than 6 x 10.
  EXPECT_THAT(error_of_segmentation(R"({"counts": "32:O", "size": [6, 10]})"),
              HasSubstr(": annotations[0].segmentation.counts: runs cover 16 pixels"));
  // 'O' (code 31): the sign bit without continuation, a first count of -1.
  EXPECT_THAT(error_of_segmentation(R"({"counts": "O", "size": [0, 0]})"),
              HasSubstr(": annotations[0].segmentation.counts: compressed RLE count 0 decodes to -1"));
}

}  // namespace
}  // namespace mlh::coco
