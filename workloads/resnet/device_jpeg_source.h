// `decoder: gpu`: the ImageNet folder's JPEGs decoded on the device that trains. The loader threads
// (a SampleLoader, datasets/sample_loader.h) only read each file's bytes and its JPEG header (width,
// height) and draw the sample's augmentation as the CPU path draws it (draw_train_augmentation: the
// same crop box and flip for (seed, epoch, index)); the consuming thread decodes each image with a
// DeviceJpegDecoder (nvJPEG, gpu_jpeg_decoder.h), then crops, resizes and flips it there
// (device_transforms.h) into the batch: uint8 [n, S, S, 3] on the device, the layout JpegFolderSource
// delivers on the host, so model_input and all that follows are the same. The device's work is queued
// on the consuming thread's current stream (a training step's): the host's share of a decode overlaps
// the step before it, the GPU's follows it.
//
// The CPU decodes what the device decoder does not take, as JpegFolderSource would (same reduction,
// same pixels): in the loader threads a file whose JPEG header gives no size (a PNG, say), and in the
// consuming thread an image the decoder refuses (a CMYK JPEG, corrupt data that libjpeg passes over).
// Bad images follow on_bad_image as in JpegFolderSource.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "datasets/imagenet/batch_loader.h"
#include "datasets/imagenet/folder.h"
#include "datasets/imagenet/transforms.h"
#include "datasets/sample_loader.h"
#include "workloads/resnet/gpu_jpeg_decoder.h"
#include "workloads/resnet/image_source.h"

namespace mlh::resnet {

// The config key `decoder`: where a JPEG source decodes.
enum class JpegDecoderKind { kCpu, kGpu };

// The decoder `kind` asks for on `device`: null for kCpu, and for kGpu where there is no GPU decoder
// (see open_gpu_jpeg_decoder); then, if `announce`, one line on stdout says so and why
// ("mlharness: note: decoder gpu: <why>; decoding on the CPU"). An opened GPU decoder is announced as
// "mlharness: decoder gpu: <description>".
std::shared_ptr<DeviceJpegDecoder> jpeg_decoder_for(JpegDecoderKind kind, const torch::Device& device, bool announce);

class DeviceJpegSource final : public ImageSource {
 public:
  // As JpegFolderSource, plus the decoder, which may be shared with other sources used from the same
  // thread.
  DeviceJpegSource(imagenet::ImageFolder folder, imagenet::LoaderOptions options, int64_t label_offset,
                   std::shared_ptr<DeviceJpegDecoder> decoder);
  int64_t size() const override { return folder_->size(); }
  int64_t channels() const override { return 3; }
  int64_t image_size() const override { return options_.image_size; }
  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch) override;
  // images: uint8 [n, S, S, 3], RGB, HWC per image, on the decoder's device (zeros where skipped).
  HostBatch next() override;
  torch::Tensor model_input(const torch::Tensor& images) const override;  // imagenet::normalize_images
  int64_t skipped_images() const override { return samples_.skipped_total() + skipped_here_; }
  // Images of delivered batches that the CPU decoded instead (see above).
  int64_t cpu_decoded_images() const { return cpu_decoded_; }

 private:
  // One sample as the loader threads leave it.
  struct EncodedImage {
    std::vector<uint8_t> bytes;    // the JPEG file, for the device; empty when `pixels` holds the image
    int width = 0, height = 0;     // from its header
    imagenet::TrainAugmentation augmentation;  // training only
    std::vector<uint8_t> pixels;   // S x S x 3 bytes, when the CPU decoded it
  };
  void read(int32_t index, int64_t epoch, EncodedImage& sample) const;  // on the loader threads
  // Writes sample `index`'s image into `slot` (uint8 [S, S, 3] on the device); false when it turns out
  // to be a bad image that is skipped.
  bool place(EncodedImage& sample, int32_t index, torch::Tensor slot);

  std::unique_ptr<imagenet::ImageFolder> folder_;  // the workers read it: keep its address
  const imagenet::LoaderOptions options_;
  const int64_t label_offset_;
  const std::shared_ptr<DeviceJpegDecoder> decoder_;
  int64_t epoch_ = 0;          // of the plan being delivered
  int64_t skipped_here_ = 0;   // bad images met by the consuming thread
  int64_t cpu_decoded_ = 0;
  SampleLoader<EncodedImage> samples_;  // last: its workers use the members above
};

}  // namespace mlh::resnet
