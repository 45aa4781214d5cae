#include "datasets/coco/synthetic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "datasets/coco/annotations.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_files::contents_of;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_coco_synthetic_test"); }

SyntheticCocoSpec small_spec() {
  SyntheticCocoSpec spec;
  spec.categories = 14;
  spec.train_images = 12;
  spec.val_images = 4;
  spec.min_side = 48;
  spec.max_side = 80;
  spec.min_objects = 1;
  spec.max_objects = 5;
  spec.seed = 5;
  return spec;
}

// Reads a split back and checks what every split must hold; returns the annotations.
Annotations read_split(const fs::path& root, const std::string& split, const SyntheticCocoSpec& spec) {
  const Annotations read = read_annotations((root / "annotations" / ("instances_" + split + ".json")).string());
  EXPECT_EQ(read.dropped_images, 0);
  EXPECT_EQ(read.dropped_polygons, 0);
  EXPECT_EQ(read.num_classes(), spec.categories);
  for (const Image& image : read.images) {
    EXPECT_GE(image.width, spec.min_side);
    EXPECT_LE(image.width, spec.max_side);
    EXPECT_GE(image.height, spec.min_side);
    EXPECT_LE(image.height, spec.max_side);
    EXPECT_GE(static_cast<int>(image.annotations.size()), spec.min_objects);
    EXPECT_LE(static_cast<int>(image.annotations.size()), spec.max_objects);
    const fs::path file = root / split / image.file_name;
    const cv::Mat decoded = cv::imread(file.string(), cv::IMREAD_COLOR);
    EXPECT_FALSE(decoded.empty()) << file;
    if (decoded.empty()) continue;
    EXPECT_EQ(decoded.cols, image.width) << file;
    EXPECT_EQ(decoded.rows, image.height) << file;
    for (int32_t index : image.annotations) {
      const Annotation& annotation = read.annotations[index];
      EXPECT_EQ(annotation.image_id, image.id);
      EXPECT_GE(annotation.label, 1);
      EXPECT_LE(annotation.label, spec.categories);
      EXPECT_FALSE(annotation.iscrowd);
      EXPECT_GT(annotation.w, 0);
      EXPECT_GT(annotation.h, 0);
      EXPECT_GE(annotation.x, 0);
      EXPECT_GE(annotation.y, 0);
      EXPECT_LE(annotation.x + annotation.w, image.width + 1e-9);
      EXPECT_LE(annotation.y + annotation.h, image.height + 1e-9);
      EXPECT_GT(annotation.area, 0);
      EXPECT_LE(annotation.area, annotation.w * annotation.h + 0.01);
      EXPECT_EQ(annotation.segmentation.kind, Segmentation::Kind::kPolygons);
      EXPECT_EQ(annotation.segmentation.polygons.size(), 1u);
    }
  }
  return read;
}

TEST(SyntheticCoco, WritesTheCocoLayoutThatTheAnnotationsReaderReads) {
  const fs::path root = test_folder() / "coco";
  const SyntheticCocoSpec spec = small_spec();
  write_synthetic_coco(root.string(), spec);

  const Annotations train = read_split(root, "train2017", spec);
  const Annotations val = read_split(root, "val2017", spec);
  ASSERT_EQ(train.images.size(), 12u);
  ASSERT_EQ(val.images.size(), 4u);
  EXPECT_EQ(train.images[0].id, 1);
  EXPECT_EQ(train.images[0].file_name, "000000000001.jpg");
  EXPECT_EQ(val.images[0].id, 13);
  EXPECT_EQ(val.images[3].file_name, "000000000016.jpg");
  EXPECT_EQ(val.annotations.front().id, static_cast<int64_t>(train.annotations.size()) + 1);

  // COCO's ids with their first gap (12) after 11; names are colour and shape.
  ASSERT_EQ(train.categories.size(), 14u);
  EXPECT_EQ(train.categories[10].id, 11);
  EXPECT_EQ(train.categories[11].id, 13);
  EXPECT_EQ(train.categories[13].id, 15);
  EXPECT_EQ(train.categories[0].name, "red disk");
  EXPECT_EQ(train.categories[1].name, "green square");
  std::set<std::string> names;
  for (const Category& category : train.categories) names.insert(category.name);
  EXPECT_EQ(names.size(), 14u);

  // Objects come in many classes, several to an image.
  std::set<int64_t> labels;
  for (const Annotation& annotation : train.annotations) labels.insert(annotation.label);
  EXPECT_GE(labels.size(), 8u);
  EXPECT_GT(train.annotations.size(), train.images.size());
}

