#include "datasets/idx.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_idx_test"); }

void append_big_endian(std::string& bytes, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((value >> shift) & 0xFF);
}

// An IDX file's bytes: magic 00 00 <type> <rank>, the dimensions, then `body`.
std::string idx_bytes(const std::vector<uint32_t>& shape, const std::vector<uint8_t>& body,
                      uint8_t type = 0x08) {
  std::string bytes = {'\0', '\0', static_cast<char>(type), static_cast<char>(shape.size())};
  for (const uint32_t size : shape) append_big_endian(bytes, size);
  bytes.append(body.begin(), body.end());
  return bytes;
}

std::vector<uint8_t> counting_bytes(size_t count) {
  std::vector<uint8_t> bytes(count);
  for (size_t i = 0; i < count; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
  return bytes;
}

std::vector<uint8_t> random_bytes(size_t count) {
  std::mt19937 generator(12345);
  std::vector<uint8_t> bytes(count);
  for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(generator());
  return bytes;
}

std::string write_plain(const fs::path& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
  return path.string();
}

std::string write_gzip(const fs::path& path, const std::string& contents) {
  gzFile file = gzopen(path.string().c_str(), "wb");
  EXPECT_NE(file, nullptr) << path;
  if (file == nullptr) return path.string();
  EXPECT_EQ(gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())),
            static_cast<int>(contents.size()));
  EXPECT_EQ(gzclose(file), Z_OK);
  return path.string();
}

std::string read_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_error(const std::string& path) {
  return user_error_of([&] { read_idx(path); });
}

std::string pair_error(const std::string& images_path, const std::string& labels_path) {
  return user_error_of([&] { read_idx_images_and_labels(images_path, labels_path); });
}

// --- read_idx ------------------------------------------------------------------------------------

TEST(ReadIdx, PlainFileShapeAndBytes) {
  const std::vector<uint8_t> body = counting_bytes(2 * 3 * 4);
  const std::string path = write_plain(test_folder() / "images", idx_bytes({2, 3, 4}, body));
  const IdxArray array = read_idx(path);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(array.data, body);
  EXPECT_EQ(array.path, path);
}

TEST(ReadIdx, DimensionsAreBigEndianUint32) {
  const fs::path folder = test_folder();
  const std::vector<uint8_t> labels = counting_bytes(70000);  // 0x00011170: three significant bytes
  const IdxArray long_array = read_idx(write_plain(folder / "labels", idx_bytes({70000}, labels)));
  EXPECT_EQ(long_array.shape, (std::vector<int64_t>{70000}));
  EXPECT_EQ(long_array.data, labels);

  const std::vector<uint8_t> body = counting_bytes(300 * 2);
  const IdxArray wide_array = read_idx(write_plain(folder / "wide", idx_bytes({300, 2}, body)));
  EXPECT_EQ(wide_array.shape, (std::vector<int64_t>{300, 2}));
  EXPECT_EQ(wide_array.data, body);
}

TEST(ReadIdx, GzipIsRecognisedByContentNotName) {
  const fs::path folder = test_folder();
  const std::vector<uint8_t> body = random_bytes(5 * 7 * 3);
  const std::string contents = idx_bytes({5, 7, 3}, body);
  for (const std::string& path : {write_gzip(folder / "images.gz", contents),
                                  write_gzip(folder / "images-no-suffix", contents),
                                  write_plain(folder / "plain-named.gz", contents)}) {
    const IdxArray array = read_idx(path);
    EXPECT_EQ(array.shape, (std::vector<int64_t>{5, 7, 3})) << path;
    EXPECT_EQ(array.data, body) << path;
  }
  EXPECT_EQ(read_raw((folder / "images-no-suffix").string()).substr(0, 2), "\x1f\x8b");
}

TEST(ReadIdx, EmptyDimensionGivesNoData) {
  const IdxArray array = read_idx(write_plain(test_folder() / "empty", idx_bytes({0, 28, 28}, {})));
  EXPECT_EQ(array.shape, (std::vector<int64_t>{0, 28, 28}));
  EXPECT_TRUE(array.data.empty());
}

TEST(ReadIdx, MissingFileOrFolderNamesThePath) {
  const fs::path folder = test_folder();
  const std::string missing = (folder / "train-images-idx3-ubyte").string();
  EXPECT_THAT(read_error(missing), AllOf(HasSubstr(missing), HasSubstr("no such file")));
  EXPECT_THAT(read_error(folder.string()),
              AllOf(HasSubstr(folder.string()), HasSubstr("is a folder")));
}

