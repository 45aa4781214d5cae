#include "workloads/maskrcnn/maskrcnn_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "datasets/coco/synthetic.h"
#include "datasets/counter_random.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"
#include "workloads/common/torchvision_normalize.h"
#include "workloads/maskrcnn/aspect_grouping.h"

namespace mlh::maskrcnn {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_maskrcnn_loader_test"); }

// ---- resized_size: the reference's Resize.get_size ----

void expect_size(int64_t width, int64_t height, int64_t min_size, int64_t max_size, int64_t expected_height,
                 int64_t expected_width) {
  const ImageSize size = resized_size(width, height, min_size, max_size);
  EXPECT_EQ(size.height, expected_height) << width << "x" << height;
  EXPECT_EQ(size.width, expected_width) << width << "x" << height;
}

TEST(MaskRcnnResize, ShortSideBecomesMinSizeLongSideTruncated) {
  expect_size(640, 480, 800, 1333, 800, 1066);  // 800 * 640 / 480 = 1066.67
  expect_size(480, 640, 800, 1333, 1066, 800);
  expect_size(500, 333, 800, 1333, 800, 1201);  // 1201.2
  expect_size(1066, 800, 800, 1333, 800, 1066);  // short side already 800: kept
  expect_size(800, 800, 800, 1333, 800, 800);
  expect_size(400, 400, 800, 1333, 800, 800);
}

TEST(MaskRcnnResize, LongImagesAreCappedByMaxSize) {
  // 2000 / 500 * 800 > 1333: short side round(1333 * 500 / 2000) = round(333.25) = 333, long 1332.
  expect_size(2000, 500, 800, 1333, 333, 1332);
  expect_size(500, 2000, 800, 1333, 1332, 333);
  // Python's round takes halves to even: 1333 / 2 = 666.5 -> 666, 1335 / 2 = 667.5 -> 668.
  expect_size(2, 1, 800, 1333, 666, 1332);
  expect_size(2, 1, 800, 1335, 668, 1336);
  // Just under the cap: 1333 / 1000 * 800 = 1066.4.
  expect_size(1333, 1000, 800, 1333, 800, 1066);
  // A sliver whose short side would round to 0 gets 1 pixel.
  expect_size(3000, 1, 800, 1333, 1, 1);
}

// ---- targets: hand values ----

coco::Annotation object(int64_t id, int64_t label, double x, double y, double w, double h, bool crowd = false) {
  coco::Annotation annotation;
  annotation.id = id;
  annotation.label = label;
  annotation.category_id = label;
  annotation.x = x;
  annotation.y = y;
  annotation.w = w;
  annotation.h = h;
  annotation.area = w * h;
  annotation.iscrowd = crowd;
  annotation.segmentation.kind = coco::Segmentation::Kind::kPolygons;
  annotation.segmentation.polygons = {{x, y, x + w - 1, y, x + w - 1, y + h - 1}};
  return annotation;
}

// One image of width x height holding `objects`.
coco::Annotations one_image(int64_t width, int64_t height, const std::vector<coco::Annotation>& objects) {
  coco::Annotations annotations;
  annotations.path = "/data/instances_test.json";
  coco::Image image;
  image.id = 7;
  image.file_name = "image.jpg";
  image.width = width;
  image.height = height;
  for (const coco::Annotation& annotation : objects) {
    image.annotations.push_back(static_cast<int32_t>(annotations.annotations.size()));
    annotations.annotations.push_back(annotation);
    annotations.annotations.back().image_id = image.id;
  }
  annotations.images.push_back(image);
  annotations.image_index[image.id] = 0;
  return annotations;
}

coco::Annotations hand_case() {
  return one_image(40, 30,
                   {object(1, 3, 4, 3, 10, 6),            // (4, 3, 13, 8)
                    object(2, 1, 0, 0, 20, 20, true),     // a crowd: dropped
                    object(3, 2, 35, 20, 10, 20),         // (35, 20, 44, 39), clipped to (35, 20, 39, 29)
                    object(4, 4, 5, 5, 1, 4),             // w 1: x2 = x1, dropped
                    object(5, 5, 50, 0, 10, 10),          // outside: clipped to x 39..39, dropped
                    object(6, 6, 2.5, 1.25, 0.5, 3)});    // w - 1 clamps at 0: dropped
}

TEST(MaskRcnnTargets, BoxesAreInclusiveClippedAndResizedPerAxis) {
  const coco::Annotations annotations = hand_case();
  HostTargets targets;
  transform_targets(annotations, annotations.images[0], ImageSize{45, 80}, false, targets);  // x 2, y 1.5
  EXPECT_FALSE(targets.flipped);
  EXPECT_THAT(targets.labels, ElementsAre(3, 2));
  EXPECT_THAT(targets.boxes_ltrb, ElementsAre(8, 4.5, 26, 12, 70, 30, 78, 43.5));
  ASSERT_EQ(targets.masks.size(), 2u);
  ASSERT_EQ(targets.masks[0].kind, coco::Segmentation::Kind::kPolygons);
  EXPECT_THAT(targets.masks[0].polygons, ElementsAre(ElementsAre(8, 4.5, 26, 4.5, 26, 12)));
  // Polygons are not clipped (the reference's SegmentationMask has no clip).
  EXPECT_THAT(targets.masks[1].polygons, ElementsAre(ElementsAre(70, 30, 88, 30, 88, 58.5)));
}

TEST(MaskRcnnTargets, FlipMapsXToWidthLessXLessOne) {
  const coco::Annotations annotations = hand_case();
  HostTargets targets;
  transform_targets(annotations, annotations.images[0], ImageSize{45, 80}, true, targets);
  EXPECT_TRUE(targets.flipped);
  EXPECT_THAT(targets.labels, ElementsAre(3, 2));
  // x1' = 80 - x2 - 1, x2' = 80 - x1 - 1.
  EXPECT_THAT(targets.boxes_ltrb, ElementsAre(53, 4.5, 71, 12, 1, 30, 9, 43.5));
  EXPECT_THAT(targets.masks[0].polygons, ElementsAre(ElementsAre(71, 4.5, 53, 4.5, 53, 12)));
  EXPECT_THAT(targets.masks[1].polygons, ElementsAre(ElementsAre(9, 30, -9, 30, -9, 58.5)));
}

TEST(MaskRcnnTargets, ArithmeticIsFloat32AsTheReference) {
  // 640 x 480 -> 1066 x 800: ratio_x = 1066 / 640 in float32 (1.665625 exactly), ratio_y = 800 / 480
  // rounded to float32.
  const coco::Annotations annotations = one_image(640, 480, {object(1, 1, 100.3, 50.7, 20.2, 30.9)});
  HostTargets targets;
  transform_targets(annotations, annotations.images[0], ImageSize{800, 1066}, true, targets);
  const float ratio_x = static_cast<float>(1066.0 / 640.0);
  const float ratio_y = static_cast<float>(800.0 / 480.0);
  volatile float x = 100.3f, y = 50.7f, w = 20.2f, h = 30.9f;  // no contraction, no double
  const float x2 = x + (w - 1.0f);
  const float y2 = y + (h - 1.0f);
  const float sx1 = x * ratio_x, sx2 = x2 * ratio_x, sy1 = y * ratio_y, sy2 = y2 * ratio_y;
  const float fx1 = (1066.0f - sx2) - 1.0f, fx2 = (1066.0f - sx1) - 1.0f;
  EXPECT_THAT(targets.boxes_ltrb, ElementsAre(fx1, sy1, fx2, sy2));
}

TEST(MaskRcnnTargets, RlePolygonsAndEmptySegmentations) {
  coco::Annotation rle = object(9, 1, 2, 2, 10, 10);
  rle.segmentation.kind = coco::Segmentation::Kind::kRle;
  rle.segmentation.polygons.clear();
  coco::Annotation none = object(10, 2, 2, 2, 10, 10);
  none.segmentation.kind = coco::Segmentation::Kind::kNone;
  none.segmentation.polygons.clear();
  coco::Annotation crowd_rle = rle;
  crowd_rle.iscrowd = true;

  coco::Annotations annotations = one_image(20, 20, {none, crowd_rle});
  HostTargets targets;
  transform_targets(annotations, annotations.images[0], ImageSize{20, 20}, false, targets);
  ASSERT_EQ(targets.masks.size(), 1u);  // the crowd's RLE goes with the crowd
  EXPECT_EQ(targets.masks[0].kind, coco::Segmentation::Kind::kNone);

  annotations = one_image(20, 20, {rle});
  EXPECT_THAT(user_error_of([&] {
                transform_targets(annotations, annotations.images[0], ImageSize{20, 20}, false, targets);
              }),
              AllOf(HasSubstr("/data/instances_test.json: annotation id 9 is a non-crowd RLE mask"),
                    Not(HasSubstr("\n"))));
}

TEST(MaskRcnnTargets, TrainingKeepsImagesWithSomeBoxLargerThanOnePixel) {
  coco::Annotations annotations = one_image(20, 20, {object(1, 1, 0, 0, 5, 5)});  // 0: kept
  const auto add_image = [&](const std::vector<coco::Annotation>& objects) {
    const coco::Annotations more = one_image(20, 20, objects);
    coco::Image image = more.images[0];
    image.id = 100 + static_cast<int64_t>(annotations.images.size());
    for (int32_t& a : image.annotations) {
      annotations.annotations.push_back(more.annotations[static_cast<size_t>(a)]);
      a = static_cast<int32_t>(annotations.annotations.size() - 1);
    }
    annotations.images.push_back(image);
  };
  add_image({});                                                     // 1: no objects
  add_image({object(1, 1, 0, 0, 1, 5), object(2, 1, 3, 3, 8, 0.5)});  // 2: every box w or h <= 1
  add_image({object(1, 1, 0, 0, 6, 6, true)});                       // 3: a crowd only: kept (v0.7)
  add_image({object(1, 1, 0, 0, 1, 1), object(2, 1, 0, 0, 1.5, 2)});  // 4: one box above 1 x 1
  EXPECT_THAT(training_image_indices(annotations), ElementsAre(0, 3, 4));
}

TEST(MaskRcnnTargets, TargetsOnTheDevice) {
  HostTargets target;
  target.boxes_ltrb = {1, 2, 3, 4, 5, 6, 7, 8};
  target.labels = {4, 2};
  target.masks.resize(2);
  target.masks[1].kind = coco::Segmentation::Kind::kPolygons;
  target.masks[1].polygons = {{1, 2, 3, 4, 5, 6}};
  const std::vector<ImageTargets> on_device = targets_on_device({target, HostTargets{}}, torch::kCPU);
  ASSERT_EQ(on_device.size(), 2u);
  EXPECT_TRUE(torch::equal(on_device[0].boxes_ltrb, torch::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f}).view({2, 4})));
  EXPECT_TRUE(torch::equal(on_device[0].labels, torch::tensor({int64_t{4}, int64_t{2}})));
  EXPECT_EQ(on_device[0].masks[1].polygons, target.masks[1].polygons);
  EXPECT_EQ(on_device[1].boxes_ltrb.sizes(), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(on_device[1].labels.dtype(), torch::kInt64);
}

