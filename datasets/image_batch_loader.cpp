#include "datasets/image_batch_loader.h"

#include <iostream>

#include <opencv2/core.hpp>

namespace mlh {
namespace {

void check_option(bool holds, const std::string& loader_name, const std::string& message) {
  if (!holds) throw UserError(loader_name + ": " + message);
}

}  // namespace

void check_image_loading_options(const ImageLoadingOptions& options, const std::string& loader_name) {
  check_option(options.threads >= 1, loader_name,
               "threads is " + std::to_string(options.threads) + "; use at least 1 worker thread");
  check_option(options.prefetch_batches >= 1, loader_name,
               "prefetch_batches is " + std::to_string(options.prefetch_batches) +
                   "; prefetch at least 1 batch");
}

SampleLoaderOptions sample_loader_options(const ImageLoadingOptions& options) {
  SampleLoaderOptions sample_options;
  sample_options.threads = options.threads;
  sample_options.prefetch_batches = options.prefetch_batches;
  sample_options.on_bad_sample = options.on_bad_image;
  sample_options.on_skip = [](const BadSample& bad) {
    std::cerr << ("warning: skipping " + bad.source() + ": " + bad.reason() + "\n") << std::flush;
  };
  return sample_options;
}

namespace detail {
void use_one_opencv_thread() { cv::setNumThreads(1); }
}  // namespace detail

}  // namespace mlh
