#include "datasets/imagenet/batch_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/user_error.h"
#include "tests/test_files.h"
#include "datasets/imagenet/folder.h"
#include "datasets/imagenet/synthetic.h"
#include "datasets/imagenet/transforms.h"

namespace mlh::imagenet {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kImageSize = 32;
constexpr int64_t kImageBytes = 3 * kImageSize * kImageSize;

using testing_files::contents_of;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_imagenet_loader_test"); }

void write_raw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A small synthetic ImageNet (3 classes x 4 train images) in this test's own folder.
ImageFolder small_train_folder(const fs::path& root) {
  SyntheticImageNetSpec spec;
  spec.classes = 3;
  spec.train_images_per_class = 4;
  spec.val_images_per_class = 1;
  spec.min_side = 40;
  spec.max_side = 72;
  write_synthetic_imagenet(root.string(), spec);
  return scan_image_folder((root / "train").string(),
                           read_class_index((root / kClassIndexFileName).string()));
}

LoaderOptions small_options(int threads) {
  LoaderOptions options;
  options.threads = threads;
  options.prefetch_batches = 2;
  options.image_size = kImageSize;
  options.eval_resize = 40;
  options.seed = 17;
  return options;
}

std::vector<int32_t> all_indices(const ImageFolder& folder) {
  std::vector<int32_t> indices(folder.size());
  std::iota(indices.begin(), indices.end(), 0);
  return indices;
}

// Cuts `order` into consecutive batches of the given sizes (the last takes the rest).
std::vector<std::vector<int32_t>> cut(const std::vector<int32_t>& order,
                                      const std::vector<size_t>& sizes) {
  std::vector<std::vector<int32_t>> batches;
  size_t begin = 0;
  for (size_t b = 0; begin < order.size(); ++b) {
    const size_t size = b < sizes.size() ? sizes[b] : order.size() - begin;
    const size_t end = std::min(order.size(), begin + size);
    batches.emplace_back(order.begin() + begin, order.begin() + end);
    begin = end;
  }
  return batches;
}

// Sample index -> its output pixels, over a whole plan.
std::map<int32_t, std::vector<uint8_t>> run_plan(BatchLoader& loader,
                                               const std::vector<std::vector<int32_t>>& plan,
                                               int64_t epoch) {
  loader.start(plan, epoch);
  std::map<int32_t, std::vector<uint8_t>> pixels;
  for (const std::vector<int32_t>& indices : plan) {
    const ImageBatch batch = loader.next();
    EXPECT_EQ(batch.count, static_cast<int64_t>(indices.size()));
    EXPECT_EQ(batch.images.size(), indices.size() * kImageBytes);
    for (size_t j = 0; j < indices.size(); ++j) {
      pixels[indices[j]].assign(batch.images.begin() + j * kImageBytes,
                                batch.images.begin() + (j + 1) * kImageBytes);
    }
  }
  return pixels;
}

int reduced_color_flag(int reduction) {
  switch (reduction) {
    case 2: return cv::IMREAD_REDUCED_COLOR_2;
    case 4: return cv::IMREAD_REDUCED_COLOR_4;
    case 8: return cv::IMREAD_REDUCED_COLOR_8;
  }
  return cv::IMREAD_COLOR;
}

// The whole image as OpenCV decodes it at 1/reduction.
ReducedImage whole_decode(const std::string& path, int reduction) {
  ReducedImage image;
  image.bgr = cv::imread(path, reduced_color_flag(reduction));
  const cv::Mat full = cv::imread(path, cv::IMREAD_COLOR);
  image.original_width = full.cols;
  image.original_height = full.rows;
  image.reduction = reduction;
  return image;
}

std::string user_error_from_next(BatchLoader& loader) {
  try {
    loader.next();
  } catch (const UserError& error) {
    return error.what();
  }
  ADD_FAILURE() << "next() threw no UserError";
  return "";
}

TEST(ParseBadImagePolicy, KnowsFailAndSkip) {
  EXPECT_EQ(parse_bad_image_policy("fail"), BadImagePolicy::kFail);
  EXPECT_EQ(parse_bad_image_policy("skip"), BadImagePolicy::kSkip);
  try {
    parse_bad_image_policy("ignore");
    ADD_FAILURE() << "no UserError";
  } catch (const UserError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("'ignore'"), HasSubstr("fail or skip")));
  }
}