// ---- aspect grouping ----

TEST(MaskRcnnGrouping, GroupsAreLandscapeAndTheRest) {
  EXPECT_EQ(aspect_group(640, 480), 0);
  EXPECT_EQ(aspect_group(480, 640), 1);
  EXPECT_EQ(aspect_group(500, 500), 1);  // ratio 1: bisect_right([1], 1) = 1
}

TEST(MaskRcnnGrouping, BatchesFollowTheReferencesOrder) {
  const std::vector<int32_t> group_of = {0, 1, 0, 1, 1, 0, 0, 1};
  const std::vector<int32_t> order = {5, 2, 7, 1, 0, 3, 6, 4};
  EXPECT_THAT(group_batches(order, group_of, 2),
              ElementsAre(ElementsAre(5, 2), ElementsAre(7, 1), ElementsAre(0, 6), ElementsAre(3, 4)));
  // Short runs sort by their first item: 6 stands at 6, 4 at 7.
  EXPECT_THAT(group_batches(order, group_of, 3),
              ElementsAre(ElementsAre(5, 2, 0), ElementsAre(7, 1, 3), ElementsAre(6), ElementsAre(4)));
  EXPECT_THAT(group_batches({}, group_of, 3), ElementsAre());
}

TEST(MaskRcnnGrouping, EveryImageOnceInSingleGroupBatchesSharedOverRanks) {
  const int32_t count = 203;
  std::vector<int32_t> group_of(count);
  std::vector<int32_t> order(count);
  for (int32_t i = 0; i < count; ++i) {
    group_of[static_cast<size_t>(i)] = static_cast<int32_t>(counter_random(3, 0, static_cast<uint64_t>(i)) % 3 == 0);
    order[static_cast<size_t>(i)] = i;
  }
  keyed_shuffle(order, stream_key(5, 1));
  const int64_t batch_size = 16;
  const std::vector<std::vector<int32_t>> batches = group_batches(order, group_of, batch_size);
  EXPECT_LE(batches.size(), static_cast<size_t>((count + batch_size - 1) / batch_size + 1));
  std::vector<int32_t> seen;
  std::map<int32_t, int> short_batches;  // per group
  int64_t previous_first = -1;
  std::vector<int64_t> position(count);
  for (int32_t p = 0; p < count; ++p) position[static_cast<size_t>(order[static_cast<size_t>(p)])] = p;
  for (const std::vector<int32_t>& batch : batches) {
    ASSERT_FALSE(batch.empty());
    ASSERT_LE(static_cast<int64_t>(batch.size()), batch_size);
    const int32_t group = group_of[static_cast<size_t>(batch[0])];
    for (const int32_t item : batch) EXPECT_EQ(group_of[static_cast<size_t>(item)], group);
    if (static_cast<int64_t>(batch.size()) < batch_size) ++short_batches[group];
    EXPECT_GT(position[static_cast<size_t>(batch[0])], previous_first);
    previous_first = position[static_cast<size_t>(batch[0])];
    seen.insert(seen.end(), batch.begin(), batch.end());
  }
  for (const auto& [group, shorts] : short_batches) EXPECT_LE(shorts, 1) << group;
  std::sort(seen.begin(), seen.end());
  std::vector<int32_t> all(count);
  for (int32_t i = 0; i < count; ++i) all[static_cast<size_t>(i)] = i;
  EXPECT_EQ(seen, all);

  // Three shards put together give each global batch back, in order.
  for (size_t b = 0; b < batches.size(); ++b) {
    std::vector<int32_t> joined;
    for (int64_t shard = 0; shard < 3; ++shard) {
      const std::vector<int32_t> share = shard_of(batches[b], shard, 3);
      EXPECT_LE(share.size(), batches[b].size() / 3 + 1);
      joined.insert(joined.end(), share.begin(), share.end());
    }
    EXPECT_EQ(joined, batches[b]);
  }
}

