// The ImageNet class index file that orders the folder listing (LOC_synset_mapping.txt):
// datasets/imagenet/folder.h. Listing the folder itself parses no file contents.
#include <cstddef>
#include <cstdint>

#include "base/user_error.h"
#include "datasets/imagenet/folder.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mlh::fuzz::write_input("LOC_synset_mapping.txt", data, size);
  try {
    mlh::imagenet::read_class_index(path);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