TEST(BatchLoader, RejectsOptionsOutOfRange) {
  const ImageFolder folder = small_train_folder(test_folder());
  LoaderOptions options = small_options(0);
  EXPECT_THROW(BatchLoader(folder, options), UserError);
  options = small_options(1);
  options.prefetch_batches = 0;
  EXPECT_THROW(BatchLoader(folder, options), UserError);
  options = small_options(1);
  options.train = false;
  options.eval_resize = kImageSize - 1;
  EXPECT_THROW(BatchLoader(folder, options), UserError);
}

TEST(BatchLoader, DeliversBatchesInPlanOrderWithTheirLabels) {
  const ImageFolder folder = small_train_folder(test_folder());
  BatchLoader loader(folder, small_options(3));
  const std::vector<std::vector<int32_t>> plan = {{5, 0}, {11, 3, 7}, {2}, {}, {8, 9, 10, 1}};
  loader.start(plan, 0);
  for (const std::vector<int32_t>& indices : plan) {
    const ImageBatch batch = loader.next();
    ASSERT_EQ(batch.count, static_cast<int64_t>(indices.size()));
    ASSERT_EQ(batch.labels.size(), indices.size());
    EXPECT_EQ(batch.images.size(), indices.size() * kImageBytes);
    EXPECT_EQ(batch.skipped, 0);
    for (size_t j = 0; j < indices.size(); ++j) {
      EXPECT_EQ(batch.labels[j], folder.labels[indices[j]]) << "index " << indices[j];
    }
  }
  EXPECT_THROW(loader.next(), InternalError);
  EXPECT_EQ(loader.skipped_total(), 0);
}

TEST(BatchLoader, TrainOutputIsTheTransformOfTheDecodedFile) {
  const ImageFolder folder = small_train_folder(test_folder());
  const LoaderOptions options = small_options(2);
  BatchLoader loader(folder, options);
  const int64_t epoch = 4;
  const std::map<int32_t, std::vector<uint8_t>> pixels = run_plan(loader, {{6, 1, 10}}, epoch);
  for (const auto& [index, got] : pixels) {
    const cv::Mat bgr = cv::imread(folder.files[index], cv::IMREAD_COLOR);
    const TrainAugmentation augmentation =
        draw_train_augmentation(bgr.cols, bgr.rows, options.seed, epoch, index, true);
    const int reduction = train_reduction(augmentation.crop, kImageSize);
    std::vector<uint8_t> expected(kImageBytes);
    train_transform(whole_decode(folder.files[index], reduction), augmentation.crop, augmentation.flip, kImageSize,
                    expected.data());
    EXPECT_EQ(got, expected) << "index " << index;
  }
}

// Images of 120 to 400 pixels a side at output size 32: crops of 64 pixels or more decode at 1/2,
// of 128 at 1/4, of 256 at 1/8. The crop is drawn from the full size; only the decode is reduced.
TEST(BatchLoader, TrainOutputIsTheTransformOfTheDecodeReducedAsTheCropAllows) {
  const fs::path root = test_folder();
  SyntheticImageNetSpec spec;
  spec.classes = 2;
  spec.train_images_per_class = 8;
  spec.val_images_per_class = 1;
  spec.min_side = 120;
  spec.max_side = 400;
  write_synthetic_imagenet(root.string(), spec);
  const ImageFolder folder =
      scan_image_folder((root / "train").string(), read_class_index((root / kClassIndexFileName).string()));
  LoaderOptions options = small_options(2);
  for (const bool reduced : {true, false}) {
    options.reduced_decode = reduced;
    BatchLoader loader(folder, options);
    const int64_t epoch = 1;
    const std::map<int32_t, std::vector<uint8_t>> pixels = run_plan(loader, {all_indices(folder)}, epoch);
    std::map<int, int> reductions;
    for (const auto& [index, got] : pixels) {
      const cv::Mat full = cv::imread(folder.files[index], cv::IMREAD_COLOR);
      const TrainAugmentation augmentation =
          draw_train_augmentation(full.cols, full.rows, options.seed, epoch, index, true);
      const int reduction = reduced ? train_reduction(augmentation.crop, kImageSize) : 1;
      ++reductions[reduction];
      std::vector<uint8_t> expected(kImageBytes);
      train_transform(whole_decode(folder.files[index], reduction), augmentation.crop, augmentation.flip, kImageSize,
                      expected.data());
      EXPECT_EQ(got, expected) << "index " << index << ", reduction " << reduction;
    }
    if (reduced) {
      EXPECT_GE(reductions.size(), 2u) << "the plan should meet more than one reduction";
    }
  }
}