// ---- the loader on synthetic COCO ----

struct SyntheticCoco {
  fs::path images;
  coco::Annotations annotations;
};

SyntheticCoco synthetic_coco(const fs::path& folder) {
  coco::SyntheticCocoSpec spec;
  spec.categories = 3;
  spec.train_images = 7;
  spec.val_images = 1;
  spec.min_side = 40;
  spec.max_side = 96;
  spec.seed = 4;
  coco::write_synthetic_coco(folder.string(), spec);
  return {folder / "train2017", coco::read_annotations((folder / "annotations/instances_train2017.json").string())};
}

MaskRcnnLoaderOptions small_options(bool train, int threads) {
  MaskRcnnLoaderOptions options;
  options.threads = threads;
  options.min_size = 48;
  options.max_size = 80;
  options.train = train;
  options.seed = 11;
  return options;
}

// Image `index` as the loader should give it: OpenCV's bilinear resize, maybe flipped, BGR (or RGB)
// scaled, less the means, over the stds, CHW.
torch::Tensor expected_pixels(const SyntheticCoco& data, int32_t index, const MaskRcnnLoaderOptions& options,
                              bool flip) {
  const coco::Image& image = data.annotations.images[static_cast<size_t>(index)];
  const cv::Mat bgr = cv::imread((data.images / image.file_name).string(), cv::IMREAD_COLOR);
  const ImageSize size = resized_size(image.width, image.height, options.min_size, options.max_size);
  cv::Mat resized;
  cv::resize(bgr, resized, cv::Size(static_cast<int>(size.width), static_cast<int>(size.height)), 0, 0,
             cv::INTER_LINEAR);
  if (flip) cv::flip(resized, resized, 1);
  cv::Mat as_float;
  resized.convertTo(as_float, CV_32FC3);
  torch::Tensor hwc = torch::from_blob(as_float.data, {size.height, size.width, 3}, torch::kFloat32).clone();
  if (options.rgb) hwc = hwc.flip({2});
  const torch::Tensor means = torch::tensor({options.pixel_means[0], options.pixel_means[1], options.pixel_means[2]});
  const torch::Tensor stds = torch::tensor({options.pixel_stds[0], options.pixel_stds[1], options.pixel_stds[2]});
  return ((hwc / 255 * options.pixel_scale - means) / stds).permute({2, 0, 1}).contiguous();
}