TEST(SyntheticCoco, ObjectsAreDrawnInTheirClassColourInsideTheirBoxes) {
  const fs::path root = test_folder() / "coco";
  SyntheticCocoSpec spec = small_spec();
  spec.categories = 1;  // red disks
  spec.max_objects = 1;
  spec.min_object_fraction = 0.5;
  spec.jpeg_quality = 100;
  write_synthetic_coco(root.string(), spec);
  const Annotations train = read_split(root, "train2017", spec);
  for (const Image& image : train.images) {
    const Annotation& disk = train.annotations[image.annotations[0]];
    const cv::Mat bgr = cv::imread((root / "train2017" / image.file_name).string(), cv::IMREAD_COLOR);
    const cv::Vec3b centre = bgr.at<cv::Vec3b>(static_cast<int>(disk.y + disk.h / 2), static_cast<int>(disk.x + disk.w / 2));
    EXPECT_GT(centre[2], centre[1] + 80) << image.file_name;  // red over green
    EXPECT_GT(centre[2], centre[0] + 80) << image.file_name;  // red over blue
  }
}

TEST(SyntheticCoco, SameSpecWritesTheSameBytesAndAnotherSeedOthers) {
  const fs::path folder = test_folder();
  SyntheticCocoSpec spec = small_spec();
  write_synthetic_coco((folder / "a").string(), spec);
  write_synthetic_coco((folder / "b").string(), spec);
  spec.seed = 6;
  write_synthetic_coco((folder / "c").string(), spec);
  for (const char* file : {"annotations/instances_train2017.json", "annotations/instances_val2017.json",
                           "train2017/000000000003.jpg", "val2017/000000000014.jpg"}) {
    const std::string a = contents_of(folder / "a" / file);
    EXPECT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, contents_of(folder / "b" / file)) << file;
    EXPECT_NE(a, contents_of(folder / "c" / file)) << file;
  }
}

TEST(SyntheticCoco, FolderNameNamesTheSpec) {
  SyntheticCocoSpec spec;
  EXPECT_EQ(synthetic_coco_folder_name(spec), "coco-synthetic-c6-t64-v16-s160x320-o1x4-f0.15x0.6-q90-d1");
  spec.max_object_fraction = 0.6000001;
  EXPECT_EQ(synthetic_coco_folder_name(spec), "coco-synthetic-c6-t64-v16-s160x320-o1x4-f0.15x0.6000001-q90-d1");
}

TEST(SyntheticCoco, SpecOutOfRangeIsAUserError) {
  const std::string root = (test_folder() / "coco").string();
  SyntheticCocoSpec spec = small_spec();
  spec.categories = 81;
  EXPECT_THAT(user_error_of([&] { write_synthetic_coco(root, spec); }),
              AllOf(HasSubstr(root + ": synthetic COCO spec: categories is 81; use 1 to 80")));
  spec = small_spec();
  spec.min_objects = 3;
  spec.max_objects = 2;
  EXPECT_THAT(user_error_of([&] { write_synthetic_coco(root, spec); }), HasSubstr("objects [3, 2] are not a range"));
  spec = small_spec();
  spec.max_object_fraction = 1.5;
  EXPECT_THAT(user_error_of([&] { write_synthetic_coco(root, spec); }), HasSubstr("object fractions"));
  spec = small_spec();
  spec.min_side = 16;
  EXPECT_THAT(user_error_of([&] { write_synthetic_coco(root, spec); }), HasSubstr("sides [16, 80]"));
  EXPECT_FALSE(fs::exists(root));
}

TEST(SyntheticCoco, UnwritableRootIsAUserError) {
  const fs::path folder = test_folder();
  const fs::path file = folder / "a_file";
  std::ofstream(file) << "x";
  EXPECT_THAT(user_error_of([&] { write_synthetic_coco((file / "coco").string(), small_spec()); }),
              AllOf(HasSubstr((file / "coco").string()), HasSubstr("cannot be created")));
}

}  // namespace
}  // namespace mlh::coco
