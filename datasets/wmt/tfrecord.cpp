#include "datasets/wmt/tfrecord.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <system_error>
#include <utility>

#include "base/user_error.h"
#include "tf_example.pb.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kCastagnoliReflected = 0x82F63B78u;
constexpr uint32_t kMaskDelta = 0xa282ead8u;
constexpr size_t kHeaderBytes = 12;  // u64 length + u32 masked CRC of the length
constexpr size_t kFooterBytes = 4;   // u32 masked CRC of the data
constexpr char kSourceFeature[] = "inputs";
constexpr char kTargetFeature[] = "targets";
constexpr char kRemedy[] = "write the data again (process_data.py, or `mlharness prepare`)";

// Slicing-by-8 tables: kCrcTables[0] is the classic byte table, kCrcTables[k][b] advances the CRC
// of byte b followed by k zero bytes.
using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr CrcTables make_crc_tables() {
  CrcTables tables{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kCastagnoliReflected : 0u);
    tables[0][byte] = crc;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xffu];
    }
  }
  return tables;
}

constexpr CrcTables kCrcTables = make_crc_tables();

uint64_t load_le64(const unsigned char* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

uint32_t load_le32(const unsigned char* bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
         uint32_t{bytes[3]} << 24;
}

void append_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xffu));
}

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08X", static_cast<unsigned>(value));
  return text;
}

std::string read_whole_file(const fs::path& file) {
  std::error_code status_error;
  const fs::file_status status = fs::status(file, status_error);
  if (!fs::exists(status)) {
    throw UserError(file.string() + ": no such file; " + kRemedy);
  }
  if (fs::is_directory(status)) {
    throw UserError(file.string() + ": is a folder, expected a TFRecord file");
  }
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw UserError(file.string() + ": cannot be opened (" +
                    (errno != 0 ? std::strerror(errno) : "unknown reason") +
                    "); check that the file is readable");
  }
  std::string bytes;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) {
    bytes.resize(static_cast<size_t>(size));
    in.read(bytes.data(), size);
  }
  if (!in || in.gcount() != size) {
    throw UserError(file.string() + ": cannot be read to its end; check the file and the disk");
  }
  return bytes;
}

std::string record_prefix(const fs::path& file, int64_t index) {
  return file.string() + ": record " + std::to_string(index) + " (from 0)";
}

// Calls visit(index, data, size) for each record of `bytes` (the contents of `file`).
void for_each_record(const fs::path& file, const std::string& bytes,
                     const std::function<void(int64_t, const char*, size_t)>& visit) {
  const auto* base = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t size = bytes.size();
  size_t offset = 0;
  for (int64_t index = 0; offset < size; ++index) {
    const size_t left = size - offset;
    if (left < kHeaderBytes) {
      throw UserError(record_prefix(file, index) + ": the file ends inside the record's " +
                      std::to_string(kHeaderBytes) + "-byte header (" + std::to_string(left) +
                      " bytes left); the file is truncated: " + kRemedy);
    }
    const uint64_t length = load_le64(base + offset);
    const uint32_t length_crc = load_le32(base + offset + 8);
    if (masked_crc32c(base + offset, 8) != length_crc) {
      throw UserError(record_prefix(file, index) +
                      ": the CRC of the length field does not match (" + hex32(length_crc) +
                      " stored, " + hex32(masked_crc32c(base + offset, 8)) +
                      " computed); the file is corrupt or not a TFRecord file: " + kRemedy);
    }
    if (length > left - kHeaderBytes || left - kHeaderBytes - length < kFooterBytes) {
      throw UserError(record_prefix(file, index) + ": declares " + std::to_string(length) +
                      " bytes of data, the file has " + std::to_string(left - kHeaderBytes) +
                      " bytes left for data and its 4-byte CRC; the file is truncated: " + kRemedy);
    }
    const unsigned char* data = base + offset + kHeaderBytes;
    const uint32_t data_crc = load_le32(data + length);
    if (masked_crc32c(data, length) != data_crc) {
      throw UserError(record_prefix(file, index) + ": the CRC of the " + std::to_string(length) +
                      " data bytes does not match (" + hex32(data_crc) + " stored, " +
                      hex32(masked_crc32c(data, length)) +
                      " computed); the file is corrupt: " + kRemedy);
    }
    visit(index, reinterpret_cast<const char*>(data), length);
    offset += kHeaderBytes + length + kFooterBytes;
  }
}

std::string feature_names(const mlh::tf::Example& example) {
  std::vector<std::string> names;
  for (const auto& entry : example.features().feature()) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + ("\"" + name + "\"");
  return text.empty() ? "none" : text;
}