std::vector<MaskRcnnBatch> all_batches(const SyntheticCoco& data, const MaskRcnnLoaderOptions& options,
                                       const std::vector<std::vector<int32_t>>& plan, int64_t epoch) {
  MaskRcnnLoader loader(data.annotations, data.images.string(), options);
  loader.start(plan, epoch);
  std::vector<MaskRcnnBatch> batches;
  for (size_t b = 0; b < plan.size(); ++b) batches.push_back(loader.next());
  EXPECT_THROW(loader.next(), InternalError);
  return batches;
}

TEST(MaskRcnnLoader, BatchesArePaddedToMultiplesOf32WithZeros) {
  const fs::path folder = test_folder();
  const SyntheticCoco data = synthetic_coco(folder);
  const MaskRcnnLoaderOptions options = small_options(true, 2);
  const std::vector<std::vector<int32_t>> plan = {{0, 1, 2}, {3}, {4, 5, 6}};
  const std::vector<MaskRcnnBatch> batches = all_batches(data, options, plan, 3);
  std::set<bool> flips;  // the plan holds flipped and unflipped images
  for (const MaskRcnnBatch& batch : batches) {
    for (const HostTargets& target : batch.targets) flips.insert(target.flipped);
  }
  EXPECT_EQ(flips.size(), 2u);
  for (size_t b = 0; b < plan.size(); ++b) {
    const MaskRcnnBatch& batch = batches[b];
    ASSERT_EQ(batch.images.dim(), 4);
    ASSERT_EQ(batch.images.size(0), static_cast<int64_t>(plan[b].size()));
    EXPECT_EQ(batch.images.size(1), 3);
    int64_t max_height = 0, max_width = 0;
    for (size_t i = 0; i < plan[b].size(); ++i) {
      const int32_t index = plan[b][i];
      const coco::Image& image = data.annotations.images[static_cast<size_t>(index)];
      const ImageSize size = resized_size(image.width, image.height, options.min_size, options.max_size);
      EXPECT_EQ(batch.image_sizes[i].height, size.height);
      EXPECT_EQ(batch.image_sizes[i].width, size.width);
      max_height = std::max(max_height, size.height);
      max_width = std::max(max_width, size.width);
      const HostTargets& target = batch.targets[i];
      EXPECT_EQ(target.image_id, image.id);
      EXPECT_EQ(target.width, image.width);
      EXPECT_EQ(target.height, image.height);
      EXPECT_FALSE(target.skipped);
      EXPECT_EQ(target.flipped, draws_flip(options.seed, 3, index));
      HostTargets expected;
      transform_targets(data.annotations, image, size, target.flipped, expected);
      EXPECT_EQ(target.boxes_ltrb, expected.boxes_ltrb);
      EXPECT_EQ(target.labels, expected.labels);
      ASSERT_EQ(target.masks.size(), expected.masks.size());
      EXPECT_GE(target.labels.size(), 1u);
      for (size_t m = 0; m < target.masks.size(); ++m) EXPECT_EQ(target.masks[m].polygons, expected.masks[m].polygons);

      const torch::Tensor padded = batch.images[static_cast<int64_t>(i)];
      const torch::Tensor inside = padded.slice(1, 0, size.height).slice(2, 0, size.width);
      EXPECT_TRUE(torch::allclose(inside, expected_pixels(data, index, options, target.flipped), 0, 1e-4))
          << "image " << index;
      EXPECT_EQ(padded.slice(1, size.height).abs().sum().item<float>(), 0.0f);
      EXPECT_EQ(padded.slice(2, size.width).abs().sum().item<float>(), 0.0f);
    }
    EXPECT_EQ(batch.images.size(2), (max_height + 31) / 32 * 32);
    EXPECT_EQ(batch.images.size(3), (max_width + 31) / 32 * 32);
    EXPECT_EQ(batch.images.size(2) % 32, 0);
  }
}

