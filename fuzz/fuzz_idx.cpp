// IDX files (MNIST, Fashion-MNIST), raw or gzip: datasets/idx.h.
#include <cstddef>
#include <cstdint>

#include "base/user_error.h"
#include "datasets/idx.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mlh::fuzz::write_input("images-idx3-ubyte", data, size);
  try {
    mlh::read_idx(path);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
