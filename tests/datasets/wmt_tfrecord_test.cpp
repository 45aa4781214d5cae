#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "datasets/wmt/layout.h"
#include "datasets/wmt/tfrecord.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"
#include "tf_example.pb.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;
using testing_files::contents_of;
using testing_files::fresh_test_folder;

// A one-record TFRecord file written by TensorFlow's TFRecordWriter: the second shard of
// google/yggdrasil-decision-forests' test_data/dataset/toy.tfe-tfrecord-00001-of-00002 (a GZIP
// TFRecord file, here decompressed; commit 15781866). Its Example has no "inputs"/"targets".
const std::string kTensorFlowWrittenFile = [] {
  const char* hex =
      "a800000000000000fcd8de2d0aa5010a0e0a054361745f3112050a030a01430a110a054361745f3312081206"
      "0a04000040400a180a094361745f7365745f31120b0a090a01780a01790a017a0a180a094361745f7365745f"
      "32120b0a090a017a0a01780a01790a090a054361745f3212000a110a054e756d5f31120812060a0400008040"
      "0a0f0a06426f6f6c5f3112051a030a01010a110a054e756d5f32120812060a04000080400a0a0a06426f6f6c"
      "5f321200a2ba9b1e";
  std::string bytes;
  for (const char* p = hex; p[0] != '\0'; p += 2) {
    bytes.push_back(static_cast<char>(std::stoi(std::string(p, 2), nullptr, 16)));
  }
  return bytes;
}();

// Bit-at-a-time CRC-32C, independent of the library's table-driven one.
uint32_t bitwise_crc32c(const std::string& bytes) {
  uint32_t crc = 0xffffffffu;
  for (const unsigned char byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? 0x82F63B78u : 0u);
  }
  return ~crc;
}

uint32_t bitwise_masked(const std::string& bytes) {
  const uint32_t crc = bitwise_crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string little_endian(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return out;
}

std::string framed(const std::string& payload) {
  const std::string length = little_endian(payload.size(), 8);
  return length + little_endian(bitwise_masked(length), 4) + payload +
         little_endian(bitwise_masked(payload), 4);
}

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

void touch(const fs::path& file) { std::ofstream(file, std::ios::binary) << "x"; }

TEST(Crc32c, MatchesThePublishedCheckValueAndRfc3720Vectors) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  const std::vector<unsigned char> zeros(32, 0x00);
  const std::vector<unsigned char> ones(32, 0xff);
  std::vector<unsigned char> ascending(32);
  std::vector<unsigned char> descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<unsigned char>(i);
    descending[i] = static_cast<unsigned char>(31 - i);
  }
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  EXPECT_EQ(crc32c(ascending.data(), ascending.size()), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending.data(), descending.size()), 0x113FDB5Cu);
  EXPECT_EQ(crc32c("", 0), 0u);
}

TEST(Crc32c, AgreesWithBitwiseCrcAtEveryLengthAndOffset) {
  std::string bytes;
  for (int i = 0; i < 80; ++i) bytes.push_back(static_cast<char>((i * 37 + 11) & 0xff));
  for (size_t begin = 0; begin < 9; ++begin) {
    for (size_t size = 0; begin + size <= bytes.size(); ++size) {
      const std::string part = bytes.substr(begin, size);
      ASSERT_EQ(crc32c(part.data(), part.size()), bitwise_crc32c(part)) << begin << "+" << size;
      ASSERT_EQ(masked_crc32c(part.data(), part.size()), bitwise_masked(part));
    }
  }
}

TEST(TfRecord, ReadsAndRewritesAFileTensorFlowWrote) {
  const fs::path folder = fresh_test_folder("wmt_tfrecord");
  EXPECT_EQ(masked_crc32c(kTensorFlowWrittenFile.data(), 8), 0x2DDED8FCu);  // stored at bytes 8-11
  const fs::path file = folder / "toy.tfrecord";
  write_bytes(file, kTensorFlowWrittenFile);
  const std::vector<std::string> records = read_tfrecords(file);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].size(), 168u);

  mlh::tf::Example example;
  ASSERT_TRUE(example.ParseFromString(records[0]));
  const auto& features = example.features().feature();
  EXPECT_EQ(features.size(), 9u);
  ASSERT_EQ(features.at("Bool_1").int64_list().value_size(), 1);
  EXPECT_EQ(features.at("Bool_1").int64_list().value(0), 1);
  EXPECT_EQ(features.at("Cat_1").bytes_list().value(0), "C");
  EXPECT_EQ(features.at("Num_1").float_list().value(0), 4.0f);

  const fs::path copy = folder / "copy.tfrecord";
  write_tfrecords(copy, records);
  EXPECT_EQ(contents_of(copy), kTensorFlowWrittenFile);
}

