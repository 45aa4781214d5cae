// JPEG decoding on the GPU for `decoder: gpu` (device_jpeg_source.h): nvJPEG, loaded at run time
// (dlopen), never linked, so the binary starts and decodes on the CPU where it is missing. The
// library is looked for by name on the default search path (libnvjpeg.so.13, .so.12, .so), then
// beside the torch package that LibTorch was loaded from: <site-packages>/nvidia/cu13/lib and
// nvidia/nvjpeg/lib (PyPI's nvidia-nvjpeg for CUDA 13 and 12) and torchvision.libs. Only a CUDA
// build can open it; the other builds say why not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

namespace mlh::resnet {

// Decodes whole JPEG files into 8-bit RGB on one device. Used from one thread at a time.
class DeviceJpegDecoder {
 public:
  virtual ~DeviceJpegDecoder() = default;
  virtual torch::Device device() const = 0;
  // uint8 [H, W, 3] (RGB, HWC; EXIF orientation ignored, as the CPU path) on device(), queued on its
  // current stream; an undefined tensor when this decoder cannot decode `bytes`, and *why_not says why.
  virtual torch::Tensor decode(const uint8_t* bytes, size_t size, std::string* why_not) = 0;
  // What decodes, for the console: "nvJPEG 13.0.1 (<library path>) on cuda:0".
  virtual std::string description() const = 0;
};

// nvJPEG on `device` (its handle and one decode state), or null and *why_not: a build without CUDA,
// a device that is not a GPU, no libnvjpeg (naming what was tried), a library without the entries,
// or nvJPEG failing to start (no driver, say).
std::unique_ptr<DeviceJpegDecoder> open_gpu_jpeg_decoder(const torch::Device& device, std::string* why_not);

// Where open_gpu_jpeg_decoder looks, in order: the bare names for the default search path, then the
// libnvjpeg*.so* files in the folders nvjpeg_folders(torch_library_folder) (those that exist).
std::vector<std::string> nvjpeg_library_candidates(const std::string& torch_library_folder);
// The folders beside the torch package whose library folder (<site-packages>/torch/lib) is given.
std::vector<std::string> nvjpeg_folders(const std::string& torch_library_folder);
// The folder of the loaded LibTorch (its c10 library), by dladdr; "" when it cannot be told.
std::string torch_library_folder();

}  // namespace mlh::resnet
