// Image files on disk: reading and decoding them for the image loaders (imagenet/batch_loader.h and
// the loaders of image workloads), and writing them and their folders for the synthetic generators
// (imagenet/synthetic.h, coco/synthetic.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

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

// An image decoded at 1/reduction of its size in each dimension, whole or a part of it. A JPEG is
// decoded by libjpeg-turbo itself: through its scaled DCT (as PIL's draft mode), cheaper than a full
// decode and a resize, and only over the rows and iMCU columns of the part asked for
// (jpeg_skip_scanlines, jpeg_crop_scanline, then the decode stops), so a crop costs about its share
// of the image. Pixel (i, j) of the whole reduced image covers the original's [i*r, (i+1)*r) x
// [j*r, (j+1)*r) (the last row and column partly): it is ceil(width / r) x ceil(height / r), and
// bgr is its part from column offset_x and row offset_y.
struct ReducedImage {
  cv::Mat bgr;               // 8-bit BGR
  int original_width = 0;    // the file's own size
  int original_height = 0;
  int reduction = 1;         // 1, 2, 4 or 8
  int offset_x = 0;          // bgr's first column and row in the whole reduced image
  int offset_y = 0;
};
// What to decode of an image of the given full size: the reduction (1, 2, 4 or 8) and the part, in
// the original's pixels (width 0: all of it).
struct DecodeRegion {
  int reduction = 1;
  int x = 0, y = 0, width = 0, height = 0;
};
using ChooseRegion = std::function<DecodeRegion(int width, int height)>;

// As read_image_file, but a JPEG whose size its header gives is decoded as choose_region asks from
// that size: at its reduction, and at least the part asked for (its reduced pixels), with one more
// reduced pixel on each side where the image has it, widened horizontally to libjpeg's iMCU columns.
// The part asked for holds the whole decode's pixels bit for bit; the margin around it is room for
// bilinear sampling at the part's edges and may differ (libjpeg upsamples a cropped decode's first
// column's chroma without its left neighbour). Any other image (PNG, a CMYK JPEG, a JPEG whose
// header is not understood) is decoded whole by OpenCV, reduction 1.
// Thread-safe where choose_region is.
ReducedImage read_image_file_reduced(const std::string& path, const std::string& skip_hint,
                                     const ChooseRegion& choose_region);

// The bytes of `path` for a decoder elsewhere (the GPU's), with the checks of read_image_file that
// need no decode: into *bytes (its storage reused). Throws BadSample as read_image_file does for a
// file that is missing, unreadable, empty, neither JPEG nor PNG, or a truncated JPEG. Thread-safe.
void read_image_bytes(const std::string& path, const std::string& skip_hint, std::vector<uint8_t>* bytes);

// The width and height in a JPEG's start-of-frame header (the first SOF marker's), found by walking
// the marker segments from the start without decoding anything. False when `bytes` holds no
// well-formed SOF segment before its entropy-coded data.
bool jpeg_header_size(const uint8_t* bytes, size_t size, int* width, int* height);

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
