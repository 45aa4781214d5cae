// Where the ResNet workload's images come from, behind one interface: a split is a numbered set of
// labelled images, read as a plan of batches (lists of sample indices) per epoch. The sources:
//   IdxImageSource     MNIST-family IDX files in memory; pad-crop and flip augmentation.
//   JpegFolderSource   an ImageNet folder; decode and MLPerf augmentation in loader threads
//                      (datasets/imagenet), prefetching while the model trains; 8-bit batches,
//                      normalised on the device (model_input).
//   DeviceJpegSource   (device_jpeg_source.h, `decoder: gpu`) the same batches decoded on the GPU.
// Augmentation of a sample depends only on (seed, epoch, sample), never on rank or batch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "datasets/idx.h"
#include "datasets/imagenet/batch_loader.h"
#include "datasets/imagenet/folder.h"
#include "harness/device.h"

namespace mlh::resnet {

// A batch on the host: images as the source delivers them (ImageSource::model_input turns them into
// the model's float [n, C, H, W] input), labels [n] int64. A label of -1 marks a slot whose image
// could not be decoded and was skipped (on_bad_image: skip); its pixels are zero.
struct HostBatch {
  torch::Tensor images;
  torch::Tensor labels;
};

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  virtual int64_t size() const = 0;
  virtual int64_t channels() const = 0;
  virtual int64_t image_size() const = 0;   // square side of the batches' images
  // Starts a pass over `batches` for `epoch` (replacing any unfinished one); next() returns them in order.
  virtual void start(std::vector<std::vector<int32_t>> batches, int64_t epoch) = 0;
  virtual HostBatch next() = 0;
  // The model's input, float [n, C, H, W] (any strides), from a batch's images on any device, by
  // tensor ops on that device (a slice of a batch's images, or those after index_select, too).
  virtual torch::Tensor model_input(const torch::Tensor& images) const { return images; }
  virtual int64_t skipped_images() const { return 0; }
  // The device the batches go to: for a GPU they are built in pinned memory, so that the copy is
  // asynchronous (harness/device.h). Call before the first start().
  void stage_for(const torch::Device& device) { staging_device_ = device; }

 protected:
  torch::TensorOptions staging(torch::ScalarType dtype) const { return host_staging_options(dtype, staging_device_); }
  bool staged_for_gpu() const { return staging_device_.is_cuda(); }

 private:
  torch::Device staging_device_ = torch::kCPU;
};

struct IdxAugmentation {
  bool augment = false;        // training split: random pad-crop and flip
  int64_t crop_padding = 0;
  bool random_flip = false;
  double pixel_mean = 0;       // on [0, 1] pixels
  double pixel_std = 1;
  uint64_t seed = 0;
};

class IdxImageSource final : public ImageSource {
 public:
  IdxImageSource(LabeledImages images, IdxAugmentation augmentation);
  int64_t size() const override { return images_.count; }
  int64_t channels() const override { return 1; }
  int64_t image_size() const override { return images_.rows; }
  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch) override;
  HostBatch next() override;
  const LabeledImages& images() const { return images_; }

 private:
  LabeledImages images_;
  IdxAugmentation augmentation_;
  std::vector<std::vector<int32_t>> plan_;
  size_t next_batch_ = 0;
  int64_t epoch_ = 0;
};

class JpegFolderSource final : public ImageSource {
 public:
  // `label_offset` is added to the folder's 0-based labels (1 for a 1001-class head, class 0 = background).
  JpegFolderSource(imagenet::ImageFolder folder, imagenet::LoaderOptions options, int64_t label_offset);
  int64_t size() const override { return folder_->size(); }
  int64_t channels() const override { return 3; }
  int64_t image_size() const override { return image_size_; }
  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch) override;
  // images: uint8 [n, S, S, 3], RGB, HWC per image. Staged for a GPU, the loader threads decode
  // straight into pinned memory from LibTorch's CUDA host allocator and the batch is that memory (no
  // copy on this thread; the allocator reuses it once the copies that read it are done); on the CPU
  // they decode into the loader's own reused buffers and the batch is one copy of them.
  HostBatch next() override;
  torch::Tensor model_input(const torch::Tensor& images) const override;  // imagenet::normalize_images
  int64_t skipped_images() const override { return loader_ ? loader_->skipped_total() : 0; }
  const imagenet::ImageFolder& folder() const { return *folder_; }

 private:
  std::unique_ptr<imagenet::ImageFolder> folder_;  // the loader holds a reference: keep its address
  imagenet::LoaderOptions options_;
  std::unique_ptr<imagenet::BatchLoader> loader_;  // made by the first start(), after stage_for()
  int64_t image_size_;
  int64_t label_offset_;
};

}  // namespace mlh::resnet