TEST(MaskRcnnLoader, TorchvisionPixelsAreRgbOnTheUnitScaleNormalised) {
  const fs::path folder = test_folder();
  const SyntheticCoco data = synthetic_coco(folder);
  MaskRcnnLoaderOptions options = small_options(false, 1);
  options.rgb = true;
  options.pixel_scale = 1.0f;
  options.pixel_means = common::kTorchvisionMeanRgb;
  options.pixel_stds = common::kTorchvisionStdRgb;
  const MaskRcnnBatch batch = all_batches(data, options, {{2}}, 0).front();
  const ImageSize size = batch.image_sizes[0];
  const torch::Tensor inside = batch.images[0].slice(1, 0, size.height).slice(2, 0, size.width);
  const torch::Tensor expected = expected_pixels(data, 2, options, false);
  EXPECT_TRUE(torch::allclose(inside, expected, 0, 1e-5));
  // Channel 0 is red: it is not what the default (BGR) order puts first.
  options.rgb = false;
  EXPECT_FALSE(torch::allclose(inside, expected_pixels(data, 2, options, false), 0, 1e-5));
}

TEST(MaskRcnnLoader, ResultsDependOnlyOnSeedEpochAndIndex) {
  const fs::path folder = test_folder();
  const SyntheticCoco data = synthetic_coco(folder);
  const std::vector<std::vector<int32_t>> plan = {{0, 1, 2}, {3, 4}, {5, 6, 0}};
  const std::vector<MaskRcnnBatch> one = all_batches(data, small_options(true, 1), plan, 2);
  const std::vector<MaskRcnnBatch> three = all_batches(data, small_options(true, 3), plan, 2);
  for (size_t b = 0; b < plan.size(); ++b) {
    EXPECT_TRUE(torch::equal(one[b].images, three[b].images));
    for (size_t i = 0; i < plan[b].size(); ++i) {
      EXPECT_EQ(one[b].targets[i].boxes_ltrb, three[b].targets[i].boxes_ltrb);
      EXPECT_EQ(one[b].targets[i].flipped, three[b].targets[i].flipped);
    }
  }
  // Image 0 in batches 0 and 2: the same pixels.
  const ImageSize size = one[0].image_sizes[0];
  EXPECT_TRUE(torch::equal(one[0].images[0].slice(1, 0, size.height).slice(2, 0, size.width),
                           one[2].images[2].slice(1, 0, size.height).slice(2, 0, size.width)));
  // Over a few epochs both flips occur; eval never flips.
  std::set<bool> flips;
  for (int64_t epoch = 0; epoch < 8; ++epoch) flips.insert(draws_flip(11, epoch, 0));
  EXPECT_EQ(flips.size(), 2u);
  for (const MaskRcnnBatch& batch : all_batches(data, small_options(false, 2), plan, 2)) {
    for (const HostTargets& target : batch.targets) EXPECT_FALSE(target.flipped);
  }
}

