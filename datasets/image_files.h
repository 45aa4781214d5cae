// Image files on disk: reading and decoding them for the image loaders (imagenet/batch_loader.h,
// coco/detection_loader.h), and writing them and their folders for the synthetic generators
// (imagenet/synthetic.h, coco/synthetic.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include <opencv2/core.hpp>

namespace mlh {

// Reads `path` and decodes it with OpenCV into 8-bit BGR, EXIF orientation ignored (as TF's
// decode_jpeg and PIL's Image.open). Throws BadSample(path, reason, skip_hint) for a bad image: a
// file that is missing or unreadable ("cannot be read (...)"), or empty, neither JPEG nor PNG (by
// its first bytes; OpenCV's other decoders are not trusted with unchecked files), that OpenCV cannot decode,
// or a truncated JPEG (starting FF D8 with no FF D9 end-of-image marker among its last 64 bytes,
// trailing zero bytes ignored; libjpeg would decode it silently with grey rows), each "not a
// decodable image (...)". Thread-safe.
cv::Mat read_image_file(const std::string& path, const std::string& skip_hint);

// Writes `size` bytes at `data` to `path`, replacing it. Throws UserError
// "<path>: cannot be written; check the folder's permissions".
void write_file(const std::filesystem::path& path, const void* data, size_t size);

// Encodes `bgr` (8-bit BGR) as a JPEG of `quality` (1 to 100) and writes it to `path`, as
// write_file. Throws UserError "<path>: JPEG encoding failed" when OpenCV cannot encode it.
void write_jpeg_file(const std::filesystem::path& path, const cv::Mat& bgr, int quality);

// Creates `folder` and its parents unless it exists. Throws UserError
// "<folder>: cannot be created (<why>); <hint>" when it cannot be, or is not a folder.
void make_folder(const std::filesystem::path& folder, const std::string& hint);

}  // namespace mlh
