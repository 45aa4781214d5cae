#include "workloads/ssd/ssd_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::ssd {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using coco::Annotation;
using coco::Annotations;
using coco::Category;
using coco::Image;

constexpr int kOutSize = 24;
constexpr int64_t kImageFloats = 3 * kOutSize * kOutSize;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_ssd_loader_test"); }

// Noise with a little structure, so JPEG keeps it recognisable.
cv::Mat test_image(int width, int height, uint64_t seed) {
  cv::Mat image(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint64_t bits = counter_random(seed, static_cast<uint64_t>(y), static_cast<uint64_t>(x));
      image.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uint8_t>(4 * x + (bits & 15)),
                                            static_cast<uint8_t>(4 * y + ((bits >> 8) & 15)),
                                            static_cast<uint8_t>(100 + ((bits >> 16) & 63)));
    }
  }
  return image;
}

struct ImageSpec {
  int width, height;
  std::vector<std::array<double, 4>> boxes;  // pixel x, y, w, h
};

// Writes one JPEG per spec (image_<i>.jpg, ids 100 + i) and the matching in-memory annotations, each
// box labelled 1 + its index modulo 3.
Annotations write_images(const fs::path& folder, const std::vector<ImageSpec>& specs) {
  Annotations annotations;
  annotations.path = (folder / "instances_test.json").string();
  for (int64_t c = 0; c < 3; ++c) {
    annotations.categories.push_back(Category{10 * (c + 1), "class" + std::to_string(c), c + 1});
    annotations.label_of_category[10 * (c + 1)] = c + 1;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const ImageSpec& spec = specs[i];
    Image image;
    image.id = 100 + static_cast<int64_t>(i);
    image.file_name = "image_" + std::to_string(i) + ".jpg";
    image.width = spec.width;
    image.height = spec.height;
    cv::imwrite((folder / image.file_name).string(), test_image(spec.width, spec.height, i));
    for (size_t b = 0; b < spec.boxes.size(); ++b) {
      Annotation annotation;
      annotation.id = static_cast<int64_t>(annotations.annotations.size()) + 1;
      annotation.image_id = image.id;
      annotation.label = 1 + static_cast<int64_t>(b % 3);
      annotation.category_id = 10 * annotation.label;
      annotation.x = spec.boxes[b][0];
      annotation.y = spec.boxes[b][1];
      annotation.w = spec.boxes[b][2];
      annotation.h = spec.boxes[b][3];
      annotation.area = annotation.w * annotation.h;
      image.annotations.push_back(static_cast<int32_t>(annotations.annotations.size()));
      annotations.annotations.push_back(annotation);
    }
    annotations.image_index[image.id] = static_cast<int32_t>(i);
    annotations.images.push_back(image);
  }
  return annotations;
}

std::vector<ImageSpec> five_images() {
  return {{40, 30, {{4, 3, 20, 12}, {22, 10, 16, 18}}},
          {32, 48, {{0, 0, 32, 48}}},
          {50, 26, {{10, 5, 10, 10}, {30, 2, 15, 20}, {5, 15, 8, 8}}},
          {36, 36, {{8, 8, 20, 20}}},
          {28, 44, {{2, 30, 20, 10}, {14, 4, 10, 12}}}};
}

SsdLoaderOptions options_for(bool train, int threads) {
  SsdLoaderOptions options;
  options.threads = threads;
  options.prefetch_batches = 2;
  options.transform.out_size = kOutSize;
  options.train = train;
  options.seed = 23;
  return options;
}

TEST(CocoSsdLoader, BoxesAreNormalisedClippedAndDegenerateOnesDropped) {
  const fs::path folder = test_folder();
  Annotations annotations =
      write_images(folder, {{40, 20, {{4, 2, 20, 10}, {30, 5, 20, 10}, {8, 8, 0, 5}, {8, 8, 4, 0}}}});
  std::vector<float> boxes;
  std::vector<int64_t> labels;
  normalised_boxes_of(annotations, annotations.images[0], boxes, labels);
  // The second box runs past the right edge and is clipped; the zero-width and zero-height ones go.
  EXPECT_THAT(boxes, ElementsAre(FloatNear(0.1f, 1e-6f), FloatNear(0.1f, 1e-6f), FloatNear(0.6f, 1e-6f),
                                 FloatNear(0.6f, 1e-6f), FloatNear(0.75f, 1e-6f), FloatNear(0.25f, 1e-6f),
                                 1.0f, FloatNear(0.75f, 1e-6f)));
  EXPECT_THAT(labels, ElementsAre(1, 2));
}

