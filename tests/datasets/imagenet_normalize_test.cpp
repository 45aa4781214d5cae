// The loader's 8-bit path against the float path it replaced: the same pixels once normalised.
#include "datasets/imagenet/normalize.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <numeric>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/torch.h>

#include "datasets/image_files.h"
#include "datasets/imagenet/batch_loader.h"
#include "datasets/imagenet/folder.h"
#include "datasets/imagenet/synthetic.h"
#include "datasets/imagenet/transforms.h"
#include "tests/test_files.h"

namespace mlh::imagenet {
namespace {

namespace fs = std::filesystem;

constexpr int kImageSize = 48;

// The float path as the loader ran it before its output became 8-bit: the crop resized by OpenCV on
// 8-bit pixels, then written as float RGB planes minus the mean, the flip applied while writing.
std::vector<float> float_path_train(const cv::Mat& bgr, const CropBox& box, bool flip, int size) {
  cv::Mat resized;
  cv::resize(bgr(cv::Rect(box.x, box.y, box.width, box.height)), resized, cv::Size(size, size), 0, 0,
             cv::INTER_LINEAR);
  std::vector<float> chw(static_cast<size_t>(3 * size * size));
  const size_t plane = static_cast<size_t>(size) * size;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const uint8_t* pixel = resized.ptr<uint8_t>(y) + 3 * (flip ? size - 1 - x : x);
      const size_t at = static_cast<size_t>(y) * size + x;
      chw[at] = static_cast<float>(pixel[2]) - kMeanRgb[0];
      chw[plane + at] = static_cast<float>(pixel[1]) - kMeanRgb[1];
      chw[2 * plane + at] = static_cast<float>(pixel[0]) - kMeanRgb[2];
    }
  }
  return chw;
}

TEST(NormalizeImages, GivesNormalizeToChwsFloatsBitForBit) {
  const int64_t count = 3, size = 8;  // 576 bytes
  torch::Tensor bytes = torch::randint(0, 256, {count, size, size, 3}, torch::kByte);
  bytes.view({-1}).narrow(0, 0, 256).copy_(torch::arange(256).to(torch::kByte));  // every byte value
  const torch::Tensor images = normalize_images(bytes).contiguous();
  ASSERT_EQ(images.sizes(), (std::vector<int64_t>{count, 3, size, size}));
  ASSERT_EQ(images.scalar_type(), torch::kFloat);
  std::vector<float> expected(static_cast<size_t>(3 * size * size));
  for (int64_t i = 0; i < count; ++i) {
    normalize_to_chw(bytes[i].data_ptr<uint8_t>(), static_cast<int>(size), expected.data());
    EXPECT_EQ(std::memcmp(images[i].data_ptr<float>(), expected.data(), expected.size() * sizeof(float)), 0)
        << "image " << i;
  }
}

// A loader batch (full-size decodes, so that the float path saw the same decoded pixels), through
// normalize_images, equals the float path's output bit for bit: both are float(byte) - mean of the
// same bytes of the same resize.
TEST(NormalizeImages, TheLoadersBytesNormalisedAreTheFloatPathsPixels) {
  const fs::path root = testing_files::fresh_test_folder("mlh_imagenet_normalize_test");
  SyntheticImageNetSpec spec;
  spec.classes = 2;
  spec.train_images_per_class = 5;
  spec.val_images_per_class = 1;
  spec.min_side = 60;
  spec.max_side = 200;
  write_synthetic_imagenet(root.string(), spec);
  const ImageFolder folder =
      scan_image_folder((root / "train").string(), read_class_index((root / kClassIndexFileName).string()));
  LoaderOptions options;
  options.threads = 2;
  options.image_size = kImageSize;
  options.seed = 3;
  options.reduced_decode = false;
  BatchLoader loader(folder, options);
  std::vector<int32_t> indices(static_cast<size_t>(folder.size()));
  std::iota(indices.begin(), indices.end(), 0);
  const int64_t epoch = 2;
  loader.start({indices}, epoch);
  const ImageBatch batch = loader.next();
  const int64_t count = batch.count;
  const torch::Tensor bytes =
      torch::from_blob(const_cast<uint8_t*>(batch.images.data()), {count, kImageSize, kImageSize, 3}, torch::kByte);
  const torch::Tensor images = normalize_images(bytes).contiguous();
  for (int64_t i = 0; i < count; ++i) {
    const int32_t index = indices[static_cast<size_t>(i)];
    const cv::Mat bgr = read_image_file(folder.files[static_cast<size_t>(index)], "");
    const TrainAugmentation augmentation =
        draw_train_augmentation(bgr.cols, bgr.rows, options.seed, epoch, index, true);
    const std::vector<float> expected = float_path_train(bgr, augmentation.crop, augmentation.flip, kImageSize);
    EXPECT_EQ(std::memcmp(images[i].data_ptr<float>(), expected.data(), expected.size() * sizeof(float)), 0)
        << "index " << index;
  }
}

}  // namespace
}  // namespace mlh::imagenet
