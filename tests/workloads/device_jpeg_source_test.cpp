// `decoder: gpu` where no GPU is: the tensor transforms against OpenCV's, DeviceJpegSource driven by a
// decoder that runs on the CPU (OpenCV's, standing in for nvJPEG) against JpegFolderSource, the CPU's
// share of its work, the fallback note, and where nvJPEG is looked for. tests/cuda has nvJPEG itself.
#include "workloads/resnet/device_jpeg_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/torch.h>

#include "base/user_error.h"
#include "datasets/image_files.h"
#include "datasets/imagenet/synthetic.h"
#include "tests/test_files.h"
#include "workloads/resnet/device_transforms.h"
#include "workloads/resnet/image_source.h"

namespace mlh::resnet {
namespace {

namespace fs = std::filesystem;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kSide = 32;

// Decodes on the CPU with OpenCV (libjpeg at full size: the CPU path's pixels); refuses every image
// when asked, or what OpenCV cannot decode.
class OpenCvDecoder final : public DeviceJpegDecoder {
 public:
  explicit OpenCvDecoder(bool refuse_all = false) : refuse_all_(refuse_all) {}
  torch::Device device() const override { return torch::kCPU; }
  torch::Tensor decode(const uint8_t* bytes, size_t size, std::string* why_not) override {
    ++calls;
    cv::Mat bgr;
    if (!refuse_all_) {
      bgr = cv::imdecode(cv::Mat(1, static_cast<int>(size), CV_8UC1, const_cast<uint8_t*>(bytes)),
                         cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
    }
    if (bgr.empty()) {
      *why_not = "refused";
      return {};
    }
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return torch::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, torch::kByte).clone();
  }
  std::string description() const override { return "OpenCV on the CPU"; }
  int calls = 0;

 private:
  bool refuse_all_;
};

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_device_jpeg_source_test"); }

// 3 classes x 4 train images and 1 val image each, 40 to 72 pixels a side.
imagenet::ImageFolder small_folder(const fs::path& root, const std::string& split) {
  imagenet::SyntheticImageNetSpec spec;
  spec.classes = 3;
  spec.train_images_per_class = 4;
  spec.val_images_per_class = 1;
  spec.min_side = 40;
  spec.max_side = 72;
  if (!fs::exists(root / imagenet::kClassIndexFileName)) imagenet::write_synthetic_imagenet(root.string(), spec);
  return imagenet::scan_image_folder((root / split).string(),
                                     imagenet::read_class_index((root / imagenet::kClassIndexFileName).string()));
}

imagenet::LoaderOptions options_for(bool train, bool reduced_decode) {
  imagenet::LoaderOptions options;
  options.threads = 2;
  options.prefetch_batches = 2;
  options.image_size = kSide;
  options.eval_resize = 40;
  options.train = train;
  options.reduced_decode = reduced_decode;
  options.seed = 17;
  return options;
}

std::vector<std::vector<int32_t>> two_batches(int64_t count) {
  std::vector<int32_t> all(static_cast<size_t>(count));
  std::iota(all.begin(), all.end(), 0);
  std::reverse(all.begin(), all.end());
  const auto middle = all.begin() + static_cast<std::ptrdiff_t>(count / 2);
  return {std::vector<int32_t>(all.begin(), middle), std::vector<int32_t>(middle, all.end())};
}

torch::Tensor rgb_tensor(const cv::Mat& bgr) {
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  return torch::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, torch::kByte).clone();
}

int64_t max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kInt) - b.to(torch::kInt)).abs().max().item<int>();
}

// Both sources' batches of the same plan, in order.
std::vector<std::pair<HostBatch, HostBatch>> both(ImageSource& cpu, ImageSource& device, int64_t epoch) {
  const auto plan = two_batches(cpu.size());
  cpu.start(plan, epoch);
  device.start(plan, epoch);
  std::vector<std::pair<HostBatch, HostBatch>> batches;
  for (size_t b = 0; b < plan.size(); ++b) batches.emplace_back(cpu.next(), device.next());
  return batches;
}

