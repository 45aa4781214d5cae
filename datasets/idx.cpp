#include "datasets/idx.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "base/user_error.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;

constexpr uint8_t kUnsignedByteType = 0x08;
constexpr int kImagesRank = 3;
constexpr int kLabelsRank = 1;
// The body is read in chunks that grow with what has arrived (from 1 MiB up to 64 MiB; gzread takes
// an unsigned count and returns an int), so a corrupt header declaring a huge body costs little.
constexpr size_t kFirstChunkBytes = size_t{1} << 20;
constexpr size_t kMaxChunkBytes = size_t{1} << 26;

std::string hex(uint32_t value, int digits) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%0*X", digits, static_cast<unsigned>(value));
  return text;
}

const char* element_type_name(uint8_t code) {
  switch (code) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return nullptr;
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "a scalar";
  std::string text;
  for (const int64_t size : shape) {
    if (!text.empty()) text += " x ";
    text += std::to_string(size);
  }
  return text;
}

std::string dimensions_text(int rank) {
  return std::to_string(rank) + (rank == 1 ? " dimension" : " dimensions");
}

const char* role_description(int rank) {
  if (rank == kImagesRank) return "an images file (count, rows, cols)";
  if (rank == kLabelsRank) return "a labels file (count)";
  return "this IDX file";
}

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

// One IDX file, read in two steps so that a pair of files can be checked against each other's
// header before either body is read.
class IdxReader {
 public:
  explicit IdxReader(std::string path) : path_(std::move(path)) {
    std::error_code status_error;
    const fs::file_status status = fs::status(path_, status_error);
    if (!fs::exists(status)) {
      throw UserError(path_ +
                      ": no such file; give an IDX file such as train-images-idx3-ubyte or "
                      "train-images-idx3-ubyte.gz (MNIST / Fashion-MNIST)");
    }
    if (fs::is_directory(status)) {
      throw UserError(path_ +
                      ": is a folder; give an IDX file such as t10k-images-idx3-ubyte[.gz]"
                      " inside it");
    }
    errno = 0;
    file_.reset(gzopen(path_.c_str(), "rb"));
    if (!file_) {
      throw UserError(path_ + ": cannot be opened (" +
                      (errno != 0 ? std::strerror(errno) : "out of memory") +
                      "); check that the file is readable");
    }
    gzbuffer(file_.get(), 1 << 17);
  }