TEST(TfRecord, EncodedExampleBytesFollowTheExampleProto) {
  // Example{features{feature{"inputs": int64_list[5, 1]}, feature{"targets": int64_list[7, 8, 1]}}}
  // assembled by hand from the field numbers of tensorflow/core/example/{example,feature}.proto.
  const std::string inputs_entry =
      std::string("\x0a\x06inputs\x12\x06\x1a\x04\x0a\x02\x05\x01", 16);
  const std::string targets_entry =
      std::string("\x0a\x07targets\x12\x07\x1a\x05\x0a\x03\x07\x08\x01", 18);
  const std::string features =
      std::string("\x0a\x10", 2) + inputs_entry + std::string("\x0a\x12", 2) + targets_entry;
  const std::string payload = std::string("\x0a\x26", 2) + features;
  ASSERT_EQ(payload.size(), 40u);

  const fs::path file = fresh_test_folder("wmt_tfrecord") / "one.tfrecord";
  write_encoded_examples(file, {{{5, 1}, {7, 8, 1}}});
  EXPECT_EQ(contents_of(file), framed(payload));
  EXPECT_FALSE(fs::exists(fs::path(file.string() + ".incomplete")));
}

TEST(TfRecord, EncodedExamplesRoundTrip) {
  const std::vector<EncodedPair> pairs = {
      {{5, 1}, {7, 8, 1}}, {{1}, {1}}, {{}, {}}, {{33707, 0, 2, 1}, {300, 1}}};
  const fs::path file = fresh_test_folder("wmt_tfrecord") / "pairs.tfrecord";
  write_encoded_examples(file, pairs);
  const std::vector<EncodedPair> read = read_encoded_examples(file, 33708);
  ASSERT_EQ(read.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(read[i].source, pairs[i].source) << i;
    EXPECT_EQ(read[i].target, pairs[i].target) << i;
  }
  write_encoded_examples(file, {});
  EXPECT_TRUE(read_encoded_examples(file, 10).empty());
  EXPECT_EQ(contents_of(file), "");
}

TEST(TfRecord, RawRecordsRoundTrip) {
  const std::vector<std::string> records = {"", std::string("\0\1\2", 3), std::string(1000, 'z')};
  const fs::path file = fresh_test_folder("wmt_tfrecord") / "raw.tfrecord";
  write_tfrecords(file, records);
  EXPECT_EQ(read_tfrecords(file), records);
  EXPECT_EQ(contents_of(file), framed(records[0]) + framed(records[1]) + framed(records[2]));
}

TEST(TfRecord, CorruptOrTruncatedFilesAreUserErrorsNamingFileAndRecord) {
  const fs::path folder = fresh_test_folder("wmt_tfrecord");
  const fs::path good = folder / "good.tfrecord";
  write_encoded_examples(good, {{{5, 1}, {7, 1}}, {{6, 1}, {8, 1}}});
  const std::string bytes = contents_of(good);
  const size_t first_record = bytes.size() / 2;  // both records have the same size

  const fs::path bad = folder / "bad.tfrecord";
  std::string flipped = bytes;
  flipped[first_record + 12 + 3] ^= 0x10;  // inside record 1's data
  write_bytes(bad, flipped);
  std::string message = user_error_of([&] { read_encoded_examples(bad, 100); });
  EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
  EXPECT_NE(message.find("record 1"), std::string::npos) << message;
  EXPECT_NE(message.find("CRC of the"), std::string::npos) << message;

  flipped = bytes;
  flipped[2] ^= 0x01;  // record 0's length
  write_bytes(bad, flipped);
  message = user_error_of([&] { read_tfrecords(bad); });
  EXPECT_NE(message.find("record 0"), std::string::npos) << message;
  EXPECT_NE(message.find("length field"), std::string::npos) << message;

  for (const size_t cut : {bytes.size() - 1, first_record + 5, first_record + 20}) {
    write_bytes(bad, bytes.substr(0, cut));
    message = user_error_of([&] { read_encoded_examples(bad, 100); });
    EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
    EXPECT_NE(message.find("record 1"), std::string::npos) << message;
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  }

  message = user_error_of([&] { read_encoded_examples(folder / "absent.tfrecord", 100); });
  EXPECT_NE(message.find("absent.tfrecord: no such file"), std::string::npos) << message;
  message = user_error_of([&] { read_tfrecords(folder); });
  EXPECT_NE(message.find("is a folder"), std::string::npos) << message;
}

TEST(TfRecord, RecordsThatAreNotTheExpectedExamplesAreUserErrors) {
  const fs::path folder = fresh_test_folder("wmt_tfrecord");
  const fs::path toy = folder / "toy.tfrecord";
  write_bytes(toy, kTensorFlowWrittenFile);
  std::string message = user_error_of([&] { read_encoded_examples(toy, 100); });
  EXPECT_NE(message.find(toy.string() + ": record 0"), std::string::npos) << message;
  EXPECT_NE(message.find("no int64 feature \"inputs\""), std::string::npos) << message;
  EXPECT_NE(message.find("\"Bool_1\""), std::string::npos) << message;

  const fs::path garbage = folder / "garbage.tfrecord";
  write_tfrecords(garbage, {std::string("\xff\xff\xff", 3)});
  message = user_error_of([&] { read_encoded_examples(garbage, 100); });
  EXPECT_NE(message.find("not a serialized tf.train.Example"), std::string::npos) << message;

  mlh::tf::Example float_targets;
  auto& feature = *float_targets.mutable_features()->mutable_feature();
  feature["inputs"].mutable_int64_list()->add_value(1);
  feature["targets"].mutable_float_list()->add_value(1.0f);
  const fs::path floats = folder / "floats.tfrecord";
  write_tfrecords(floats, {float_targets.SerializeAsString()});
  message = user_error_of([&] { read_encoded_examples(floats, 100); });
  EXPECT_NE(message.find("no int64 feature \"targets\""), std::string::npos) << message;
}