TEST(ReadIdx, EmptyOrShortFile) {
  const fs::path folder = test_folder();
  const std::string empty = write_plain(folder / "empty", "");
  EXPECT_THAT(read_error(empty), AllOf(HasSubstr(empty), HasSubstr("is empty")));
  const std::string short_file = write_plain(folder / "short", std::string("\0\0", 2));
  EXPECT_THAT(read_error(short_file), AllOf(HasSubstr(short_file), HasSubstr("is 2 bytes long"),
                                            HasSubstr("shorter than the 4-byte IDX magic number"),
                                            Not(HasSubstr("gunzip"))));
}

TEST(ReadIdx, WrongMagicSaysWhatWasFoundAndExpected) {
  const std::string path = write_plain(test_folder() / "picture.png", "\x89PNG\r\n\x1a\n....");
  EXPECT_THAT(read_error(path),
              AllOf(HasSubstr(path), HasSubstr("wrong magic number 0x89504E47"),
                    HasSubstr("two zero bytes"), HasSubstr("expected 0x000008NN")));
}

TEST(ReadIdx, GzipInsideGzipIsNotIdx) {
  const fs::path folder = test_folder();
  const std::string inner = write_gzip(folder / "inner.gz", idx_bytes({2}, {1, 2}));
  const std::string outer = write_gzip(folder / "outer.gz", read_raw(inner));
  EXPECT_THAT(read_error(outer), AllOf(HasSubstr(outer), HasSubstr("wrong magic number 0x1F8B08")));
}

TEST(ReadIdx, UnsupportedElementTypes) {
  const fs::path folder = test_folder();
  const std::string int16_path = write_plain(folder / "int16", idx_bytes({2}, {0, 1, 0, 2}, 0x0B));
  EXPECT_THAT(read_error(int16_path),
              AllOf(HasSubstr(int16_path), HasSubstr("unsupported element type 0x0B (int16"),
                    HasSubstr("only unsigned byte (0x08)")));
  const std::string float_path = write_plain(folder / "float", idx_bytes({1}, {0, 0, 0, 0}, 0x0D));
  EXPECT_THAT(read_error(float_path), HasSubstr("unsupported element type 0x0D (float32"));
  const std::string unknown_path = write_plain(folder / "unknown", idx_bytes({1}, {0}, 0x42));
  EXPECT_THAT(read_error(unknown_path),
              HasSubstr("unsupported element type 0x42 (not an IDX type code"));
}

TEST(ReadIdx, HeaderCutInsideTheDimensions) {
  std::string contents = idx_bytes({10, 28, 28}, {});
  contents.resize(4 + 6);
  const std::string path = write_plain(test_folder() / "cut-header", contents);
  EXPECT_THAT(read_error(path), AllOf(HasSubstr(path), HasSubstr("ends inside its header"),
                                      HasSubstr("declares 3 dimensions (16 header bytes)"),
                                      HasSubstr("holds 10 bytes")));
}

TEST(ReadIdx, TruncatedBodySaysDeclaredAndHeldBytes) {
  const fs::path folder = test_folder();
  std::string contents = idx_bytes({2, 3, 4}, counting_bytes(24));
  contents.resize(contents.size() - 4);
  const std::string plain = write_plain(folder / "plain", contents);
  EXPECT_THAT(read_error(plain), AllOf(HasSubstr(plain), HasSubstr("truncated"),
                                       HasSubstr("declares 24 bytes of data, the file holds 20"),
                                       Not(HasSubstr("gunzip"))));
  const std::string gzip = write_gzip(folder / "gzip.gz", contents);
  EXPECT_THAT(read_error(gzip),
              AllOf(HasSubstr(gzip), HasSubstr("declares 24 bytes of data, the file holds 20"),
                    HasSubstr("after gunzip")));
}

TEST(ReadIdx, GzipStreamCutShort) {
  const fs::path folder = test_folder();
  const std::string whole =
      write_gzip(folder / "whole.gz", idx_bytes({100, 100}, random_bytes(10000)));
  const std::string bytes = read_raw(whole);
  const std::string cut = write_plain(folder / "cut.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THAT(read_error(cut), AllOf(HasSubstr(cut), HasSubstr("declares 10000 bytes of data"),
                                     HasSubstr("the gzip stream ends early")));
}

