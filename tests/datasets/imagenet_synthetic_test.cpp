#include "datasets/imagenet/synthetic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/user_error.h"
#include "tests/test_files.h"
#include "datasets/imagenet/folder.h"

namespace mlh::imagenet {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing_files::contents_of;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_imagenet_synthetic_test"); }

SyntheticImageNetSpec small_spec() {
  SyntheticImageNetSpec spec;
  spec.classes = 4;
  spec.train_images_per_class = 5;
  spec.val_images_per_class = 2;
  spec.min_side = 40;
  spec.max_side = 64;
  spec.seed = 3;
  return spec;
}

TEST(SyntheticImageNet, WritesTheImageNetLayoutThatTheFolderReaderReads) {
  const fs::path root = test_folder() / "imagenet";
  const SyntheticImageNetSpec spec = small_spec();
  write_synthetic_imagenet(root.string(), spec);

  EXPECT_EQ(contents_of(root / kClassIndexFileName),
            "n01000000 synthetic class 0\nn01000001 synthetic class 1\n"
            "n01000002 synthetic class 2\nn01000003 synthetic class 3\n");
  const std::vector<std::string> classes = read_class_index((root / kClassIndexFileName).string());
  ASSERT_THAT(classes, ElementsAre("n01000000", "n01000001", "n01000002", "n01000003"));

  const ImageFolder train = scan_image_folder((root / "train").string(), classes);
  ASSERT_EQ(train.size(), 20);
  EXPECT_EQ(train.files[0], (root / "train" / "n01000000" / "n01000000_1.JPEG").string());
  for (int64_t i = 0; i < train.size(); ++i) EXPECT_EQ(train.labels[i], i / 5);

  const ImageFolder val = scan_image_folder((root / "val").string(), classes);
  ASSERT_EQ(val.size(), 8);
  EXPECT_EQ(val.files[0], (root / "val" / "n01000000" / "ILSVRC2012_val_00000001.JPEG").string());
  EXPECT_EQ(val.files[7], (root / "val" / "n01000003" / "ILSVRC2012_val_00000008.JPEG").string());

  std::vector<std::string> all = train.files;
  all.insert(all.end(), val.files.begin(), val.files.end());
  for (const std::string& path : all) {
    const cv::Mat image = cv::imread(path, cv::IMREAD_COLOR);
    ASSERT_FALSE(image.empty()) << path;
    EXPECT_GE(image.cols, spec.min_side) << path;
    EXPECT_LE(image.cols, spec.max_side) << path;
    EXPECT_GE(image.rows, spec.min_side) << path;
    EXPECT_LE(image.rows, spec.max_side) << path;
  }
}

TEST(SyntheticImageNet, IsDeterministicInTheSpecAndOverwrites) {
  const fs::path folder = test_folder();
  SyntheticImageNetSpec spec = small_spec();
  write_synthetic_imagenet((folder / "a").string(), spec);
  write_synthetic_imagenet((folder / "b").string(), spec);
  const fs::path file = fs::path("train") / "n01000002" / "n01000002_4.JPEG";
  const std::string first = contents_of(folder / "a" / file);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first, contents_of(folder / "b" / file));

  spec.seed = 4;
  write_synthetic_imagenet((folder / "b").string(), spec);
  EXPECT_NE(first, contents_of(folder / "b" / file));
  spec.seed = 3;
  write_synthetic_imagenet((folder / "b").string(), spec);
  EXPECT_EQ(first, contents_of(folder / "b" / file));
}

// Mean colour of an image, as a direction (chromaticity): the class colour dominates it.
std::array<double, 3> chromaticity(const std::string& path) {
  const cv::Scalar mean = cv::mean(cv::imread(path, cv::IMREAD_COLOR));
  const double norm = std::sqrt(mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2]);
  return {mean[0] / norm, mean[1] / norm, mean[2] / norm};
}

TEST(SyntheticImageNet, ClassesAreTellableApartByColourAlone) {
  const fs::path root = test_folder();
  SyntheticImageNetSpec spec = small_spec();
  spec.classes = 6;
  spec.train_images_per_class = 6;
  write_synthetic_imagenet(root.string(), spec);
  const ImageFolder train = scan_image_folder(
      (root / "train").string(), read_class_index((root / kClassIndexFileName).string()));
  std::vector<std::array<double, 3>> colour(train.files.size());
  std::vector<std::array<double, 3>> centroid(spec.classes, {0, 0, 0});
  for (size_t i = 0; i < train.files.size(); ++i) {
    colour[i] = chromaticity(train.files[i]);
    for (int c = 0; c < 3; ++c) centroid[train.labels[i]][c] += colour[i][c];
  }
  // Nearest class centroid: even this crude classifier should get nearly all of them right.
  int correct = 0;
  for (size_t i = 0; i < colour.size(); ++i) {
    int best = -1;
    double best_distance = 1e9;
    for (int k = 0; k < spec.classes; ++k) {
      double distance = 0;
      for (int c = 0; c < 3; ++c) {
        const double d = colour[i][c] - centroid[k][c] / spec.train_images_per_class;
        distance += d * d;
      }
      if (distance < best_distance) best_distance = distance, best = k;
    }
    correct += best == train.labels[i];
  }
  EXPECT_GE(correct, static_cast<int>(colour.size()) * 8 / 10);
}

TEST(SyntheticImageNet, UnwritableRootIsNamed) {
  const fs::path blocker = test_folder() / "a_file";
  std::ofstream(blocker) << "x";
  const std::string root = (blocker / "imagenet").string();
  try {
    write_synthetic_imagenet(root, small_spec());
    ADD_FAILURE() << "no UserError";
  } catch (const UserError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr(root), HasSubstr("cannot be created")));
  }
}

TEST(SyntheticImageNet, RejectsAnImpossibleSpec) {
  SyntheticImageNetSpec spec = small_spec();
  spec.min_side = 100;
  spec.max_side = 50;
  EXPECT_THROW(write_synthetic_imagenet(test_folder().string(), spec), UserError);
  spec = small_spec();
  spec.classes = 0;
  EXPECT_THROW(write_synthetic_imagenet(test_folder().string(), spec), UserError);
}

}  // namespace
}  // namespace mlh::imagenet