TEST(BatchLoader, EvalOutputIsTheEvalTransformWhateverTheEpoch) {
  const ImageFolder folder = small_train_folder(test_folder());
  LoaderOptions options = small_options(2);
  options.train = false;
  BatchLoader loader(folder, options);
  const std::map<int32_t, std::vector<uint8_t>> epoch0 = run_plan(loader, {{0, 4}, {9}}, 0);
  const std::map<int32_t, std::vector<uint8_t>> epoch5 = run_plan(loader, {{9, 0, 4}}, 5);
  EXPECT_EQ(epoch0, epoch5);
  for (const auto& [index, got] : epoch0) {
    const cv::Mat bgr = cv::imread(folder.files[index], cv::IMREAD_COLOR);
    std::vector<uint8_t> expected(kImageBytes);
    eval_transform(bgr, options.eval_resize, kImageSize, expected.data());
    EXPECT_EQ(got, expected) << "index " << index;
  }
}

TEST(BatchLoader, SamplesDependOnlyOnSeedEpochAndIndex) {
  const ImageFolder folder = small_train_folder(test_folder());
  std::vector<int32_t> order = all_indices(folder);
  BatchLoader one_thread(folder, small_options(1));
  const auto reference = run_plan(one_thread, cut(order, {4, 4, 4}), 2);

  std::shuffle(order.begin(), order.end(), std::mt19937(5));
  BatchLoader three_threads(folder, small_options(3));
  EXPECT_EQ(run_plan(three_threads, cut(order, {1, 5, 6}), 2), reference);
  EXPECT_EQ(run_plan(three_threads, cut(order, {12}), 2), reference);
  EXPECT_EQ(run_plan(one_thread, cut(order, {3, 2, 7}), 2), reference);

  const auto other_epoch = run_plan(three_threads, cut(order, {6, 6}), 3);
  int differing = 0;
  for (const auto& [index, pixels] : reference) differing += other_epoch.at(index) != pixels;
  EXPECT_GE(differing, 10) << "different epochs should give different crops";

  LoaderOptions other_seed_options = small_options(2);
  other_seed_options.seed = 18;
  BatchLoader other_seed(folder, other_seed_options);
  const auto other_seed_pixels = run_plan(other_seed, cut(order, {12}), 2);
  differing = 0;
  for (const auto& [index, pixels] : reference) differing += other_seed_pixels.at(index) != pixels;
  EXPECT_GE(differing, 10);
}

// The folder with files[1] replaced by random bytes and files[6] by the first half of a JPEG.
struct DamagedFolder {
  ImageFolder folder;
  std::string corrupt;
  std::string truncated;
};

DamagedFolder damaged_folder(const fs::path& root) {
  DamagedFolder damaged{small_train_folder(root), "", ""};
  damaged.corrupt = damaged.folder.files[1];
  damaged.truncated = damaged.folder.files[6];
  std::mt19937 generator(7);
  std::string noise(3000, '\0');
  for (char& byte : noise) byte = static_cast<char>(generator());
  write_raw(damaged.corrupt, noise);
  const std::string jpeg = contents_of(damaged.truncated);
  write_raw(damaged.truncated, jpeg.substr(0, jpeg.size() / 2));
  return damaged;
}

TEST(BatchLoader, CorruptFileFailsNamingTheFile) {
  const DamagedFolder damaged = damaged_folder(test_folder());
  BatchLoader loader(damaged.folder, small_options(2));
  loader.start({{0, 1, 2}, {3}}, 0);
  EXPECT_THAT(user_error_from_next(loader),
              AllOf(HasSubstr(damaged.corrupt), HasSubstr("not a decodable image"),
                    HasSubstr("on_bad_image: skip")));
  // The failed batch is dropped; the plan goes on.
  EXPECT_THAT(loader.next().labels, ElementsAre(damaged.folder.labels[3]));
}