TEST(ReadIdx, CorruptGzipData) {
  const fs::path folder = test_folder();
  const std::string whole =
      write_gzip(folder / "whole.gz", idx_bytes({100, 100}, random_bytes(10000)));
  std::string bytes = read_raw(whole);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5A);
  const std::string corrupt = write_plain(folder / "corrupt.gz", bytes);
  EXPECT_THAT(read_error(corrupt), AllOf(HasSubstr(corrupt), HasSubstr("corrupt gzip data")));
}

TEST(ReadIdx, TrailingBytesAreRejected) {
  const fs::path folder = test_folder();
  const std::string contents = idx_bytes({2, 3, 4}, counting_bytes(24)) + "abc";
  for (const std::string& path :
       {write_plain(folder / "plain", contents), write_gzip(folder / "gzip.gz", contents)}) {
    EXPECT_THAT(read_error(path),
                AllOf(HasSubstr(path), HasSubstr("holds 3 bytes after the 24 bytes of data")));
  }
}

TEST(ReadIdx, HugeDeclaredSizes) {
  const fs::path folder = test_folder();
  const std::string overflow =
      write_plain(folder / "overflow", idx_bytes({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, {}));
  EXPECT_THAT(read_error(overflow),
              AllOf(HasSubstr(overflow), HasSubstr("more than can be addressed")));
  // 2^48 bytes declared: rejected as truncated without trying to allocate them first.
  const std::string huge = write_plain(folder / "huge", idx_bytes({0xFFFFFFFF, 0xFFFF}, {1, 2}));
  EXPECT_THAT(read_error(huge),
              HasSubstr("declares 281470681677825 bytes of data, the file holds 2"));
}

// --- read_idx_images_and_labels ------------------------------------------------------------------

TEST(ReadIdxImagesAndLabels, PairsImagesWithLabels) {
  const fs::path folder = test_folder();
  const std::vector<uint8_t> pixels = counting_bytes(3 * 4 * 2);
  const std::string images = write_gzip(folder / "images.gz", idx_bytes({3, 4, 2}, pixels));
  const std::string labels = write_plain(folder / "labels", idx_bytes({3}, {7, 0, 9}));
  const LabeledImages split = read_idx_images_and_labels(images, labels);
  EXPECT_EQ(split.count, 3);
  EXPECT_EQ(split.rows, 4);
  EXPECT_EQ(split.cols, 2);
  EXPECT_EQ(split.image_bytes(), 8);
  EXPECT_EQ(split.pixels, pixels);
  EXPECT_EQ(split.labels, (std::vector<uint8_t>{7, 0, 9}));
  EXPECT_EQ(split.images_path, images);
  EXPECT_EQ(split.labels_path, labels);
}

TEST(ReadIdxImagesAndLabels, CountMismatchNamesBothFilesAndCounts) {
  const fs::path folder = test_folder();
  const std::string images =
      write_plain(folder / "images", idx_bytes({3, 2, 2}, counting_bytes(12)));
  const std::string labels = write_plain(folder / "labels", idx_bytes({2}, {1, 2}));
  EXPECT_THAT(pair_error(images, labels),
              AllOf(HasSubstr(images + " holds 3 images"), HasSubstr(labels + " holds 2 labels")));
}

TEST(ReadIdxImagesAndLabels, WrongRanksSayFoundAndExpectedMagic) {
  const fs::path folder = test_folder();
  const std::string images =
      write_plain(folder / "images", idx_bytes({3, 2, 2}, counting_bytes(12)));
  const std::string labels = write_plain(folder / "labels", idx_bytes({3}, {1, 2, 3}));
  const std::string matrix_labels = write_plain(folder / "labels2d", idx_bytes({3, 1}, {1, 2, 3}));

  EXPECT_THAT(pair_error(images, matrix_labels),
              AllOf(HasSubstr(matrix_labels), HasSubstr("wrong magic number 0x00000802"),
                    HasSubstr("(2 dimensions)"), HasSubstr("expected 0x00000801 (1 dimension)"),
                    HasSubstr("labels file")));
  EXPECT_THAT(pair_error(labels, images),
              AllOf(HasSubstr(labels), HasSubstr("wrong magic number 0x00000801"),
                    HasSubstr("expected 0x00000803"), HasSubstr("is this the labels file?")));

  const std::string not_idx = write_plain(folder / "not-idx", "GIF89a......");
  EXPECT_THAT(pair_error(not_idx, labels),
              AllOf(HasSubstr(not_idx), HasSubstr("wrong magic number 0x47494638"),
                    HasSubstr("expected 0x00000803 for an images file")));
}

// --- read_mnist_folder ---------------------------------------------------------------------------

TEST(ReadMnistFolder, FindsPlainGzipAndDottedNames) {
  const fs::path folder = test_folder();
  const std::vector<uint8_t> train_pixels = counting_bytes(4 * 3 * 3);
  const std::vector<uint8_t> test_pixels = random_bytes(2 * 3 * 3);
  write_plain(folder / "train-images-idx3-ubyte", idx_bytes({4, 3, 3}, train_pixels));
  write_plain(folder / "train-labels.idx1-ubyte", idx_bytes({4}, {0, 1, 2, 3}));
  write_gzip(folder / "t10k-images-idx3-ubyte.gz", idx_bytes({2, 3, 3}, test_pixels));
  write_gzip(folder / "t10k-labels-idx1-ubyte.gz", idx_bytes({2}, {9, 8}));

  const LabeledImages train = read_mnist_folder(folder.string(), "train");
  EXPECT_EQ(train.count, 4);
  EXPECT_EQ(train.pixels, train_pixels);
  EXPECT_EQ(train.labels, (std::vector<uint8_t>{0, 1, 2, 3}));
  EXPECT_EQ(train.labels_path, (folder / "train-labels.idx1-ubyte").string());

  const LabeledImages test = read_mnist_folder(folder.string(), "t10k");
  EXPECT_EQ(test.count, 2);
  EXPECT_EQ(test.pixels, test_pixels);
  EXPECT_EQ(test.labels, (std::vector<uint8_t>{9, 8}));
  EXPECT_EQ(test.images_path, (folder / "t10k-images-idx3-ubyte.gz").string());
}

TEST(ReadMnistFolder, MissingFilesListWhatWasLookedFor) {
  const fs::path folder = test_folder();
  write_plain(folder / "t10k-images-idx3-ubyte", idx_bytes({1, 1, 1}, {0}));
  EXPECT_THAT(user_error_of([&] { read_mnist_folder(folder.string(), "t10k"); }),
              AllOf(HasSubstr(folder.string()), HasSubstr("holds no t10k labels file"),
                    HasSubstr("t10k-labels-idx1-ubyte, t10k-labels-idx1-ubyte.gz"),
                    HasSubstr("t10k-labels.idx1-ubyte.gz")));
  EXPECT_THAT(user_error_of([&] { read_mnist_folder(folder.string(), "train"); }),
              AllOf(HasSubstr("holds no train images file"), HasSubstr("train-images-idx3-ubyte")));
}

TEST(ReadMnistFolder, BadSplitOrFolder) {
  const fs::path folder = test_folder();
  EXPECT_THAT(user_error_of([&] { read_mnist_folder(folder.string(), "test"); }),
              AllOf(HasSubstr("unknown MNIST split 'test'"), HasSubstr("'train' or 't10k'")));
  const std::string missing = (folder / "absent").string();
  EXPECT_THAT(user_error_of([&] { read_mnist_folder(missing, "train"); }),
              AllOf(HasSubstr(missing), HasSubstr("no such folder")));
}

// The Debian package dataset-fashion-mnist installs the published files here.
TEST(ReadMnistFolder, InstalledFashionMnistTestSplit) {
  const std::string folder = "/usr/share/datasets/fashion-mnist";
  if (!fs::is_directory(folder)) {
    GTEST_SKIP() << folder << " is absent (install the Debian package dataset-fashion-mnist)";
  }
  const LabeledImages test = read_mnist_folder(folder, "t10k");
  EXPECT_EQ(test.count, 10000);
  EXPECT_EQ(test.rows, 28);
  EXPECT_EQ(test.cols, 28);
  EXPECT_EQ(test.pixels.size(), 10000u * 28 * 28);
  ASSERT_EQ(test.labels.size(), 10000u);
  EXPECT_LT(*std::max_element(test.labels.begin(), test.labels.end()), 10);
  EXPECT_GT(*std::max_element(test.pixels.begin(), test.pixels.end()), 0);
}

}  // namespace
}  // namespace mlh