  // Reads the magic number and the dimensions. `expected_rank` (when given) is the rank the caller
  // needs, checked here so that a swapped or wrong file is rejected before its body is read.
  const std::vector<int64_t>& read_header(std::optional<int> expected_rank) {
    uint8_t magic[4];
    const size_t magic_bytes = read(magic, sizeof(magic));
    if (magic_bytes == 0) {
      throw UserError(path_ + ": is empty; expected an IDX file (download it again)");
    }
    if (magic_bytes < sizeof(magic)) {
      throw UserError(path_ + ": is " + std::to_string(magic_bytes) + " bytes long" + gzip_note() +
                      ", shorter than the 4-byte IDX magic number; download the file again");
    }
    const uint32_t magic_number = big_endian_u32(magic);
    const uint8_t type_code = magic[2];
    const int rank = magic[3];
    const std::string expected_magic =
        expected_rank ? hex(uint32_t{kUnsignedByteType} << 8 | uint32_t(*expected_rank), 8)
                      : std::string("0x000008NN (NN = number of dimensions)");
    if (magic[0] != 0 || magic[1] != 0) {
      throw UserError(path_ + ": wrong magic number " + hex(magic_number, 8) +
                      " (an IDX file starts with two zero bytes); expected " + expected_magic +
                      " for " + role_description(expected_rank.value_or(0)) +
                      "; the file is not in IDX format or is corrupt");
    }
    if (type_code != kUnsignedByteType) {
      const char* name = element_type_name(type_code);
      throw UserError(path_ + ": unsupported element type " + hex(type_code, 2) + " (" +
                      (name != nullptr ? name : "not an IDX type code") + ", magic number " +
                      hex(magic_number, 8) +
                      "); only unsigned byte (0x08) IDX files are read, "
                      "as in MNIST and Fashion-MNIST");
    }
    if (expected_rank && rank != *expected_rank) {
      std::string hint;
      if (rank == kLabelsRank && *expected_rank == kImagesRank) hint = "; is this the labels file?";
      if (rank == kImagesRank && *expected_rank == kLabelsRank) hint = "; is this the images file?";
      throw UserError(path_ + ": wrong magic number " + hex(magic_number, 8) + " (" +
                      dimensions_text(rank) + "); expected " + expected_magic + " (" +
                      dimensions_text(*expected_rank) + ") for " +
                      role_description(*expected_rank) + hint);
    }

    std::vector<uint8_t> dims(static_cast<size_t>(rank) * 4);
    const size_t dims_bytes = read(dims.data(), dims.size());
    if (dims_bytes < dims.size()) {
      throw UserError(path_ + ": ends inside its header: the magic number declares " +
                      std::to_string(rank) + " dimensions (" + std::to_string(4 + dims.size()) +
                      " header bytes), the file holds " + std::to_string(4 + dims_bytes) +
                      " bytes" + gzip_note() + "; download the file again");
    }
    shape_.resize(rank);
    uint64_t elements = 1;
    bool overflow = false;
    for (int d = 0; d < rank; ++d) {
      shape_[d] = big_endian_u32(&dims[static_cast<size_t>(d) * 4]);
      overflow =
          overflow || __builtin_mul_overflow(elements, static_cast<uint64_t>(shape_[d]), &elements);
    }
    if (overflow || elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw UserError(path_ + ": header declares " + shape_text(shape_) +
                      " elements, more than can be addressed; the file is corrupt");
    }
    declared_bytes_ = elements;
    return shape_;
  }

  std::vector<uint8_t> read_body() {
    std::vector<uint8_t> data;
    data.reserve(std::min<uint64_t>(declared_bytes_, kFirstChunkBytes));
    while (data.size() < declared_bytes_) {
      const size_t chunk = std::clamp(data.size(), kFirstChunkBytes, kMaxChunkBytes);
      const size_t wanted = std::min<uint64_t>(declared_bytes_ - data.size(), chunk);
      const size_t start = data.size();
      data.resize(start + wanted);
      const size_t got = read(data.data() + start, wanted);
      data.resize(start + got);
      if (got < wanted) break;
    }
    if (data.size() < declared_bytes_) {
      throw UserError(path_ + ": truncated: the header (" + shape_text(shape_) + ") declares " +
                      std::to_string(declared_bytes_) + " bytes of data, the file holds " +
                      std::to_string(data.size()) + gzip_note() + "; download the file again");
    }
    uint64_t trailing_bytes = 0;
    std::array<uint8_t, 1 << 16> scratch;
    for (size_t got; (got = read(scratch.data(), scratch.size())) > 0;) trailing_bytes += got;
    if (trailing_bytes > 0) {
      throw UserError(path_ + ": holds " + std::to_string(trailing_bytes) + " bytes after the " +
                      std::to_string(declared_bytes_) + " bytes of data its header (" +
                      shape_text(shape_) + ") declares" + gzip_note() +
                      "; the file is corrupt or not in IDX format");
    }
    return data;
  }

  const std::string& path() const { return path_; }

 private:
  static uint32_t big_endian_u32(const uint8_t* bytes) {
    return uint32_t{bytes[0]} << 24 | uint32_t{bytes[1]} << 16 | uint32_t{bytes[2]} << 8 |
           uint32_t{bytes[3]};
  }