// Found by fuzz/fuzz_image.cpp: "DICM" at byte 128 sends cv::imdecode to GDCM's DICOM reader, which
// aborted the process on this file. Only JPEG and PNG reach a decoder.
TEST(BatchLoader, AFileOfAnotherFormatFailsNamingTheFileWithoutReachingADecoder) {
  const DamagedFolder damaged = damaged_folder(test_folder());
  write_raw(damaged.corrupt, std::string(128, '\xda') + "DICM\xe0" "F\x01");  // a DICOM preamble, then junk
  BatchLoader loader(damaged.folder, small_options(1));
  loader.start({{1}}, 0);
  EXPECT_THAT(user_error_from_next(loader),
              AllOf(HasSubstr(damaged.corrupt), HasSubstr("not a decodable image (neither JPEG nor PNG)")));
}

TEST(BatchLoader, TruncatedJpegFailsNamingTheFile) {
  const DamagedFolder damaged = damaged_folder(test_folder());
  BatchLoader loader(damaged.folder, small_options(1));
  loader.start({{6}}, 0);
  EXPECT_THAT(user_error_from_next(loader),
              AllOf(HasSubstr(damaged.truncated), HasSubstr("truncated JPEG"),
                    HasSubstr("on_bad_image: skip")));
}

// Every prefix of a JPEG, baseline and progressive, as it is (no end-of-image marker) and with the
// marker appended so that libjpeg meets the cut-off data itself, decoded by four threads at once.
// Each either decodes or fails with a UserError naming its file; none may take the process down.
TEST(BatchLoader, JpegCutAnywhereFailsNamingTheFileOrDecodes) {
  const fs::path root = test_folder();
  const ImageFolder source = small_train_folder(root / "source");
  const cv::Mat image = cv::imread(source.files[0], cv::IMREAD_COLOR);
  ASSERT_FALSE(image.empty());
  cv::Mat large;
  cv::resize(image, large, cv::Size(160, 120));
  ImageFolder folder;
  folder.split_dir = (root / "cut").string();
  folder.class_ids = {"n00000000"};
  fs::create_directories(folder.split_dir);
  std::vector<bool> has_end_marker;
  for (const int progressive : {0, 1}) {
    std::vector<uint8_t> encoded;
    ASSERT_TRUE(cv::imencode(".jpg", large, encoded,
                             {cv::IMWRITE_JPEG_QUALITY, 90, cv::IMWRITE_JPEG_PROGRESSIVE, progressive}));
    const std::string jpeg(encoded.begin(), encoded.end());
    const size_t step = std::max<size_t>(1, jpeg.size() / 40);
    for (size_t length = 0; length < jpeg.size() - 2; length += step) {
      for (const bool append_marker : {false, true}) {
        const std::string path = (fs::path(folder.split_dir) /
                                  ("p" + std::to_string(progressive) + "_" + std::to_string(length) +
                                   (append_marker ? "_eoi" : "") + ".jpg"))
                                     .string();
        write_raw(path, jpeg.substr(0, length) + (append_marker ? "\xFF\xD9" : ""));
        folder.files.push_back(path);
        folder.labels.push_back(0);
        has_end_marker.push_back(append_marker);
      }
    }
  }
  std::vector<std::vector<int32_t>> plan;
  for (int32_t i = 0; i < static_cast<int32_t>(folder.size()); ++i) plan.push_back({i});
  for (const bool train : {true, false}) {
    LoaderOptions options = small_options(4);
    options.train = train;
    BatchLoader loader(folder, options);
    loader.start(plan, 0);
    int64_t failed = 0;
    for (int32_t i = 0; i < static_cast<int32_t>(folder.size()); ++i) {
      const std::string& path = folder.files[static_cast<size_t>(i)];
      try {
        const ImageBatch batch = loader.next();
        EXPECT_TRUE(has_end_marker[static_cast<size_t>(i)]) << path << " decoded without an end marker";
        EXPECT_EQ(batch.labels, std::vector<int64_t>{0});
      } catch (const UserError& error) {
        ++failed;
        EXPECT_THAT(error.what(), HasSubstr(path));
      }
    }
    // At least every prefix without its end marker fails.
    EXPECT_GE(failed, static_cast<int64_t>(std::count(has_end_marker.begin(), has_end_marker.end(), false)));
  }
}

