// Private to gpu_jpeg_decoder.cpp: the few entries of nvJPEG's C API that it resolves with dlsym, by
// their C signatures, so that building needs no nvJPEG header or library. Transcribed from nvjpeg.h
// of the nvidia-nvjpeg 13.0.1.86 wheel (CUDA 13.0; the same declarations in CUDA 12's). Where CMake
// finds the real nvjpeg.h (MLH_NVJPEG_HEADER), the values and layouts below are checked against it.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#ifdef MLH_NVJPEG_HEADER
#include <nvjpeg.h>
#endif

namespace mlh::resnet::nvjpeg {

using Status = int;  // nvjpegStatus_t
inline constexpr Status kSuccess = 0;
inline constexpr int kMaxComponents = 4;      // NVJPEG_MAX_COMPONENT
inline constexpr int kOutputRgbInterleaved = 5;  // NVJPEG_OUTPUT_RGBI: RGB, HWC, into channel[0]
inline constexpr int kPropertyMajor = 0, kPropertyMinor = 1, kPropertyPatch = 2;  // libraryPropertyType

struct HandleTag;
struct StateTag;
using Handle = HandleTag*;  // nvjpegHandle_t
using State = StateTag*;    // nvjpegJpegState_t

struct Image {  // nvjpegImage_t
  unsigned char* channel[kMaxComponents];
  size_t pitch[kMaxComponents];
};

// Enum parameters are passed as int, as a C enum is.
using GetProperty = Status (*)(int type, int* value);
using CreateSimple = Status (*)(Handle* handle);
using Destroy = Status (*)(Handle handle);
using StateCreate = Status (*)(Handle handle, State* state);
using StateDestroy = Status (*)(State state);
using GetImageInfo = Status (*)(Handle handle, const unsigned char* data, size_t length, int* components,
                                int* subsampling, int* widths, int* heights);
using Decode = Status (*)(Handle handle, State state, const unsigned char* data, size_t length, int output_format,
                          Image* destination, cudaStream_t stream);

// nvjpegStatus_t's names, by value.
inline const char* status_name(Status status) {
  static const char* const kNames[] = {"SUCCESS",           "NOT_INITIALIZED",   "INVALID_PARAMETER",
                                       "BAD_JPEG",          "JPEG_NOT_SUPPORTED", "ALLOCATOR_FAILURE",
                                       "EXECUTION_FAILED",  "ARCH_MISMATCH",     "INTERNAL_ERROR",
                                       "IMPLEMENTATION_NOT_SUPPORTED", "INCOMPLETE_BITSTREAM"};
  return status >= 0 && status < static_cast<Status>(sizeof kNames / sizeof kNames[0]) ? kNames[status] : "unknown status";
}

#ifdef MLH_NVJPEG_HEADER
static_assert(NVJPEG_STATUS_SUCCESS == kSuccess && NVJPEG_STATUS_INCOMPLETE_BITSTREAM == 10);
static_assert(NVJPEG_MAX_COMPONENT == kMaxComponents && NVJPEG_OUTPUT_RGBI == kOutputRgbInterleaved);
static_assert(MAJOR_VERSION == kPropertyMajor && MINOR_VERSION == kPropertyMinor && PATCH_LEVEL == kPropertyPatch);
static_assert(sizeof(nvjpegStatus_t) == sizeof(Status) && sizeof(nvjpegOutputFormat_t) == sizeof(int) &&
              sizeof(nvjpegChromaSubsampling_t) == sizeof(int) && sizeof(libraryPropertyType) == sizeof(int));
static_assert(sizeof(nvjpegImage_t) == sizeof(Image) && offsetof(nvjpegImage_t, pitch) == offsetof(Image, pitch));
#endif

}  // namespace mlh::resnet::nvjpeg