TokenIds feature_ids(const fs::path& file, int64_t index, const mlh::tf::Example& example,
                     const char* name, int64_t vocabulary_size) {
  const auto& features = example.features().feature();
  const auto found = features.find(name);
  if (found == features.end() || found->second.kind_case() != mlh::tf::Feature::kInt64List) {
    throw UserError(record_prefix(file, index) + ": has no int64 feature \"" + name +
                    "\" (features: " + feature_names(example) +
                    "); expected the Examples of process_data.py, int64 lists \"inputs\" and "
                    "\"targets\"");
  }
  const auto& values = found->second.int64_list().value();
  TokenIds ids;
  ids.reserve(static_cast<size_t>(values.size()));
  for (const int64_t id : values) {
    if (id < 0 || id >= vocabulary_size) {
      throw UserError(record_prefix(file, index) + ": \"" + name + "\" holds id " +
                      std::to_string(id) + ", outside the vocabulary [0, " +
                      std::to_string(vocabulary_size) +
                      "); the data was encoded with another vocabulary than the one in use");
    }
    ids.push_back(static_cast<int32_t>(id));
  }
  return ids;
}

void set_ids(mlh::tf::Example& example, const char* name, const TokenIds& ids) {
  auto* list = (*example.mutable_features()->mutable_feature())[name].mutable_int64_list();
  list->mutable_value()->Reserve(static_cast<int>(ids.size()));
  for (const int32_t id : ids) list->add_value(id);
}

std::string serialize_deterministically(const mlh::tf::Example& example) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    example.SerializeToCodedStream(&coded);
  }
  return bytes;
}

// Parses "NNNNN-of-MMMMM" (each at least 5 digits) into {NNNNN, MMMMM}; false for anything else.
bool parse_shard_numbers(const std::string& text, int64_t& shard, int64_t& count) {
  const size_t separator = text.find("-of-");
  if (separator == std::string::npos) return false;
  const auto parse = [](const std::string& digits, int64_t& value) {
    if (digits.size() < 5 || digits.size() > 9) return false;
    value = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    return true;
  };
  return parse(text.substr(0, separator), shard) && parse(text.substr(separator + 4), count);
}

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint32_t crc = 0xffffffffu;
  while (size >= 8) {
    const uint32_t low = crc ^ load_le32(bytes);
    const uint32_t high = load_le32(bytes + 4);
    crc = kCrcTables[7][low & 0xffu] ^ kCrcTables[6][(low >> 8) & 0xffu] ^
          kCrcTables[5][(low >> 16) & 0xffu] ^ kCrcTables[4][low >> 24] ^
          kCrcTables[3][high & 0xffu] ^ kCrcTables[2][(high >> 8) & 0xffu] ^
          kCrcTables[1][(high >> 16) & 0xffu] ^ kCrcTables[0][high >> 24];
    bytes += 8;
    size -= 8;
  }
  for (; size > 0; --size, ++bytes) crc = (crc >> 8) ^ kCrcTables[0][(crc ^ *bytes) & 0xffu];
  return crc ^ 0xffffffffu;
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

std::vector<std::string> read_tfrecords(const fs::path& file) {
  const std::string bytes = read_whole_file(file);
  std::vector<std::string> records;
  for_each_record(file, bytes, [&](int64_t, const char* data, size_t size) {
    records.emplace_back(data, size);
  });
  return records;
}

void write_tfrecords(const fs::path& file, const std::vector<std::string>& records) {
  fs::path partial = file;
  partial += ".incomplete";
  std::string framed;
  {
    errno = 0;
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (out) {
      for (const std::string& record : records) {
        framed.clear();
        append_le(framed, record.size(), 8);
        append_le(framed, masked_crc32c(framed.data(), 8), 4);
        out.write(framed.data(), static_cast<std::streamsize>(framed.size()));
        out.write(record.data(), static_cast<std::streamsize>(record.size()));
        framed.clear();
        append_le(framed, masked_crc32c(record.data(), record.size()), 4);
        out.write(framed.data(), static_cast<std::streamsize>(framed.size()));
      }
      out.close();
    }
    if (!out) {
      const std::string reason = errno != 0 ? std::strerror(errno) : "write failed";
      std::error_code ignored;
      fs::remove(partial, ignored);
      throw UserError(file.string() + ": cannot be written (" + reason +
                      "); check that its folder exists, is writable and has space");
    }
  }
  std::error_code rename_error;
  fs::rename(partial, file, rename_error);
  if (rename_error) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw UserError(file.string() + ": cannot be written (rename from " + partial.string() +
                    " failed: " + rename_error.message() + ")");
  }
}