TEST(TfRecord, IdsOutsideTheVocabularyAreUserErrors) {
  const fs::path file = fresh_test_folder("wmt_tfrecord") / "ids.tfrecord";
  write_encoded_examples(file, {{{5, 1}, {7, 1}}, {{6, 1}, {100, 1}}});
  EXPECT_EQ(read_encoded_examples(file, 101).size(), 2u);
  std::string message = user_error_of([&] { read_encoded_examples(file, 100); });
  EXPECT_NE(message.find(file.string() + ": record 1"), std::string::npos) << message;
  EXPECT_NE(message.find("\"targets\" holds id 100, outside the vocabulary [0, 100)"),
            std::string::npos)
      << message;
  write_encoded_examples(file, {{{-3, 1}, {7, 1}}});
  message = user_error_of([&] { read_encoded_examples(file, 100); });
  EXPECT_NE(message.find("\"inputs\" holds id -3"), std::string::npos) << message;
}

TEST(TfRecord, WritingIntoAMissingFolderIsAUserError) {
  const fs::path file = fresh_test_folder("wmt_tfrecord") / "no" / "such" / "x.tfrecord";
  const std::string message = user_error_of([&] { write_encoded_examples(file, {{{1}, {1}}}); });
  EXPECT_NE(message.find(file.string() + ": cannot be written"), std::string::npos) << message;
}

TEST(EncodedShards, NamesFollowProcessData) {
  EXPECT_EQ(encoded_shard_name(kEncodedPrefix, kTrainSplit, 1, 100),
            "wmt32k-encoded-train-00001-of-00100");
  EXPECT_EQ(encoded_shard_name(kEncodedPrefix, kTrainSplit, 100, 100),
            "wmt32k-encoded-train-00100-of-00100");
  EXPECT_EQ(encoded_shard_name(kEncodedPrefix, kDevSplit, 1, 1),
            "wmt32k-encoded-dev-00001-of-00001");
}

TEST(EncodedShards, ListsOneSplitSortedAndIgnoresOtherFiles) {
  const fs::path folder = fresh_test_folder("wmt_tfrecord");
  for (const int shard : {3, 1, 2})
    touch(folder / encoded_shard_name(kEncodedPrefix, "train", shard, 3));
  touch(folder / encoded_shard_name(kEncodedPrefix, "dev", 1, 1));
  touch(folder / (encoded_shard_name(kEncodedPrefix, "train", 2, 3) + ".incomplete"));
  touch(folder / "wmt32k-encoded-train-0001-of-00003");
  touch(folder / "vocab.ende.32768");
  const std::vector<fs::path> train = encoded_shard_files(folder, kEncodedPrefix, "train");
  ASSERT_EQ(train.size(), 3u);
  for (int shard = 1; shard <= 3; ++shard) {
    EXPECT_EQ(train[shard - 1], folder / encoded_shard_name(kEncodedPrefix, "train", shard, 3));
  }
  EXPECT_EQ(encoded_shard_files(folder, kEncodedPrefix, "dev"),
            std::vector<fs::path>{folder / "wmt32k-encoded-dev-00001-of-00001"});
}

TEST(EncodedShards, MissingOrInconsistentShardsAreUserErrors) {
  const fs::path folder = fresh_test_folder("wmt_tfrecord");
  std::string message =
      user_error_of([&] { encoded_shard_files(folder, kEncodedPrefix, "train"); });
  EXPECT_NE(message.find(folder.string()), std::string::npos) << message;
  EXPECT_NE(message.find("wmt32k-encoded-train-NNNNN-of-MMMMM"), std::string::npos) << message;

  touch(folder / encoded_shard_name(kEncodedPrefix, "train", 1, 3));
  touch(folder / encoded_shard_name(kEncodedPrefix, "train", 3, 3));
  message = user_error_of([&] { encoded_shard_files(folder, kEncodedPrefix, "train"); });
  EXPECT_NE(message.find("holds 2 wmt32k-encoded-train-NNNNN-of-MMMMM files"), std::string::npos)
      << message;
  EXPECT_NE(message.find("MMMMM = 3"), std::string::npos) << message;
  EXPECT_NE(message.find("missing shards include 00002"), std::string::npos) << message;

  touch(folder / encoded_shard_name(kEncodedPrefix, "train", 2, 4));
  message = user_error_of([&] { encoded_shard_files(folder, kEncodedPrefix, "train"); });
  EXPECT_NE(message.find("disagree on their count"), std::string::npos) << message;

  message = user_error_of([&] { encoded_shard_files(folder / "absent", kEncodedPrefix, "train"); });
  EXPECT_NE(message.find("absent: no such folder"), std::string::npos) << message;
}

}  // namespace
}  // namespace mlh::wmt
