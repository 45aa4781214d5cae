// The on-disk form of encoded translation data, as the MLPerf transformer's process_data.py writes
// it: TFRecord files (u64 length, masked CRC-32C of the length, a serialized tf.train.Example,
// masked CRC-32C of the data; all little-endian) whose Examples hold int64 lists "inputs" (source)
// and "targets", each with EOS appended. `mlharness prepare` writes the same form, so real and
// prepared data share one loader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/wmt/sentence_pair.h"

namespace mlh::wmt {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): crc32c("123456789") == 0xE3069283.
uint32_t crc32c(const void* data, size_t size);
// TFRecord's masked form of the CRC-32C: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t masked_crc32c(const void* data, size_t size);

// The payloads of one TFRecord file, in order. Throws UserError naming the file (and the record
// index, from 0) for a missing or unreadable file, a record cut short, or a CRC mismatch.
std::vector<std::string> read_tfrecords(const std::filesystem::path& file);
// Writes `records` as one TFRecord file: to "<file>.incomplete" first, renamed when complete, so an
// interrupted write leaves no file under the final name. Throws UserError when it cannot be
// written.
void write_tfrecords(const std::filesystem::path& file, const std::vector<std::string>& records);

// Reads every example of one file. Throws UserError naming the file (and the record index) for what
// read_tfrecords rejects, a record that is not a tf.train.Example, an Example without int64 lists
// "inputs"/"targets", or an id outside [0, vocabulary_size).
std::vector<EncodedPair> read_encoded_examples(const std::filesystem::path& file,
                                               int64_t vocabulary_size);

// Writes `pairs` as one TFRecord file as write_tfrecords does; features are serialized in key order
// ("inputs", "targets"), so equal pairs give equal bytes.
void write_encoded_examples(const std::filesystem::path& file,
                            const std::vector<EncodedPair>& pairs);

// The file name of shard `shard` of `count`, numbered from 1 as process_data.py numbers them:
// encoded_shard_name("wmt32k-encoded", "train", 3, 100) == "wmt32k-encoded-train-00003-of-00100".
std::string encoded_shard_name(const std::string& prefix, const std::string& split, int shard,
                               int count);

// The shard files of one split in `data_dir`, sorted by shard number: every
// "<prefix>-<split>-NNNNN-of-MMMMM" (other names, such as "*.incomplete", are ignored). Throws
// UserError naming the folder and the pattern when the folder is missing, when no shard exists,
// when the files disagree on MMMMM, or when their number is not MMMMM.
std::vector<std::filesystem::path> encoded_shard_files(const std::filesystem::path& data_dir,
                                                       const std::string& prefix,
                                                       const std::string& split);

}  // namespace mlh::wmt
