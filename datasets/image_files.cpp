#include "datasets/image_files.h"

#include <algorithm>
#include <csetjmp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

#include <jpeglib.h>
#include <opencv2/imgcodecs.hpp>

#include "base/user_error.h"
#include "datasets/sample_loader.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

// A JPEG's end-of-image marker must lie among its last bytes (after trailing zero padding is
// dropped); a few bytes of slack allow for writers that append a newline or similar.
constexpr size_t kEndOfImageWindowBytes = 64;

bool is_truncated_jpeg(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8) return false;
  size_t end = bytes.size();
  while (end > 0 && bytes[end - 1] == 0) --end;
  const size_t begin = end > kEndOfImageWindowBytes ? end - kEndOfImageWindowBytes : 0;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xD9) return false;
  }
  return true;
}

// JPEG (FF D8 FF) or PNG (89 'PNG' 0D 0A 1A 0A): the formats the datasets hold. cv::imdecode picks a
// decoder by content, and some of the others abort the process on malformed input (GDCM's DICOM
// reader asserts on a file with "DICM" at byte 128: found by fuzz/fuzz_image.cpp).
bool is_jpeg_or_png(const std::vector<uint8_t>& bytes) {
  static const uint8_t kJpeg[] = {0xFF, 0xD8, 0xFF};
  static const uint8_t kPng[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  auto starts_with = [&](const uint8_t* magic, size_t length) {
    return bytes.size() >= length && std::equal(magic, magic + length, bytes.begin());
  };
  return starts_with(kJpeg, sizeof kJpeg) || starts_with(kPng, sizeof kPng);
}

int ceil_div(int value, int divisor) { return (value + divisor - 1) / divisor; }

// libjpeg reports a fatal error through error_exit, which must not return: it jumps back to the
// setjmp of the call that met it with libjpeg's message. The functions that call setjmp hold no
// object with a destructor, so the jump skips none.
struct JpegErrors {
  jpeg_error_mgr manager;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_exit(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_quiet(j_common_ptr, int) {}  // warnings (corrupt data libjpeg can pass over) are not errors

struct JpegDecoder {
  jpeg_decompress_struct info;
  JpegErrors errors;
  JpegDecoder() {
    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = jpeg_error_exit;
    errors.manager.emit_message = jpeg_quiet;
    errors.message[0] = '\0';
    jpeg_create_decompress(&info);
  }
  ~JpegDecoder() { jpeg_destroy_decompress(&info); }
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;
};

// Reads the header and starts a decode at 1/reduction, BGR out. False on an error (its message in
// decoder.errors) or when libjpeg cannot give BGR (CMYK, YCCK): *bgr_capable tells which.
bool start_jpeg(JpegDecoder& decoder, const uint8_t* bytes, size_t size, int reduction, bool* bgr_capable) {
  jpeg_decompress_struct& info = decoder.info;
  *bgr_capable = true;
  if (setjmp(decoder.errors.jump) != 0) return false;
  jpeg_mem_src(&info, bytes, static_cast<unsigned long>(size));
  jpeg_read_header(&info, TRUE);
  if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK) {
    *bgr_capable = false;
    return false;
  }
  info.out_color_space = JCS_EXT_BGR;
  info.scale_num = 1;
  info.scale_denom = static_cast<unsigned int>(reduction);
  jpeg_start_decompress(&info);
  return true;
}

// Narrows the decode to columns [*x, *x + *width) of the output, widened by libjpeg to whole iMCU
// columns (it moves *x and *width).
bool crop_jpeg_columns(JpegDecoder& decoder, JDIMENSION* x, JDIMENSION* width) {
  if (setjmp(decoder.errors.jump) != 0) return false;
  if (*x != 0 || *width != decoder.info.output_width) jpeg_crop_scanline(&decoder.info, x, width);
  return true;
}

// Decodes output rows [y, y + rows) into `out` (rows x output_width x 3 bytes, row stride `stride`),
// skipping the rows above without their inverse DCT and not decoding any below.
bool read_jpeg_rows(JpegDecoder& decoder, JDIMENSION y, JDIMENSION rows, uint8_t* out, size_t stride) {
  jpeg_decompress_struct& info = decoder.info;
  if (setjmp(decoder.errors.jump) != 0) return false;
  if (y > 0 && jpeg_skip_scanlines(&info, y) != y) return false;
  while (info.output_scanline < y + rows) {
    JSAMPROW row = out + static_cast<size_t>(info.output_scanline - y) * stride;
    if (jpeg_read_scanlines(&info, &row, 1) != 1) return false;
  }
  jpeg_abort_decompress(&info);
  return true;
}

std::string libjpeg_reason(const JpegDecoder& decoder) {
  return std::string("not a decodable image (libjpeg: ") +
         (decoder.errors.message[0] != '\0' ? decoder.errors.message : "the data ends early") + ")";
}

// Decodes `region` of a JPEG of the given full size into `image`, as read_image_file_reduced says.
// Returns why it is a bad image, or "" when it is fine; sets *opencv_instead for a colour space libjpeg
// cannot turn into BGR.
std::string decode_jpeg_region(const std::vector<uint8_t>& bytes, int width, int height, const DecodeRegion& region,
                               ReducedImage* image, bool* opencv_instead) {
  MLH_ASSERT(region.reduction == 1 || region.reduction == 2 || region.reduction == 4 || region.reduction == 8);
  const int r = region.reduction;
  const int reduced_width = ceil_div(width, r), reduced_height = ceil_div(height, r);
  int left = 0, top = 0, right = reduced_width, bottom = reduced_height;
  if (region.width > 0) {
    MLH_ASSERT(region.x >= 0 && region.y >= 0 && region.height > 0 && region.x + region.width <= width &&
               region.y + region.height <= height);
    const int margin = 1;
    left = std::max(0, region.x / r - margin);
    top = std::max(0, region.y / r - margin);
    right = std::min(reduced_width, ceil_div(region.x + region.width, r) + margin);
    bottom = std::min(reduced_height, ceil_div(region.y + region.height, r) + margin);
  }
  JpegDecoder decoder;
  bool bgr_capable = true;
  if (!start_jpeg(decoder, bytes.data(), bytes.size(), r, &bgr_capable)) {
    *opencv_instead = !bgr_capable;
    return bgr_capable ? libjpeg_reason(decoder) : "";
  }
  if (static_cast<int>(decoder.info.output_width) != reduced_width ||
      static_cast<int>(decoder.info.output_height) != reduced_height) {
    return "not a decodable image (its header says " + std::to_string(width) + "x" + std::to_string(height) +
           " but libjpeg decodes it at 1/" + std::to_string(r) + " to " + std::to_string(decoder.info.output_width) +
           "x" + std::to_string(decoder.info.output_height) + ")";
  }
  JDIMENSION x = static_cast<JDIMENSION>(left), columns = static_cast<JDIMENSION>(right - left);
  if (!crop_jpeg_columns(decoder, &x, &columns)) return libjpeg_reason(decoder);
  image->bgr.create(bottom - top, static_cast<int>(columns), CV_8UC3);
  if (!read_jpeg_rows(decoder, static_cast<JDIMENSION>(top), static_cast<JDIMENSION>(bottom - top), image->bgr.data,
                      image->bgr.step[0])) {
    return libjpeg_reason(decoder);
  }
  image->original_width = width;
  image->original_height = height;
  image->reduction = r;
  image->offset_x = static_cast<int>(x);
  image->offset_y = top;
  return "";
}

// Reads `path` into `bytes` and checks its framing, as read_image_bytes says. Returns why it is a bad
// image, or "" when it is fine.
std::string read_checked_bytes(const std::string& path, std::vector<uint8_t>& bytes) {
  errno = 0;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    return std::string("cannot be read (") + (errno != 0 ? std::strerror(errno) : "open failed") +
           ")";
  }
  const std::streamoff size = file.tellg();
  if (size < 0) return "cannot be read (cannot tell its size)";
  bytes.resize(static_cast<size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), size)) return "cannot be read (read failed)";
  if (bytes.empty()) return "not a decodable image (empty file)";
  if (!is_jpeg_or_png(bytes)) return "not a decodable image (neither JPEG nor PNG)";
  if (is_truncated_jpeg(bytes)) return "not a decodable image (truncated JPEG: no end-of-image marker)";
  return "";
}

