// BPE codes files as apply_bpe.py reads them (datasets/wmt/bpe_codes.h); codes that read are applied
// to a fixed line, so the merges' symbols meet the encoder.
#include <cstddef>
#include <cstdint>

#include "base/user_error.h"
#include "datasets/wmt/bpe_codes.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mlh::fuzz::write_input("bpe.32000", data, size);
  try {
    const mlh::wmt::BpeCodes codes = mlh::wmt::read_bpe_codes(path);
    mlh::wmt::BpeEncoder encoder(codes);
    encoder.apply(" the lower newest widest Straße  in lowest </w> @@ e\r");
  } catch (const mlh::UserError&) {
  }
  return 0;
}
