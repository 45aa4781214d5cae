#include "datasets/coco/images.h"

#include <filesystem>

#include "datasets/image_files.h"
#include "datasets/sample_loader.h"

namespace mlh::coco {

cv::Mat read_annotated_image(const Annotations& annotations, const Image& image,
                             const std::string& image_folder, const std::string& skip_hint) {
  const std::string path = (std::filesystem::path(image_folder) / image.file_name).string();
  cv::Mat bgr = read_image_file(path, skip_hint);
  if (bgr.cols != image.width || bgr.rows != image.height) {
    throw BadSample(path,
                    "decoded size " + std::to_string(bgr.cols) + "x" + std::to_string(bgr.rows) +
                        " differs from the annotations' width x height " + std::to_string(image.width) +
                        "x" + std::to_string(image.height) + " (" + annotations.path + ", image id " +
                        std::to_string(image.id) + ")",
                    skip_hint);
  }
  return bgr;
}

}  // namespace mlh::coco