  // Reads up to `count` bytes; fewer only at the end of the data (or where a gzip stream stops).
  size_t read(uint8_t* destination, size_t count) {
    size_t total = 0;
    while (total < count) {
      const auto wanted = static_cast<unsigned>(std::min(count - total, kMaxChunkBytes));
      const int got = gzread(file_.get(), destination + total, wanted);
      if (got < 0) {
        int error_code = Z_OK;
        const char* message = gzerror(file_.get(), &error_code);
        if (error_code == Z_ERRNO) {
          throw UserError(path_ + ": read failed (" + std::strerror(errno) +
                          "); check the disk and the file");
        }
        throw UserError(path_ + ": corrupt gzip data (" + message + "); download the file again");
      }
      if (got == 0) break;
      total += static_cast<size_t>(got);
    }
    return total;
  }

  // How to read byte counts in messages: after decompression, and whether the stream was cut short.
  std::string gzip_note() {
    if (gzdirect(file_.get())) return "";
    int error_code = Z_OK;
    gzerror(file_.get(), &error_code);
    return error_code == Z_BUF_ERROR ? " (after gunzip; the gzip stream ends early)"
                                     : " (after gunzip)";
  }

  std::string path_;
  std::unique_ptr<gzFile_s, GzCloser> file_;
  std::vector<int64_t> shape_;
  uint64_t declared_bytes_ = 0;
};

}  // namespace

IdxArray read_idx(const std::string& path) {
  IdxReader reader(path);
  IdxArray array;
  array.shape = reader.read_header(std::nullopt);
  array.data = reader.read_body();
  array.path = path;
  return array;
}

LabeledImages read_idx_images_and_labels(const std::string& images_path,
                                         const std::string& labels_path) {
  IdxReader images(images_path);
  IdxReader labels(labels_path);
  const std::vector<int64_t> image_shape = images.read_header(kImagesRank);
  const std::vector<int64_t> label_shape = labels.read_header(kLabelsRank);
  if (image_shape[0] != label_shape[0]) {
    throw UserError(images_path + " holds " + std::to_string(image_shape[0]) + " images but " +
                    labels_path + " holds " + std::to_string(label_shape[0]) +
                    " labels; give the images and labels files of the same split");
  }
  LabeledImages split;
  split.count = image_shape[0];
  split.rows = image_shape[1];
  split.cols = image_shape[2];
  split.pixels = images.read_body();
  split.labels = labels.read_body();
  split.images_path = images_path;
  split.labels_path = labels_path;
  return split;
}

LabeledImages read_mnist_folder(const std::string& folder, const std::string& split) {
  if (split != "train" && split != "t10k") {
    throw UserError("unknown MNIST split '" + split + "' for " + folder +
                    "; use 'train' or 't10k'");
  }
  std::error_code status_error;
  const fs::file_status status = fs::status(folder, status_error);
  if (!fs::is_directory(status)) {
    throw UserError(folder + (fs::exists(status) ? ": is not a folder" : ": no such folder") +
                    "; give the folder holding the MNIST or Fashion-MNIST IDX files");
  }
  auto find_file = [&](const std::string& kind, const std::string& rank_tag) {
    const std::string names[] = {
        split + "-" + kind + "-" + rank_tag + "-ubyte",
        split + "-" + kind + "-" + rank_tag + "-ubyte.gz",
        split + "-" + kind + "." + rank_tag + "-ubyte",
        split + "-" + kind + "." + rank_tag + "-ubyte.gz",
    };
    std::string looked_for;
    for (const std::string& name : names) {
      const fs::path candidate = fs::path(folder) / name;
      std::error_code exists_error;
      if (fs::exists(candidate, exists_error)) return candidate.string();
      looked_for += (looked_for.empty() ? "" : ", ") + name;
    }
    throw UserError(folder + ": holds no " + split + " " + kind + " file; looked for " +
                    looked_for + "; download MNIST or Fashion-MNIST into this folder");
  };
  const std::string images_path = find_file("images", "idx3");
  const std::string labels_path = find_file("labels", "idx1");
  return read_idx_images_and_labels(images_path, labels_path);
}

}  // namespace mlh