TEST(DeviceTransforms, TrainCropResizeAndFlipFollowOpenCvWithinOneLevel) {
  const imagenet::ImageFolder folder = small_folder(test_folder(), "train");
  int resized = 0, flipped = 0;
  for (int32_t index = 0; index < folder.size(); ++index) {
    const cv::Mat bgr = read_image_file(folder.files[static_cast<size_t>(index)], "");
    const torch::Tensor rgb = rgb_tensor(bgr);
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
      const imagenet::TrainAugmentation a = imagenet::draw_train_augmentation(bgr.cols, bgr.rows, 5, epoch, index, true);
      torch::Tensor expected = torch::empty({kSide, kSide, 3}, torch::kByte);
      imagenet::train_transform(bgr, a.crop, a.flip, kSide, expected.data_ptr<uint8_t>());
      const torch::Tensor got = train_transform_tensor(rgb, a.crop, a.flip, kSide);
      ASSERT_EQ(got.sizes(), expected.sizes());
      EXPECT_LE(max_difference(got, expected), 1) << folder.files[static_cast<size_t>(index)] << " epoch " << epoch;
      // The flip mirrors the columns, exactly.
      EXPECT_TRUE(torch::equal(train_transform_tensor(rgb, a.crop, !a.flip, kSide), got.flip({1})));
      resized += a.crop.width != kSide || a.crop.height != kSide;
      flipped += a.flip;
    }
  }
  EXPECT_GT(resized, 10);
  EXPECT_GT(flipped, 5);
  // A crop of the output's size is copied as it is.
  const torch::Tensor rgb = torch::randint(256, {40, 50, 3}, torch::kByte);
  EXPECT_TRUE(torch::equal(train_transform_tensor(rgb, imagenet::CropBox{3, 4, kSide, kSide}, false, kSide),
                           rgb.narrow(0, 4, kSide).narrow(1, 3, kSide)));
}

TEST(DeviceTransforms, EvalResizeAndCentreCropFollowOpenCvWithinOneLevel) {
  const imagenet::ImageFolder folder = small_folder(test_folder(), "train");
  for (const std::string& file : folder.files) {
    const cv::Mat bgr = read_image_file(file, "");
    torch::Tensor expected = torch::empty({kSide, kSide, 3}, torch::kByte);
    imagenet::eval_transform(bgr, 40, kSide, expected.data_ptr<uint8_t>());
    const torch::Tensor got = eval_transform_tensor(rgb_tensor(bgr), 40, kSide);
    ASSERT_EQ(got.sizes(), expected.sizes());
    EXPECT_LE(max_difference(got, expected), 1) << file;
  }
}

TEST(DeviceJpegSource, BatchesAreTheCpuSourcesWithTheSameCropsFlipsAndLabels) {
  const fs::path root = test_folder();
  for (const bool train : {true, false}) {
    const imagenet::ImageFolder folder = small_folder(root, train ? "train" : "val");
    auto decoder = std::make_shared<OpenCvDecoder>();
    JpegFolderSource cpu(folder, options_for(train, /*reduced_decode=*/false), 1);
    DeviceJpegSource device(folder, options_for(train, false), 1, decoder);
    EXPECT_EQ(device.size(), cpu.size());
    EXPECT_EQ(device.image_size(), kSide);
    for (const auto& [expected, got] : both(cpu, device, 4)) {
      ASSERT_EQ(got.images.sizes(), expected.images.sizes());
      EXPECT_EQ(got.images.scalar_type(), torch::kByte);
      EXPECT_TRUE(torch::equal(got.labels, expected.labels)) << got.labels << expected.labels;
      EXPECT_LE(max_difference(got.images, expected.images), 1) << (train ? "train" : "eval");
      EXPECT_EQ(device.model_input(got.images).sizes(), cpu.model_input(expected.images).sizes());
    }
    EXPECT_EQ(decoder->calls, folder.size());
    EXPECT_EQ(device.cpu_decoded_images(), 0);
    EXPECT_EQ(device.skipped_images(), 0);
  }
}

