#include "workloads/resnet/device_jpeg_source.h"

#include <cstdio>
#include <iostream>
#include <utility>

#include <opencv2/core.hpp>
#include <torch/torch.h>

#include "base/user_error.h"
#include "datasets/image_files.h"
#include "datasets/imagenet/normalize.h"
#include "workloads/resnet/device_transforms.h"

namespace mlh::resnet {
std::shared_ptr<DeviceJpegDecoder> jpeg_decoder_for(JpegDecoderKind kind, const torch::Device& device, bool announce) {
  if (kind == JpegDecoderKind::kCpu) return nullptr;
  std::string why_not;
  std::shared_ptr<DeviceJpegDecoder> decoder = open_gpu_jpeg_decoder(device, &why_not);
  if (announce) {
    // On stdout, as the engine's notes: stderr is for the one line of an error.
    const std::string line = decoder != nullptr ? "mlharness: decoder gpu: " + decoder->description() + "\n"
                                                : "mlharness: note: decoder gpu: " + why_not + "; decoding on the CPU\n";
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
  }
  return decoder;
}

DeviceJpegSource::DeviceJpegSource(imagenet::ImageFolder folder, imagenet::LoaderOptions options,
                                   int64_t label_offset, std::shared_ptr<DeviceJpegDecoder> decoder)
    : folder_(std::make_unique<imagenet::ImageFolder>(std::move(folder))),
      options_(imagenet::check_loader_options(options)),
      label_offset_(label_offset),
      decoder_(std::move(decoder)),
      samples_(sample_loader_options(options),
               [this](int32_t index, int64_t epoch, EncodedImage& sample) { read(index, epoch, sample); }) {
  MLH_ASSERT(decoder_ != nullptr);
  cv::setNumThreads(1);  // the CPU's decodes run in the loader threads, as BatchLoader's
}

void DeviceJpegSource::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  for (const std::vector<int32_t>& batch : batches) {
    for (const int32_t index : batch) MLH_ASSERT(index >= 0 && index < folder_->size());
  }
  epoch_ = epoch;
  samples_.start(std::move(batches), epoch);
}

void DeviceJpegSource::read(int32_t index, int64_t epoch, EncodedImage& sample) const {
  read_image_bytes(folder_->files[static_cast<size_t>(index)], kSkipBadImageHint, &sample.bytes);
  if (!jpeg_header_size(sample.bytes.data(), sample.bytes.size(), &sample.width, &sample.height)) {
    sample.bytes.clear();
    sample.pixels.resize(static_cast<size_t>(3) * options_.image_size * options_.image_size);
    imagenet::decode_sample(*folder_, options_, index, epoch, sample.pixels.data());
    return;
  }
  sample.pixels.clear();
  if (options_.train) {
    sample.augmentation = imagenet::draw_train_augmentation(sample.width, sample.height, options_.seed, epoch, index,
                                                            options_.random_flip);
  }
}

HostBatch DeviceJpegSource::next() {
  SampleBatch<EncodedImage> batch = samples_.next();
  const int64_t count = batch.size(), side = options_.image_size;
  torch::Tensor images = torch::empty({count, side, side, 3}, torch::TensorOptions(torch::kByte).device(decoder_->device()));
  torch::Tensor labels = torch::empty({count}, staging(torch::kLong));
  int64_t* label_out = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    const size_t position = static_cast<size_t>(i);
    const int32_t index = batch.indices[position];
    torch::Tensor slot = images[i];
    if (batch.skipped[position] != 0 || !place(batch.samples[position], index, slot)) {
      slot.zero_();
      label_out[i] = -1;
      continue;
    }
    label_out[i] = folder_->labels[static_cast<size_t>(index)] + label_offset_;
  }
  samples_.recycle(std::move(batch));
  return {images, labels};
}

bool DeviceJpegSource::place(EncodedImage& sample, int32_t index, torch::Tensor slot) {
  const int side = options_.image_size;
  if (!sample.bytes.empty()) {
    std::string why_not;
    const torch::Tensor decoded = decoder_->decode(sample.bytes.data(), sample.bytes.size(), &why_not);
    if (decoded.defined() && decoded.size(0) == sample.height && decoded.size(1) == sample.width) {
      slot.copy_(options_.train ? train_transform_tensor(decoded, sample.augmentation.crop, sample.augmentation.flip, side)
                                : eval_transform_tensor(decoded, options_.eval_resize, side));
      return true;
    }
    // The device decoder refused it (or read another size than the header's): the CPU decodes it.
    sample.pixels.resize(static_cast<size_t>(3) * side * side);
    try {
      imagenet::decode_sample(*folder_, options_, index, epoch_, sample.pixels.data());
    } catch (const BadSample& bad) {
      if (options_.on_bad_image == imagenet::BadImagePolicy::kFail) throw;
      std::cerr << ("warning: skipping " + bad.source() + ": " + bad.reason() + "\n") << std::flush;
      ++skipped_here_;
      return false;
    }
  }
  // A pageable copy: done with the host bytes when it returns, so the sample may be recycled.
  slot.copy_(torch::from_blob(sample.pixels.data(), {side, side, 3}, torch::kByte));
  ++cpu_decoded_;
  return true;
}

torch::Tensor DeviceJpegSource::model_input(const torch::Tensor& images) const {
  return imagenet::normalize_images(images);
}

}  // namespace mlh::resnet