TEST(MaskRcnnLoader, ImagesWithoutAnnotationsLeaveTraining) {
  const fs::path folder = test_folder();
  SyntheticCoco data = synthetic_coco(folder);
  // Image 2's objects all become 1 pixel wide.
  for (const int32_t a : data.annotations.images[2].annotations) data.annotations.annotations[static_cast<size_t>(a)].w = 1;
  EXPECT_THAT(training_image_indices(data.annotations), ElementsAre(0, 1, 3, 4, 5, 6));
}

TEST(MaskRcnnLoader, CorruptImageFailsItsBatchNamingTheFile) {
  const fs::path folder = test_folder();
  const SyntheticCoco data = synthetic_coco(folder);
  const fs::path bad = data.images / data.annotations.images[1].file_name;
  std::ofstream(bad, std::ios::binary | std::ios::trunc) << "not a jpeg at all";
  MaskRcnnLoader loader(data.annotations, data.images.string(), small_options(true, 2));
  loader.start({{0}, {2, 1}, {3}}, 0);
  EXPECT_EQ(loader.next().targets[0].image_id, data.annotations.images[0].id);
  EXPECT_THAT(user_error_of([&] { loader.next(); }),
              AllOf(HasSubstr(bad.string() + ": not a decodable image"), HasSubstr("on_bad_image: skip"),
                    Not(HasSubstr("\n"))));
  EXPECT_EQ(loader.next().targets[0].image_id, data.annotations.images[3].id);  // the loader moves on
}

