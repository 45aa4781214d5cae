// TFRecord files of encoded translation pairs (datasets/wmt/tfrecord.h): the record framing and
// CRCs, then each payload as a tf.train.Example of "inputs"/"targets" ids below a vocabulary size.
#include <cstddef>
#include <cstdint>

#include "base/user_error.h"
#include "datasets/wmt/tfrecord.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mlh::fuzz::write_input("wmt32k-encoded-train-00001-of-00001", data, size);
  try {
    mlh::wmt::read_encoded_examples(path, /*vocabulary_size=*/33708);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
