// The images of a COCO split as the detection loaders read them (SSD's, Mask R-CNN's): decoded with
// read_image_file (datasets/image_files.h) and checked against the annotations' size.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "datasets/coco/annotations.h"

namespace mlh::coco {

// <image_folder>/<image.file_name> decoded into 8-bit BGR. Throws BadSample (datasets/sample_loader.h)
// "<path>: <reason>" with `skip_hint` for a file read_image_file rejects, or one whose decoded size
// differs from image.width x image.height (the reason names annotations.path and the image id).
// Thread-safe.
cv::Mat read_annotated_image(const Annotations& annotations, const Image& image,
                             const std::string& image_folder, const std::string& skip_hint);

}  // namespace mlh::coco
