#include "harness/eval_schedule.h"

#include <algorithm>
#include <string>

#include "base/user_error.h"

namespace mlh {

namespace {

void check_max_epochs(int64_t max_epochs) {
  if (max_epochs < 1) throw UserError("key 'max_epochs' must be at least 1");
}

}  // namespace

EvalSchedule EvalSchedule::every(int64_t every_epochs, int64_t offset, int64_t max_epochs) {
  check_max_epochs(max_epochs);
  if (every_epochs < 1) throw UserError("key 'eval_every_epochs' must be at least 1");
  if (offset < -1 || offset >= every_epochs)
    throw UserError("key 'eval_offset' is " + std::to_string(offset) + "; it must be from 0 to eval_every_epochs - 1 (" +
                    std::to_string(every_epochs - 1) + "), or -1 for eval_every_epochs - 1");
  EvalSchedule schedule;
  schedule.max_epochs_ = max_epochs;
  schedule.every_ = every_epochs;
  schedule.offset_ = offset == -1 ? every_epochs - 1 : offset;
  return schedule;
}

EvalSchedule EvalSchedule::at_epochs(std::vector<int64_t> epochs, int64_t max_epochs) {
  check_max_epochs(max_epochs);
  if (epochs.empty()) throw UserError("key 'eval_epochs' is empty; list the epochs to evaluate after, e.g. [40, 50, 55]");
  for (size_t i = 0; i < epochs.size(); ++i) {
    if (epochs[i] < 1)
      throw UserError("key 'eval_epochs' holds " + std::to_string(epochs[i]) + "; epochs are numbered from 1");
    if (i > 0 && epochs[i] <= epochs[i - 1])
      throw UserError("key 'eval_epochs' must be strictly increasing; " + std::to_string(epochs[i]) + " follows " +
                      std::to_string(epochs[i - 1]));
  }
  EvalSchedule schedule;
  schedule.max_epochs_ = max_epochs;
  schedule.listed_ = std::move(epochs);
  return schedule;
}

bool EvalSchedule::evaluates_after(int64_t epoch) const {
  if (epoch == max_epochs_) return true;
  if (!listed_.empty()) return std::binary_search(listed_.begin(), listed_.end(), epoch);
  return (epoch - 1) % every_ == offset_;
}

EvalBlock EvalSchedule::block_from(int64_t first_epoch) const {
  MLH_ASSERT(first_epoch >= 1 && first_epoch <= max_epochs_);
  int64_t last = max_epochs_;
  if (!listed_.empty()) {
    const auto next = std::lower_bound(listed_.begin(), listed_.end(), first_epoch);
    if (next != listed_.end()) last = std::min(last, *next);
  } else {
    // The first e >= first_epoch with (e - 1) % every == offset.
    const int64_t behind = ((offset_ - (first_epoch - 1)) % every_ + every_) % every_;
    last = std::min(last, first_epoch + behind);
  }
  return {first_epoch, last - first_epoch + 1};
}

std::vector<EvalBlock> EvalSchedule::blocks() const {
  std::vector<EvalBlock> all;
  for (int64_t first = 1; first <= max_epochs_; first = all.back().last_epoch() + 1) all.push_back(block_from(first));
  return all;
}

}  // namespace mlh