// Reads and decodes `path` into `image`: a JPEG with a readable header through decode_jpeg_region
// where choose_region is given, anything else whole by OpenCV. Returns why it is a bad image, or ""
// when it is fine.
std::string decode_image(const std::string& path, const ChooseRegion& choose_region, ReducedImage* image) {
  thread_local std::vector<uint8_t> bytes;
  const std::string framing = read_checked_bytes(path, bytes);
  if (!framing.empty()) return framing;
  int width = 0, height = 0;
  if (choose_region && jpeg_header_size(bytes.data(), bytes.size(), &width, &height)) {
    bool opencv_instead = false;
    const std::string reason =
        decode_jpeg_region(bytes, width, height, choose_region(width, height), image, &opencv_instead);
    if (!opencv_instead) return reason;
  }
  *image = ReducedImage();
  try {
    image->bgr = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data()),
                              cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& error) {
    return "not a decodable image (OpenCV: " + error.msg + ")";
  }
  if (image->bgr.empty()) return "not a decodable image (OpenCV cannot decode it)";
  image->original_width = image->bgr.cols;
  image->original_height = image->bgr.rows;
  return "";
}

}  // namespace

cv::Mat read_image_file(const std::string& path, const std::string& skip_hint) {
  return read_image_file_reduced(path, skip_hint, nullptr).bgr;
}