TEST(MaskRcnnLoader, BadImagesAreSkippedUnderSkip) {
  const fs::path folder = test_folder();
  const SyntheticCoco data = synthetic_coco(folder);
  const fs::path truncated = data.images / data.annotations.images[1].file_name;
  const std::string jpeg = testing_files::contents_of(truncated);
  std::ofstream(truncated, std::ios::binary | std::ios::trunc) << jpeg.substr(0, jpeg.size() / 2);
  MaskRcnnLoaderOptions options = small_options(true, 2);
  options.on_bad_image = BadSamplePolicy::kSkip;
  MaskRcnnLoader loader(data.annotations, data.images.string(), options);
  loader.start({{0, 1, 2}}, 0);
  const MaskRcnnBatch batch = loader.next();
  EXPECT_EQ(batch.skipped, 1);
  const HostTargets& skipped = batch.targets[1];
  EXPECT_TRUE(skipped.skipped);
  EXPECT_EQ(skipped.image_id, data.annotations.images[1].id);
  EXPECT_TRUE(skipped.boxes_ltrb.empty() && skipped.labels.empty() && skipped.masks.empty());
  const coco::Image& image = data.annotations.images[1];
  const ImageSize size = resized_size(image.width, image.height, options.min_size, options.max_size);
  EXPECT_EQ(batch.image_sizes[1].height, size.height);
  EXPECT_EQ(batch.image_sizes[1].width, size.width);
  EXPECT_EQ(batch.images[1].abs().sum().item<float>(), 0.0f);
  EXPECT_FALSE(batch.targets[0].skipped);
  EXPECT_FALSE(batch.targets[2].skipped);
  EXPECT_EQ(loader.skipped_total(), 1);
  EXPECT_THAT(loader.skipped_files(), ElementsAre(truncated.string()));
}

TEST(MaskRcnnLoader, OptionsOutOfRangeAreUserErrors) {
  const fs::path folder = test_folder();
  const coco::Annotations annotations = one_image(8, 8, {object(1, 1, 1, 1, 4, 4)});
  MaskRcnnLoaderOptions options = small_options(true, 1);
  options.min_size = 0;
  EXPECT_THAT(user_error_of([&] { MaskRcnnLoader loader(annotations, folder.string(), options); }),
              HasSubstr("maskrcnn loader: min_size is 0"));
  options = small_options(true, 0);
  EXPECT_THAT(user_error_of([&] { MaskRcnnLoader loader(annotations, folder.string(), options); }),
              HasSubstr("maskrcnn loader: threads is 0"));
  options = small_options(true, 1);
  options.size_divisibility = 0;
  EXPECT_THAT(user_error_of([&] { MaskRcnnLoader loader(annotations, folder.string(), options); }),
              HasSubstr("size_divisibility is 0"));
  options = small_options(true, 1);
  options.pixel_scale = 0.0f;
  EXPECT_THAT(user_error_of([&] { MaskRcnnLoader loader(annotations, folder.string(), options); }),
              HasSubstr("pixel_scale is 0"));
}

}  // namespace
}  // namespace mlh::maskrcnn
