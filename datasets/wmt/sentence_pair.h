// Token ids of translation data, shared by the Transformer and GNMT loaders.
#pragma once

#include <cstdint>
#include <vector>

namespace mlh::wmt {

using TokenIds = std::vector<int32_t>;

// One training or dev example: source and target subword ids, each ending with the codec's EOS id
// (as the MLPerf transformer's process_data.py appends EOS = 1). No padding.
struct EncodedPair {
  TokenIds source;
  TokenIds target;
};

}  // namespace mlh::wmt