TEST(BatchLoader, MissingFileFailsNamingTheFile) {
  ImageFolder folder = small_train_folder(test_folder());
  fs::remove(folder.files[2]);
  BatchLoader loader(folder, small_options(1));
  loader.start({{2}}, 0);
  EXPECT_THAT(user_error_from_next(loader),
              AllOf(HasSubstr(folder.files[2]), HasSubstr("cannot be read")));
}

TEST(BatchLoader, SkipPolicyZeroesAndCountsBadImages) {
  const DamagedFolder damaged = damaged_folder(test_folder());
  LoaderOptions options = small_options(3);
  options.on_bad_image = BadImagePolicy::kSkip;
  BatchLoader loader(damaged.folder, options);
  // Recycled buffers full of pixels first: the skipped slots must still come back zero.
  loader.start({{0, 2, 3, 4}, {5, 7, 8, 9}}, 0);
  loader.recycle(loader.next());
  loader.recycle(loader.next());
  loader.start({{0, 6, 1, 2}, {1}, {3}}, 0);

  const ImageBatch first = loader.next();
  EXPECT_EQ(first.skipped, 2);
  EXPECT_THAT(first.labels, ElementsAre(damaged.folder.labels[0], -1, -1, damaged.folder.labels[2]));
  for (const int slot : {1, 2}) {
    const auto begin = first.images.begin() + slot * kImageBytes;
    EXPECT_TRUE(std::all_of(begin, begin + kImageBytes, [](uint8_t v) { return v == 0; }));
  }
  const auto good = first.images.begin();
  EXPECT_FALSE(std::all_of(good, good + kImageBytes, [](uint8_t v) { return v == 0; }));

  EXPECT_EQ(loader.next().skipped, 1);
  EXPECT_EQ(loader.next().skipped, 0);
  EXPECT_EQ(loader.skipped_total(), 3);
  EXPECT_THAT(loader.skipped_files(), ElementsAre(damaged.truncated, damaged.corrupt, damaged.corrupt));
}

TEST(BatchLoader, RecycledBuffersGiveTheSameBatches) {
  const ImageFolder folder = small_train_folder(test_folder());
  const std::vector<int32_t> order = all_indices(folder);
  BatchLoader fresh(folder, small_options(2));
  BatchLoader recycling(folder, small_options(3));
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    const auto plan = cut(order, {5, 5, 2});
    fresh.start(plan, epoch);
    recycling.start(plan, epoch);
    for (size_t b = 0; b < plan.size(); ++b) {
      const ImageBatch expected = fresh.next();
      ImageBatch got = recycling.next();
      EXPECT_EQ(got.images, expected.images) << "epoch " << epoch << " batch " << b;
      EXPECT_EQ(got.labels, expected.labels);
      recycling.recycle(std::move(got));
    }
  }
}

TEST(BatchLoader, NextIntoWritesTheBatchIntoTheCallersMemory) {
  const DamagedFolder damaged = damaged_folder(test_folder());
  LoaderOptions options = small_options(3);
  options.on_bad_image = BadImagePolicy::kSkip;
  BatchLoader reference(damaged.folder, options);
  BatchLoader loader(damaged.folder, options);
  const std::vector<std::vector<int32_t>> plan = {{0, 1, 2}, {}, {3, 6, 4, 5}};
  reference.start(plan, 3);
  loader.start(plan, 3);
  for (const std::vector<int32_t>& indices : plan) {
    const ImageBatch expected = reference.next();
    std::vector<uint8_t> images;
    const ImageBatch got = loader.next_into([&](int64_t count) {
      EXPECT_EQ(count, static_cast<int64_t>(indices.size()));
      images.assign(static_cast<size_t>(count * kImageBytes), 1);  // not zeros: skipped slots too are written
      return images.data();
    });
    EXPECT_TRUE(got.images.empty());
    EXPECT_EQ(images, expected.images);
    EXPECT_EQ(got.count, expected.count);
    EXPECT_EQ(got.labels, expected.labels);
    EXPECT_EQ(got.skipped, expected.skipped);
  }
  EXPECT_EQ(loader.skipped_total(), 2);
}