TEST(DeviceJpegSource, WhatTheDecoderRefusesTheCpuDecodesWithTheCpuPathsPixels) {
  const imagenet::ImageFolder folder = small_folder(test_folder(), "train");
  JpegFolderSource cpu(folder, options_for(true, /*reduced_decode=*/true), 0);
  DeviceJpegSource device(folder, options_for(true, true), 0, std::make_shared<OpenCvDecoder>(/*refuse_all=*/true));
  for (const auto& [expected, got] : both(cpu, device, 2)) {
    EXPECT_TRUE(torch::equal(got.images, expected.images));
    EXPECT_TRUE(torch::equal(got.labels, expected.labels));
  }
  EXPECT_EQ(device.cpu_decoded_images(), folder.size());
}

TEST(DeviceJpegSource, APngIsDecodedInTheLoaderThreadsWithTheCpuPathsPixels) {
  const fs::path root = test_folder();
  imagenet::ImageFolder folder = small_folder(root, "train");
  const fs::path jpeg = folder.files[5];
  const cv::Mat bgr = read_image_file(jpeg.string(), "");
  fs::remove(jpeg);
  const fs::path png = fs::path(jpeg).replace_extension(".png");
  ASSERT_TRUE(cv::imwrite(png.string(), bgr));
  folder = small_folder(root, "train");
  auto decoder = std::make_shared<OpenCvDecoder>();
  JpegFolderSource cpu(folder, options_for(true, true), 0);
  DeviceJpegSource device(folder, options_for(true, true), 0, decoder);
  const auto batches = both(cpu, device, 1);
  const torch::Tensor expected = torch::cat({batches[0].first.images, batches[1].first.images});
  const torch::Tensor got = torch::cat({batches[0].second.images, batches[1].second.images});
  const int64_t position = folder.size() - 1 - 5;  // two_batches walks the indices backwards
  EXPECT_TRUE(torch::equal(got[position], expected[position]));
  EXPECT_EQ(decoder->calls, folder.size() - 1);
  EXPECT_EQ(device.cpu_decoded_images(), 1);
}

TEST(DeviceJpegSource, BadImagesFailNamingTheFileOrAreSkippedAndCounted) {
  const imagenet::ImageFolder folder = small_folder(test_folder(), "train");
  // Caught in the loader threads: a truncated file. Caught where the batch is taken: a JPEG whose
  // header gives a size but that holds no image (the decoder refuses it, and so does libjpeg).
  const std::string truncated = testing_files::contents_of(folder.files[2]).substr(0, 200);
  std::ofstream(folder.files[2], std::ios::binary | std::ios::trunc) << truncated;
  const std::string no_image("\xFF\xD8\xFF\xC0\x00\x11\x08\x00\x10\x00\x10\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xFF\xD9", 23);
  std::ofstream(folder.files[7], std::ios::binary | std::ios::trunc) << no_image;
  int width = 0, height = 0;
  ASSERT_TRUE(jpeg_header_size(reinterpret_cast<const uint8_t*>(no_image.data()), no_image.size(), &width, &height));

  for (const int32_t bad : {2, 7}) {
    DeviceJpegSource failing(folder, options_for(true, true), 0, std::make_shared<OpenCvDecoder>());
    failing.start({{0, 1, bad, 3}, {4}}, 0);
    try {
      failing.next();
      ADD_FAILURE() << "no error for " << folder.files[static_cast<size_t>(bad)];
    } catch (const UserError& error) {
      EXPECT_THAT(error.what(), HasSubstr(folder.files[static_cast<size_t>(bad)]));
      EXPECT_THAT(error.what(), HasSubstr("on_bad_image: skip"));
    }
    EXPECT_EQ(failing.next().labels.size(0), 1);  // the next batch comes as usual
  }

  imagenet::LoaderOptions skip = options_for(true, true);
  skip.on_bad_image = imagenet::BadImagePolicy::kSkip;
  DeviceJpegSource skipping(folder, skip, 1, std::make_shared<OpenCvDecoder>());
  ::testing::internal::CaptureStderr();  // the loader threads warn as they meet a bad file
  skipping.start({{0, 2, 7, 3}}, 0);
  const HostBatch batch = skipping.next();
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(warnings, HasSubstr("warning: skipping " + folder.files[2]));
  EXPECT_THAT(warnings, HasSubstr("warning: skipping " + folder.files[7]));
  EXPECT_EQ(batch.labels[0].item<int64_t>(), folder.labels[0] + 1);
  EXPECT_EQ(batch.labels[1].item<int64_t>(), -1);
  EXPECT_EQ(batch.labels[2].item<int64_t>(), -1);
  EXPECT_EQ(batch.images[1].count_nonzero().item<int64_t>(), 0);
  EXPECT_EQ(batch.images[2].count_nonzero().item<int64_t>(), 0);
  EXPECT_GT(batch.images[3].count_nonzero().item<int64_t>(), 0);
  EXPECT_EQ(skipping.skipped_images(), 2);
}