std::vector<EncodedPair> read_encoded_examples(const fs::path& file, int64_t vocabulary_size) {
  MLH_ASSERT(vocabulary_size > 0 && vocabulary_size <= std::numeric_limits<int32_t>::max());
  const std::string bytes = read_whole_file(file);
  std::vector<EncodedPair> pairs;
  mlh::tf::Example example;
  for_each_record(file, bytes, [&](int64_t index, const char* data, size_t size) {
    if (size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !example.ParseFromArray(data, static_cast<int>(size))) {
      throw UserError(record_prefix(file, index) + ": is not a serialized tf.train.Example (" +
                      std::to_string(size) + " bytes); " + kRemedy);
    }
    EncodedPair pair;
    pair.source = feature_ids(file, index, example, kSourceFeature, vocabulary_size);
    pair.target = feature_ids(file, index, example, kTargetFeature, vocabulary_size);
    pairs.push_back(std::move(pair));
  });
  return pairs;
}

void write_encoded_examples(const fs::path& file, const std::vector<EncodedPair>& pairs) {
  std::vector<std::string> records;
  records.reserve(pairs.size());
  for (const EncodedPair& pair : pairs) {
    mlh::tf::Example example;
    set_ids(example, kSourceFeature, pair.source);
    set_ids(example, kTargetFeature, pair.target);
    records.push_back(serialize_deterministically(example));
  }
  write_tfrecords(file, records);
}

std::string encoded_shard_name(const std::string& prefix, const std::string& split, int shard,
                               int count) {
  MLH_ASSERT(count >= 1 && shard >= 1 && shard <= count);
  char numbers[32];
  std::snprintf(numbers, sizeof(numbers), "-%05d-of-%05d", shard, count);
  return prefix + "-" + split + numbers;
}

std::vector<fs::path> encoded_shard_files(const fs::path& data_dir, const std::string& prefix,
                                          const std::string& split) {
  const std::string stem = prefix + "-" + split + "-";
  const std::string pattern = stem + "NNNNN-of-MMMMM";
  std::error_code status_error;
  if (!fs::is_directory(data_dir, status_error)) {
    throw UserError(data_dir.string() + ": no such folder; give the data folder that holds the " +
                    pattern + " files (process_data.py output, or `mlharness prepare`)");
  }
  std::map<int64_t, fs::path> shards;     // shard number -> file
  std::map<int64_t, std::string> counts;  // declared count -> one file that declares it
  std::error_code list_error;
  for (fs::directory_iterator entry(data_dir, list_error), end; !list_error && entry != end;
       entry.increment(list_error)) {
    const std::string name = entry->path().filename().string();
    int64_t shard = 0;
    int64_t count = 0;
    if (name.compare(0, stem.size(), stem) != 0 ||
        !parse_shard_numbers(name.substr(stem.size()), shard, count)) {
      continue;
    }
    shards[shard] = entry->path();
    counts.emplace(count, name);
  }
  if (list_error) {
    throw UserError(data_dir.string() + ": cannot be listed (" + list_error.message() + ")");
  }
  if (shards.empty()) {
    throw UserError(data_dir.string() + ": holds no " + pattern +
                    " files; run process_data.py or `mlharness prepare` into this folder");
  }
  if (counts.size() > 1) {
    throw UserError(data_dir.string() + ": the " + pattern + " files disagree on their count (" +
                    counts.begin()->second + " vs " + counts.rbegin()->second +
                    "); remove the files of the other run");
  }
  const int64_t declared = counts.begin()->first;
  if (static_cast<int64_t>(shards.size()) != declared) {
    std::string missing;
    int listed = 0;
    for (int64_t shard = 1; shard <= declared && listed < 5; ++shard) {
      if (shards.count(shard) == 0) {
        char number[24];
        std::snprintf(number, sizeof(number), "%05lld", static_cast<long long>(shard));
        missing += std::string(listed++ == 0 ? "" : ", ") + number;
      }
    }
    throw UserError(
        data_dir.string() + ": holds " + std::to_string(shards.size()) + " " + pattern +
        " files, but their names say MMMMM = " + std::to_string(declared) +
        (missing.empty() ? std::string() : " (missing shards include " + missing + ")") +
        "; the folder is incomplete or mixed: " + kRemedy);
  }
  std::vector<fs::path> files;
  files.reserve(shards.size());
  for (auto& entry : shards) files.push_back(std::move(entry.second));
  return files;
}

}  // namespace mlh::wmt