// With an allocator the workers decode into the memory it gives (filled with 7s here, as reused
// pinned memory would be), and next_in_place hands that memory over: the same pixels as next(),
// skipped slots zeroed, a fresh block per batch, and a batch whose every image was skipped too.
TEST(BatchLoader, NextInPlaceHandsOverTheAllocatorsMemoryWithTheSamePixels) {
  const DamagedFolder damaged = damaged_folder(test_folder());
  LoaderOptions options = small_options(3);
  options.on_bad_image = BadImagePolicy::kSkip;
  BatchLoader reference(damaged.folder, options);
  std::atomic<int> blocks{0};
  options.allocate_pixels = [&](int64_t values) {
    ++blocks;
    auto block = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(values), 7);
    return BatchBytes::Memory{block->data(), block};
  };
  BatchLoader loader(damaged.folder, options);
  const std::vector<std::vector<int32_t>> plan = {{0, 1, 2}, {}, {6}, {3, 6, 4, 5}};
  reference.start(plan, 3);
  loader.start(plan, 3);
  std::vector<const uint8_t*> seen;
  std::vector<std::shared_ptr<void>> held;  // blocks kept alive, so a freed address cannot come back
  for (const std::vector<int32_t>& indices : plan) {
    const ImageBatch expected = reference.next();
    const ImageBatch got = loader.next_in_place();
    EXPECT_TRUE(got.images.empty());
    EXPECT_EQ(got.count, static_cast<int64_t>(indices.size()));
    EXPECT_EQ(got.labels, expected.labels);
    EXPECT_EQ(got.skipped, expected.skipped);
    if (indices.empty()) {
      EXPECT_EQ(got.memory.values, nullptr);
      continue;
    }
    ASSERT_NE(got.memory.values, nullptr);
    const std::vector<uint8_t> pixels(got.memory.values, got.memory.values + got.count * kImageBytes);
    EXPECT_EQ(pixels, expected.images);
    EXPECT_EQ(std::find(seen.begin(), seen.end(), got.memory.values), seen.end()) << "a block handed over twice";
    seen.push_back(got.memory.values);
    held.push_back(got.memory.owner);
  }
  EXPECT_EQ(loader.skipped_total(), 3);
  EXPECT_GE(blocks.load(), 3);  // one per batch with images (an all-skipped batch may take two)
}

// next_in_place is for a loader given an allocator.
TEST(BatchLoader, NextInPlaceWithoutAnAllocatorIsAnInternalError) {
  const ImageFolder folder = small_train_folder(test_folder());
  BatchLoader loader(folder, small_options(1));
  loader.start({{0}}, 0);
  EXPECT_THROW(loader.next_in_place(), InternalError);
}

TEST(BatchLoader, JpegWithTrailingZeroPaddingIsNotTruncated) {
  ImageFolder folder = small_train_folder(test_folder());
  const std::string jpeg = contents_of(folder.files[4]);
  write_raw(folder.files[4], jpeg + std::string(300, '\0'));
  BatchLoader loader(folder, small_options(1));
  loader.start({{4}}, 0);
  EXPECT_EQ(loader.next().skipped, 0);
}

TEST(BatchLoader, StartAgainMidPlanReplacesThePlan) {
  const ImageFolder folder = small_train_folder(test_folder());
  const std::vector<int32_t> order = all_indices(folder);
  BatchLoader fresh(folder, small_options(2));
  const auto expected = run_plan(fresh, cut(order, {5, 7}), 1);

  BatchLoader loader(folder, small_options(3));
  loader.start(cut(order, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), 0);
  loader.next();
  loader.next();
  EXPECT_EQ(run_plan(loader, cut(order, {5, 7}), 1), expected);
  // And again, before anything of the plan was taken.
  loader.start(cut(order, {12}), 0);
  EXPECT_EQ(run_plan(loader, cut(order, {5, 7}), 1), expected);
}

TEST(BatchLoader, DestructionMidPlanStopsTheWorkers) {
  const ImageFolder folder = small_train_folder(test_folder());
  std::vector<std::vector<int32_t>> plan(50, all_indices(folder));
  for (int taken = 0; taken < 3; ++taken) {
    auto loader = std::make_unique<BatchLoader>(folder, small_options(3));
    loader->start(plan, 0);
    for (int b = 0; b < taken; ++b) EXPECT_EQ(loader->next().count, folder.size());
    loader.reset();  // must return, with workers mid-batch
  }
  BatchLoader never_started(folder, small_options(2));
}

}  // namespace
}  // namespace mlh::imagenet