TEST(CocoSsdLoader, EvalBatchesComeInPlanOrderWithTheEvalTransform) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, five_images());
  SsdLoader loader(annotations, folder.string(), options_for(false, 3));
  loader.start({{2, 0}, {4}, {1, 3}}, 0);
  const std::vector<std::vector<int32_t>> expected = {{2, 0}, {4}, {1, 3}};
  for (const std::vector<int32_t>& indices : expected) {
    const DetectionBatch batch = loader.next();
    ASSERT_EQ(batch.count, static_cast<int64_t>(indices.size()));
    ASSERT_EQ(batch.images.size(), indices.size() * kImageFloats);
    EXPECT_EQ(batch.skipped, 0);
    for (size_t i = 0; i < indices.size(); ++i) {
      const Image& image = annotations.images[static_cast<size_t>(indices[i])];
      const DetectionTarget& target = batch.targets[i];
      EXPECT_EQ(target.image_id, image.id);
      EXPECT_EQ(target.width, image.width);
      EXPECT_EQ(target.height, image.height);
      EXPECT_FALSE(target.skipped);
      std::vector<float> boxes;
      std::vector<int64_t> labels;
      normalised_boxes_of(annotations, image, boxes, labels);
      EXPECT_EQ(target.boxes_ltrb, boxes);
      EXPECT_EQ(target.labels, labels);
      std::vector<float> expected_pixels(kImageFloats);
      ssd_eval_transform(cv::imread((folder / image.file_name).string(), cv::IMREAD_COLOR), kOutSize,
                         expected_pixels.data());
      EXPECT_TRUE(std::equal(expected_pixels.begin(), expected_pixels.end(),
                             batch.images.begin() + static_cast<int64_t>(i) * kImageFloats));
    }
  }
  EXPECT_THROW(loader.next(), InternalError);
}

// All batches of `plan` from a fresh loader with `threads` workers, through next_into.
std::vector<DetectionBatch> all_batches(const Annotations& annotations, const fs::path& folder,
                                        const SsdLoaderOptions& options,
                                        const std::vector<std::vector<int32_t>>& plan, int64_t epoch,
                                        std::vector<std::vector<float>>* pixels) {
  SsdLoader loader(annotations, folder.string(), options);
  loader.start(plan, epoch);
  std::vector<DetectionBatch> batches;
  for (size_t b = 0; b < plan.size(); ++b) {
    pixels->emplace_back();
    std::vector<float>& memory = pixels->back();
    batches.push_back(loader.next_into([&](int64_t count) {
      memory.assign(static_cast<size_t>(count * kImageFloats), -99.0f);
      return memory.data();
    }));
    EXPECT_TRUE(batches.back().images.empty());
  }
  return batches;
}

TEST(CocoSsdLoader, TrainBatchesDependOnlyOnSeedEpochAndIndex) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, five_images());
  const std::vector<std::vector<int32_t>> plan = {{0, 1, 2}, {3, 4}, {2, 0}};
  std::vector<std::vector<float>> one_thread_pixels, four_thread_pixels, other_epoch_pixels;
  const std::vector<DetectionBatch> one_thread =
      all_batches(annotations, folder, options_for(true, 1), plan, 5, &one_thread_pixels);
  const std::vector<DetectionBatch> four_threads =
      all_batches(annotations, folder, options_for(true, 4), plan, 5, &four_thread_pixels);
  const std::vector<DetectionBatch> other_epoch =
      all_batches(annotations, folder, options_for(true, 2), plan, 6, &other_epoch_pixels);
  EXPECT_EQ(one_thread_pixels, four_thread_pixels);
  EXPECT_NE(one_thread_pixels, other_epoch_pixels);
  for (size_t b = 0; b < plan.size(); ++b) {
    for (size_t i = 0; i < plan[b].size(); ++i) {
      const DetectionTarget& target = one_thread[b].targets[i];
      EXPECT_EQ(target.boxes_ltrb, four_threads[b].targets[i].boxes_ltrb);
      EXPECT_EQ(target.labels, four_threads[b].targets[i].labels);
      ASSERT_EQ(target.boxes_ltrb.size(), 4 * target.labels.size());
      EXPECT_GE(target.labels.size(), 1u);  // a crop keeps at least one box centre
      for (const float value : target.boxes_ltrb) {
        EXPECT_GE(value, 0.0f);
        EXPECT_LE(value, 1.0f);
      }
    }
  }
  // The same image in the same epoch, at another place in the plan, gets the same augmentation.
  const auto slice = [&](size_t batch, size_t i) {
    const auto begin = one_thread_pixels[batch].begin() + static_cast<int64_t>(i) * kImageFloats;
    return std::vector<float>(begin, begin + kImageFloats);
  };
  EXPECT_EQ(slice(0, 0), slice(2, 1));
  EXPECT_EQ(one_thread[0].targets[2].boxes_ltrb, one_thread[2].targets[0].boxes_ltrb);
}

TEST(CocoSsdLoader, CorruptImageFailsItsBatchNamingTheFile) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, five_images());
  std::ofstream(folder / "image_1.jpg", std::ios::binary | std::ios::trunc) << "not a jpeg at all";
  SsdLoader loader(annotations, folder.string(), options_for(true, 2));
  loader.start({{0}, {1, 2}, {3}}, 0);
  EXPECT_EQ(loader.next().targets[0].image_id, 100);
  EXPECT_THAT(user_error_of([&] { loader.next(); }),
              AllOf(HasSubstr((folder / "image_1.jpg").string() + ": not a decodable image"),
                    HasSubstr("on_bad_image: skip")));
  EXPECT_EQ(loader.next().targets[0].image_id, 103);  // the loader moves on
}