TEST(JpegDecoderFor, GpuWithoutAGpuDecoderFallsBackSayingWhyInOneLine) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(jpeg_decoder_for(JpegDecoderKind::kGpu, torch::kCPU, /*announce=*/true), nullptr);
  const std::string note = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(note, StartsWith("mlharness: note: decoder gpu: "));
  EXPECT_THAT(note, EndsWith("; decoding on the CPU\n"));
  EXPECT_EQ(std::count(note.begin(), note.end(), '\n'), 1);
#ifdef MLH_WITH_CUDA
  EXPECT_THAT(note, HasSubstr("the device is the CPU"));
#else
  EXPECT_THAT(note, HasSubstr("this build has no CUDA"));
#endif
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(jpeg_decoder_for(JpegDecoderKind::kGpu, torch::kCPU, /*announce=*/false), nullptr);
  EXPECT_EQ(jpeg_decoder_for(JpegDecoderKind::kCpu, torch::kCPU, /*announce=*/true), nullptr);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

TEST(GpuJpegDecoder, LooksOnTheSearchPathThenBesideTheTorchPackage) {
  const fs::path site_packages = test_folder() / "site-packages";
  for (const char* folder : {"torch/lib", "nvidia/cu13/lib", "nvidia/nvjpeg/lib", "torchvision.libs"})
    fs::create_directories(site_packages / folder);
  for (const char* file : {"nvidia/cu13/lib/libnvjpeg.so.13", "nvidia/cu13/lib/libcublas.so.13",
                           "nvidia/nvjpeg/lib/libnvjpeg.so.12", "torchvision.libs/libnvjpeg.4f2a.so.12"})
    std::ofstream(site_packages / file) << "";
  const std::string torch_lib = (site_packages / "torch" / "lib").string();
  EXPECT_EQ(nvjpeg_library_candidates(torch_lib),
            (std::vector<std::string>{"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so",
                                      (site_packages / "nvidia/cu13/lib/libnvjpeg.so.13").string(),
                                      (site_packages / "nvidia/nvjpeg/lib/libnvjpeg.so.12").string(),
                                      (site_packages / "torchvision.libs/libnvjpeg.4f2a.so.12").string()}));
  EXPECT_EQ(nvjpeg_library_candidates("").size(), 3u);
  // This process's LibTorch: the folder of its c10 library.
  const std::string loaded = torch_library_folder();
  ASSERT_FALSE(loaded.empty());
  bool has_c10 = false;
  for (const auto& entry : fs::directory_iterator(loaded))
    has_c10 = has_c10 || entry.path().filename().string().rfind("libc10", 0) == 0;
  EXPECT_TRUE(has_c10) << loaded;
}

}  // namespace
}  // namespace mlh::resnet
