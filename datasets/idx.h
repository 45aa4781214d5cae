// IDX files, the format of MNIST and Fashion-MNIST: a big-endian magic number 00 00 <type> <rank>,
// one big-endian uint32 per dimension, then the elements in row-major order. Only the unsigned byte
// type (0x08), the one the MNIST family uses, is read. Files may be gzip-compressed (recognised by
// their content, not their name). No LibTorch here: plain arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlh {

struct IdxArray {
  std::vector<int64_t> shape;  // one entry per dimension, as declared in the header
  std::vector<uint8_t> data;   // product(shape) elements, row-major
  std::string path;
};

// Reads a whole IDX file of unsigned bytes, of any rank. Throws UserError naming the file for a
// missing or unreadable file, a header that is short or does not start with 00 00, an element type
// other than 0x08, corrupt gzip data, or a body shorter or longer than the header declares.
IdxArray read_idx(const std::string& path);

// A dataset split: image i is pixels[i*rows*cols, (i+1)*rows*cols), its class labels[i].
struct LabeledImages {
  int64_t count = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> pixels;  // count * rows * cols, row-major, 0 = background
  std::vector<uint8_t> labels;  // count
  std::string images_path;
  std::string labels_path;

  int64_t image_bytes() const { return rows * cols; }
};

// Reads an images file (rank 3: count, rows, cols) and its labels file (rank 1: count). Throws
// UserError as read_idx does, and when a file has the wrong rank (found and expected magic numbers
// in the message) or the two counts differ (both files and both counts in the message).
LabeledImages read_idx_images_and_labels(const std::string& images_path,
                                         const std::string& labels_path);

// Reads split "train" or "t10k" from a folder holding the four files as published, e.g.
// t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each possibly with a .gz suffix (the
// `t10k-images.idx3-ubyte` spelling is accepted too; an uncompressed file wins over a .gz one).
// Throws UserError for an unknown split, a missing folder, or a folder without the split's files
// (the message lists the names looked for), and as read_idx_images_and_labels.
LabeledImages read_mnist_folder(const std::string& folder, const std::string& split);

}  // namespace mlh