ReducedImage read_image_file_reduced(const std::string& path, const std::string& skip_hint,
                                     const ChooseRegion& choose_region) {
  ReducedImage image;
  const std::string bad_reason = decode_image(path, choose_region, &image);
  if (!bad_reason.empty()) throw BadSample(path, bad_reason, skip_hint);
  return image;
}

void read_image_bytes(const std::string& path, const std::string& skip_hint, std::vector<uint8_t>* bytes) {
  const std::string bad_reason = read_checked_bytes(path, *bytes);
  if (!bad_reason.empty()) throw BadSample(path, bad_reason, skip_hint);
}

bool jpeg_header_size(const uint8_t* bytes, size_t size, int* width, int* height) {
  if (size < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8) return false;
  size_t position = 2;
  while (position + 1 < size) {
    if (bytes[position] != 0xFF) return false;
    while (position < size && bytes[position] == 0xFF) ++position;  // fill bytes
    if (position >= size) return false;
    const uint8_t marker = bytes[position++];
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;  // no length field
    if (marker == 0xD9 || marker == 0xDA) return false;  // end of image, or scan data, before a frame
    if (position + 2 > size) return false;
    const size_t length = (size_t{bytes[position]} << 8) | bytes[position + 1];
    if (length < 2 || position + length > size) return false;
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame) {
      if (length < 7) return false;  // length, precision, height, width
      *height = (bytes[position + 3] << 8) | bytes[position + 4];
      *width = (bytes[position + 5] << 8) | bytes[position + 6];
      return *width > 0 && *height > 0;
    }
    position += length;
  }
  return false;
}

void write_file(const fs::path& path, const void* data, size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!file) throw UserError(path.string() + ": cannot be written; check the folder's permissions");
}

void write_jpeg_file(const fs::path& path, const cv::Mat& bgr, int quality) {
  std::vector<uint8_t> bytes;
  if (!cv::imencode(".jpg", bgr, bytes, {cv::IMWRITE_JPEG_QUALITY, quality})) {
    throw UserError(path.string() + ": JPEG encoding failed");
  }
  write_file(path, bytes.data(), bytes.size());
}

void make_folder(const fs::path& folder, const std::string& hint) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error || !fs::is_directory(folder)) {
    throw UserError(folder.string() + ": cannot be created (" +
                    (error ? error.message() : std::string("not a folder")) + "); " + hint);
  }
}

}  // namespace mlh
