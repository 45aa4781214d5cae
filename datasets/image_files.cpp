#include "datasets/image_files.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

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

// Reads and decodes `path` into `bgr`. Returns why it is a bad image, or "" when it is fine.
std::string decode_image(const std::string& path, cv::Mat* bgr) {
  thread_local std::vector<uint8_t> bytes;
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
  try {
    *bgr = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data()),
                        cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& error) {
    return "not a decodable image (OpenCV: " + error.msg + ")";
  }
  if (bgr->empty()) return "not a decodable image (OpenCV cannot decode it)";
  return "";
}

}  // namespace

cv::Mat read_image_file(const std::string& path, const std::string& skip_hint) {
  cv::Mat bgr;
  const std::string bad_reason = decode_image(path, &bgr);
  if (!bad_reason.empty()) throw BadSample(path, bad_reason, skip_hint);
  return bgr;
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
