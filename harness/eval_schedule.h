// When the engine evaluates, as data: every N epochs with a first-evaluation offset (ResNet v0.7:
// every 4 epochs, offset 0-3), or an explicit list of epochs (SSD v0.7: 40, 50, 55, ... 80). Epochs
// are numbered from 1, as in MLPerf logs. The run's last epoch (max_epochs) always ends with an
// evaluation, so every run ends with a known quality.
// A block is the epochs up to and including an evaluation; the engine logs each one as
// block_start {first_epoch_num, epoch_count} .. block_stop {first_epoch_num}, as the references do.
#pragma once

#include <cstdint>
#include <vector>

namespace mlh {

struct EvalBlock {
  int64_t first_epoch = 1;
  int64_t epoch_count = 1;
  int64_t last_epoch() const { return first_epoch + epoch_count - 1; }  // the evaluated epoch
  bool operator==(const EvalBlock& other) const {
    return first_epoch == other.first_epoch && epoch_count == other.epoch_count;
  }
};

class EvalSchedule {
 public:
  // Evaluations after epochs offset+1, offset+1+every, offset+1+2*every, ... : NVIDIA's v0.7
  // ResNet `eval_offset` (0-based epoch e is evaluated when e % every == offset). offset -1 means
  // every-1, i.e. after epochs every, 2*every, ... Throws UserError, naming the keys
  // eval_every_epochs, eval_offset and max_epochs, unless every >= 1, -1 <= offset < every and
  // max_epochs >= 1.
  static EvalSchedule every(int64_t every_epochs, int64_t offset, int64_t max_epochs);
  // Evaluations after the listed epochs (those beyond max_epochs are never reached). Throws
  // UserError, naming the key eval_epochs, unless the list is non-empty, positive and strictly
  // increasing.
  static EvalSchedule at_epochs(std::vector<int64_t> epochs, int64_t max_epochs);

  int64_t max_epochs() const { return max_epochs_; }
  // Whether an evaluation follows `epoch` (1 <= epoch <= max_epochs).
  bool evaluates_after(int64_t epoch) const;
  // The block that begins at `first_epoch`: through the next evaluated epoch.
  EvalBlock block_from(int64_t first_epoch) const;
  // Every block of a run that never stops early, in order; for tests and tools (the engine walks
  // the blocks with block_from, so a huge max_epochs costs nothing).
  std::vector<EvalBlock> blocks() const;

 private:
  EvalSchedule() = default;
  int64_t max_epochs_ = 1;
  int64_t every_ = 1;        // with an empty list
  int64_t offset_ = 0;       // 0 <= offset_ < every_
  std::vector<int64_t> listed_;
};

}  // namespace mlh
