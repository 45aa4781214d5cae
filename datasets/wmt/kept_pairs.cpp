#include "datasets/wmt/kept_pairs.h"

#include <algorithm>

#include "base/user_error.h"
#include "datasets/wmt/subword_codec.h"

namespace mlh::wmt {

LengthPolicy parse_length_policy(const std::string& text, const std::string& key) {
  if (text == "discard") return LengthPolicy::kDiscard;
  if (text == "truncate") return LengthPolicy::kTruncate;
  throw UserError(key + ": unknown length policy '" + text +
                  "'; use discard (drop pairs longer than max_length, as the reference) or "
                  "truncate (cut them to max_length)");
}

const char* length_policy_name(LengthPolicy policy) {
  return policy == LengthPolicy::kDiscard ? "discard" : "truncate";
}

KeptPairs::KeptPairs(const std::vector<EncodedPair>& pairs, int64_t max_length_tokens,
                     LengthPolicy policy)
    : pairs_(pairs) {
  MLH_ASSERT(max_length_tokens >= 1);
  const auto max_length = static_cast<size_t>(max_length_tokens);
  for (size_t i = 0; i < pairs_.size(); ++i) {
    size_t source = pairs_[i].source.size();
    size_t target = pairs_[i].target.size();
    if (source > max_length || target > max_length) {
      if (policy == LengthPolicy::kDiscard) {
        ++dropped_;
        continue;
      }
      ++truncated_;
      source = std::min(source, max_length);
      target = std::min(target, max_length);
    }
    pair_index_.push_back(static_cast<int64_t>(i));
    source_length_.push_back(static_cast<int32_t>(source));
    target_length_.push_back(static_cast<int32_t>(target));
  }
}

PaddedIds KeptPairs::padded(const std::vector<int64_t>& kept, bool sources) const {
  const std::vector<int32_t>& lengths = sources ? source_length_ : target_length_;
  PaddedIds out;
  out.rows = static_cast<int64_t>(kept.size());
  for (const int64_t k : kept) {
    MLH_ASSERT(k >= 0 && k < count());
    out.columns = std::max<int64_t>(out.columns, lengths[static_cast<size_t>(k)]);
  }
  out.ids.assign(static_cast<size_t>(out.rows * out.columns), kPadId);
  for (size_t row = 0; row < kept.size(); ++row) {
    const auto k = static_cast<size_t>(kept[row]);
    const EncodedPair& pair = pairs_[static_cast<size_t>(pair_index_[k])];
    const TokenIds& ids = sources ? pair.source : pair.target;
    const auto length = static_cast<size_t>(lengths[k]);
    int32_t* destination = out.ids.data() + row * static_cast<size_t>(out.columns);
    std::copy_n(ids.begin(), length, destination);
    if (length < ids.size()) destination[length - 1] = ids.back();  // cut: EOS stays last
  }
  return out;
}

}  // namespace mlh::wmt
