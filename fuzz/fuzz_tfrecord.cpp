// TFRecord files of encoded translation pairs (datasets/wmt/tfrecord.h): the record framing and
// CRCs, then each payload as a tf.train.Example of "inputs"/"targets" ids below a vocabulary size.
// First byte even: the rest is the file as it is. Odd: the rest is payloads, each a length byte and
// that many bytes (the last one cut at the end), written as a file with the right CRCs, so mutated
// Examples reach the protobuf parsing instead of stopping at a CRC mismatch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "datasets/wmt/tfrecord.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char* name = "wmt32k-encoded-train-00001-of-00001";
  std::string path;
  if (data[0] % 2 == 0) {
    path = mlh::fuzz::write_input(name, data + 1, size - 1);
  } else {
    std::vector<std::string> payloads;
    for (size_t at = 1; at < size;) {
      const size_t length = std::min<size_t>(data[at], size - at - 1);
      payloads.emplace_back(reinterpret_cast<const char*>(data + at + 1), length);
      at += 1 + length;
    }
    path = (mlh::fuzz::scratch_folder() / name).string();
    mlh::wmt::write_tfrecords(path, payloads);
  }
  try {
    mlh::wmt::read_encoded_examples(path, /*vocabulary_size=*/33708);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