TEST(CocoSsdLoader, BadImagesAreSkippedAndCountedUnderSkip) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, five_images());
  // A truncated JPEG (OpenCV would decode it silently with grey rows) and a missing file.
  const std::string jpeg = testing_files::contents_of(folder / "image_2.jpg");
  std::ofstream(folder / "image_2.jpg", std::ios::binary | std::ios::trunc)
      << jpeg.substr(0, jpeg.size() / 2);
  fs::remove(folder / "image_4.jpg");
  SsdLoaderOptions options = options_for(true, 2);
  options.on_bad_image = BadSamplePolicy::kSkip;
  SsdLoader loader(annotations, folder.string(), options);
  loader.start({{0, 2, 1}, {4, 3}}, 0);
  const DetectionBatch first = loader.next();
  EXPECT_EQ(first.skipped, 1);
  EXPECT_TRUE(first.targets[1].skipped);
  EXPECT_EQ(first.targets[1].image_id, 102);
  EXPECT_TRUE(first.targets[1].boxes_ltrb.empty());
  EXPECT_TRUE(std::all_of(first.images.begin() + kImageFloats, first.images.begin() + 2 * kImageFloats,
                          [](float value) { return value == 0.0f; }));
  EXPECT_FALSE(first.targets[0].skipped);
  EXPECT_FALSE(first.targets[2].skipped);
  const DetectionBatch second = loader.next();
  EXPECT_EQ(second.skipped, 1);
  EXPECT_TRUE(second.targets[0].skipped);
  EXPECT_EQ(loader.skipped_total(), 2);
  EXPECT_THAT(loader.skipped_files(),
              ElementsAre((folder / "image_2.jpg").string(), (folder / "image_4.jpg").string()));
}

TEST(CocoSsdLoader, TruncatedJpegFailsUnderFail) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, five_images());
  const std::string jpeg = testing_files::contents_of(folder / "image_0.jpg");
  std::ofstream(folder / "image_0.jpg", std::ios::binary | std::ios::trunc)
      << jpeg.substr(0, jpeg.size() - 200);
  SsdLoader loader(annotations, folder.string(), options_for(false, 1));
  loader.start({{0}}, 0);
  EXPECT_THAT(user_error_of([&] { loader.next(); }),
              HasSubstr((folder / "image_0.jpg").string() + ": not a decodable image (truncated JPEG"));
}

TEST(CocoSsdLoader, DecodedSizeMustMatchTheAnnotations) {
  const fs::path folder = test_folder();
  Annotations annotations = write_images(folder, five_images());
  annotations.images[3].width = 37;
  SsdLoader loader(annotations, folder.string(), options_for(false, 1));
  loader.start({{3}}, 0);
  EXPECT_THAT(user_error_of([&] { loader.next(); }),
              AllOf(HasSubstr((folder / "image_3.jpg").string() + ": decoded size 36x36"),
                    HasSubstr("width x height 37x36"), HasSubstr("instances_test.json")));
}

TEST(CocoSsdLoader, OptionsOutOfRangeAreUserErrors) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, {{8, 8, {{1, 1, 4, 4}}}});
  SsdLoaderOptions options = options_for(true, 0);
  EXPECT_THAT(user_error_of([&] { SsdLoader loader(annotations, folder.string(), options); }),
              HasSubstr("ssd loader: threads is 0"));
  options = options_for(true, 1);
  options.transform.crop_max_samples = 0;
  EXPECT_THAT(user_error_of([&] { SsdLoader loader(annotations, folder.string(), options); }),
              HasSubstr("ssd loader: crop_max_samples is 0"));
}

TEST(CocoSsdLoader, RecycledBuffersGiveTheSameBatches) {
  const fs::path folder = test_folder();
  const Annotations annotations = write_images(folder, five_images());
  SsdLoader loader(annotations, folder.string(), options_for(true, 2));
  const std::vector<std::vector<int32_t>> plan = {{0, 1}, {2, 3}, {4, 0}, {1, 2}};
  loader.start(plan, 1);
  std::vector<std::vector<float>> first_pass;
  for (size_t b = 0; b < plan.size(); ++b) {
    DetectionBatch batch = loader.next();
    first_pass.push_back(batch.images);
    loader.recycle(std::move(batch));
  }
  loader.start(plan, 1);
  for (size_t b = 0; b < plan.size(); ++b) {
    DetectionBatch batch = loader.next();
    EXPECT_EQ(batch.images, first_pass[b]);
    loader.recycle(std::move(batch));
  }
}

}  // namespace
}  // namespace mlh::ssd
