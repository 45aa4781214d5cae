// The translation pairs a batcher keeps under a length limit, shared by the Transformer's
// TokenBatcher and GNMT's SentenceBatcher: a pair longer than max_length tokens on either side is
// dropped (kDiscard, the references) or cut to max_length with its last id, EOS, kept last
// (kTruncate; the v0.7 rules allow either). Kept pairs are numbered 0..count()-1 in input order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/wmt/sentence_pair.h"

namespace mlh::wmt {

enum class LengthPolicy { kDiscard, kTruncate };

// "discard" or "truncate"; anything else throws UserError naming `key`.
LengthPolicy parse_length_policy(const std::string& text, const std::string& key);
const char* length_policy_name(LengthPolicy policy);

// Token ids of several pairs' sources or targets, row-major, each row padded with kPadId (0) to the
// longest row.
struct PaddedIds {
  int64_t rows = 0;
  int64_t columns = 0;
  std::vector<int32_t> ids;
};

class KeptPairs {
 public:
  // `pairs` is not owned and must outlive this object unchanged; max_length >= 1.
  KeptPairs(const std::vector<EncodedPair>& pairs, int64_t max_length, LengthPolicy policy);

  int64_t count() const { return static_cast<int64_t>(pair_index_.size()); }
  int64_t dropped() const { return dropped_; }
  int64_t truncated() const { return truncated_; }

  // Kept pair `kept` as an index into the constructor's `pairs`, and its lengths after cutting.
  int64_t pair_index(int64_t kept) const { return pair_index_[static_cast<size_t>(kept)]; }
  int64_t source_length(int64_t kept) const { return source_length_[static_cast<size_t>(kept)]; }
  int64_t target_length(int64_t kept) const { return target_length_[static_cast<size_t>(kept)]; }

  // The (cut) source or target ids of kept pairs `kept`, padded to the longest of them.
  PaddedIds padded(const std::vector<int64_t>& kept, bool sources) const;

 private:
  const std::vector<EncodedPair>& pairs_;
  std::vector<int64_t> pair_index_;
  std::vector<int32_t> source_length_;
  std::vector<int32_t> target_length_;
  int64_t dropped_ = 0;
  int64_t truncated_ = 0;
};

}  // namespace mlh::wmt
