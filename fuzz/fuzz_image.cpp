// One image file's bytes decoded as the image loaders decode them: datasets/image_files.h
// (OpenCV's decoders for JPEG, PNG and whatever else the bytes look like, plus the truncated-JPEG
// check). A bad image throws BadSample, a UserError.
#include <cstddef>
#include <cstdint>

#include <opencv2/core/utils/logger.hpp>

#include "base/user_error.h"
#include "datasets/image_files.h"
#include "fuzz/fuzz_input.h"

// OpenCV's decoders log each bad file to stderr; millions of such lines only slow the run.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mlh::fuzz::write_input("image.jpeg", data, size);
  try {
    mlh::read_image_file(path, "fuzz");
  } catch (const mlh::UserError&) {
  }
  return 0;
}
