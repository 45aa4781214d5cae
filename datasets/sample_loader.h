// The one threaded, prefetching loader for data decoded sample by sample: the ImageNet loader sits
// on it (datasets/imagenet/batch_loader.h), and COCO's will. The caller gives a plan (this rank's
// batches for one epoch, each a list of sample indices, as ShardedSampler cuts them) and a per-sample
// decode function; a fixed pool of worker threads decodes samples into a caller-defined type (any
// size: an image, a variable-size image with its boxes and masks, a sentence), at most
// `prefetch_batches` batches ahead of the consumer, and next() hands the batches out in plan order.
// Work is handed out one sample at a time, in plan order, so several threads share a batch and a slow
// sample does not stall a whole batch behind it.
//
// Determinism: what a batch holds depends only on the plan, the epoch and the decode function, never
// on the thread count or timing, provided decode draws its randomness from (seed, epoch, index) (see
// counter_random.h), never from shared state. A failed batch reports the error of its first failing
// sample in plan order.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/user_error.h"

namespace mlh {

// What the loader does with a sample whose decode throws BadSample.
enum class BadSamplePolicy {
  kFail,  // next() rethrows it for that batch
  kSkip,  // the sample is skipped (its slot holds Sample{}, flagged) and counted
};

// Bad input in one sample: a corrupt or truncated file, a malformed record. what() is
// "<source>: <reason>", then "; <hint>" when a hint is given (say, how to skip such samples). Any other
// exception from decode always fails the batch, whatever the policy.
class BadSample : public UserError {
 public:
  BadSample(std::string source, std::string reason, const std::string& hint = "");
  const std::string& source() const { return source_; }  // the file or record, for skip lists
  const std::string& reason() const { return reason_; }

 private:
  std::string source_;
  std::string reason_;
};

struct SampleLoaderOptions {
  int threads = 1;           // worker threads (>= 1)
  int prefetch_batches = 2;  // batches decoded ahead of the one the consumer holds (>= 1)
  BadSamplePolicy on_bad_sample = BadSamplePolicy::kFail;
  // Under kSkip, called for each skipped sample when it is met (say, to warn): on the worker
  // threads, concurrently. An exception from it fails the batch.
  std::function<void(const BadSample&)> on_skip;
};

template <class Sample>
struct SampleBatch {
  std::vector<int32_t> indices;  // the plan's indices of this batch
  std::vector<Sample> samples;   // samples[i] decoded from indices[i]; Sample{} where skipped
  std::vector<uint8_t> skipped;  // 1 where sample i was skipped (BadSample under kSkip)
  int64_t skipped_count = 0;
  int64_t size() const { return static_cast<int64_t>(indices.size()); }
};

namespace detail {

// One batch of the plan in the untyped core: the typed loader below derives from it.
struct LoaderSlot {
  virtual ~LoaderSlot() = default;
  // Decodes position `position` (sample `index`) on a worker thread, outside the core's lock; calls for
  // different positions of one slot run concurrently.
  virtual void decode(int64_t position, int32_t index, int64_t epoch) = 0;
  // Marks `position` skipped (its decode threw BadSample under kSkip); same threading as decode.
  virtual void skip(int64_t position) = 0;

  // The core's own, under its lock:
  int64_t remaining = 0;  // positions not yet finished
  int64_t error_position = -1;
  std::exception_ptr error;  // of the first failing position in plan order
  std::vector<std::pair<int64_t, std::string>> skipped;  // (position, source)
};

// The threads, the plan, the prefetch window and the error and skip bookkeeping, for any sample type.
class LoaderCore {
 public:
  using MakeSlot = std::function<std::shared_ptr<LoaderSlot>(const std::vector<int32_t>& indices)>;
  // Throws UserError for options out of range. make_slot is called under the core's lock, once per
  // batch, when the batch enters the prefetch window: keep it cheap (no decoding).
  LoaderCore(SampleLoaderOptions options, MakeSlot make_slot);
  ~LoaderCore();  // stop()
  LoaderCore(const LoaderCore&) = delete;
  LoaderCore& operator=(const LoaderCore&) = delete;

  void start(std::vector<std::vector<int32_t>> plan, int64_t epoch);
  std::shared_ptr<LoaderSlot> next();  // the head batch once all its positions are finished
  void stop();  // stops and joins the workers (each finishes the sample it holds); idempotent
  int64_t skipped_total() const;
  std::vector<std::string> skipped_sources() const;
  const SampleLoaderOptions& options() const { return options_; }

 private:
  struct Task;
  void work();
  // Under mutex_:
  bool window_open() const;  // batch issue_batch_ exists and may be decoded now
  void open_next_batches();  // opens batches up to the next with a task (issuing_slot_) or the window's end
  Task take_task();          // needs issuing_slot_
  void finish(Task& task, bool skipped, std::string skipped_source, std::exception_ptr error);

  const SampleLoaderOptions options_;
  const MakeSlot make_slot_;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;   // workers: a task, or stop
  std::condition_variable batch_ready_;  // consumer: the head batch is finished
  bool stopping_ = false;
  std::vector<std::vector<int32_t>> plan_;
  int64_t epoch_ = 0;
  int64_t next_delivery_ = 0;   // plan position of the batch next() returns next
  int64_t issue_batch_ = 0;     // plan position of the batch the next task belongs to
  int64_t issue_position_ = 0;  // position within it
  std::shared_ptr<LoaderSlot> issuing_slot_;  // batch issue_batch_ while it has tasks left to hand out
  std::deque<std::shared_ptr<LoaderSlot>> open_slots_;  // opened, undelivered, in plan order
  int64_t skipped_total_ = 0;
  std::vector<std::string> skipped_sources_;
  std::vector<std::thread> workers_;
};

}  // namespace detail

// Decodes the samples of a plan into SampleBatch<Sample>s. Sample must be default-constructible and
// movable.
template <class Sample>
class SampleLoader {
 public:
  // Fills `sample` with sample `index` of `epoch`. Runs on the worker threads, concurrently for
  // different samples: it must be thread-safe. `sample` may hold a recycled sample's contents (reuse
  // its storage, overwrite all of it). Throws BadSample for bad input; anything else fails the batch.
  using Decode = std::function<void(int32_t index, int64_t epoch, Sample& sample)>;

  // Optional: prepares a batch's samples when the batch enters the prefetch window, before any is
  // decoded; called under the loader's lock, so keep it cheap. Lets fixed-size samples point into one
  // batch-wide buffer, stacked as they are decoded. Its samples are not replaced by recycled ones.
  using OpenBatch = std::function<void(SampleBatch<Sample>& batch)>;

  // Starts the workers, idle until start(). Throws UserError for options out of range.
  SampleLoader(SampleLoaderOptions options, Decode decode, OpenBatch open_batch = nullptr);
  ~SampleLoader() { core_.stop(); }  // safe mid-plan: the workers finish their sample and stop

  // Starts decoding `plan` for `epoch`, replacing any previous plan: its undelivered batches are
  // dropped (workers finish the sample they hold, into the old batch).
  void start(std::vector<std::vector<int32_t>> plan, int64_t epoch) {
    core_.start(std::move(plan), epoch);
  }
  // The next batch of the plan, in plan order; blocks until it is decoded. Throws what decode threw
  // for the batch's first failing sample (a BadSample under kFail stays a UserError naming its
  // source); that batch is then dropped and the next call moves on. Past the end of the plan: an
  // InternalError.
  SampleBatch<Sample> next();
  // Optional: hands a consumed batch back so later samples decode into its samples' storage (fresh
  // buffers cost page faults and zero fills, often more than a decode). Keeps up to
  // prefetch_batches + 1 batches' worth of samples.
  void recycle(SampleBatch<Sample> batch);
  int64_t skipped_total() const { return core_.skipped_total(); }  // in delivered batches
  // The skipped samples' BadSample::source(), in delivery order (the first 100).
  std::vector<std::string> skipped_sources() const { return core_.skipped_sources(); }

 private:
  struct Slot final : detail::LoaderSlot {
    SampleLoader* loader = nullptr;
    SampleBatch<Sample> batch;
    void decode(int64_t position, int32_t index, int64_t epoch) override {
      Sample& sample = batch.samples[static_cast<size_t>(position)];
      if (!loader->open_batch_) loader->take_spare(sample);
      loader->decode_(index, epoch, sample);
    }
    void skip(int64_t position) override {
      batch.samples[static_cast<size_t>(position)] = Sample();
      batch.skipped[static_cast<size_t>(position)] = 1;
    }
  };
  std::shared_ptr<detail::LoaderSlot> make_slot(const std::vector<int32_t>& indices);
  void take_spare(Sample& sample);

  const Decode decode_;
  const OpenBatch open_batch_;
  // Recycled samples, taken one by one as samples are decoded (not when a batch enters the window,
  // which is before the consumer can recycle the batch it was just handed).
  std::mutex spares_mutex_;
  std::vector<Sample> spares_;
  size_t spares_kept_ = 0;  // at most prefetch_batches + 1 of the largest batch recycled
  detail::LoaderCore core_;  // last: destroyed (workers joined) before the members its slots use
};

template <class Sample>
SampleLoader<Sample>::SampleLoader(SampleLoaderOptions options, Decode decode, OpenBatch open_batch)
    : decode_(std::move(decode)),
      open_batch_(std::move(open_batch)),
      core_(std::move(options), [this](const std::vector<int32_t>& indices) { return make_slot(indices); }) {}

template <class Sample>
std::shared_ptr<detail::LoaderSlot> SampleLoader<Sample>::make_slot(const std::vector<int32_t>& indices) {
  auto slot = std::make_shared<Slot>();
  slot->loader = this;
  SampleBatch<Sample>& batch = slot->batch;
  batch.indices = indices;
  batch.samples.resize(indices.size());
  batch.skipped.assign(indices.size(), 0);
  if (open_batch_) open_batch_(batch);
  return slot;
}

template <class Sample>
void SampleLoader<Sample>::take_spare(Sample& sample) {
  std::lock_guard<std::mutex> lock(spares_mutex_);
  if (spares_.empty()) return;
  sample = std::move(spares_.back());
  spares_.pop_back();
}

template <class Sample>
SampleBatch<Sample> SampleLoader<Sample>::next() {
  const std::shared_ptr<detail::LoaderSlot> finished = core_.next();
  Slot& slot = static_cast<Slot&>(*finished);
  slot.batch.skipped_count = static_cast<int64_t>(slot.skipped.size());
  return std::move(slot.batch);
}

template <class Sample>
void SampleLoader<Sample>::recycle(SampleBatch<Sample> batch) {
  std::lock_guard<std::mutex> lock(spares_mutex_);
  spares_kept_ = std::max(spares_kept_, (static_cast<size_t>(core_.options().prefetch_batches) + 1) *
                                            batch.samples.size());
  for (size_t i = 0; i < batch.samples.size() && spares_.size() < spares_kept_; ++i) {
    spares_.push_back(std::move(batch.samples[i]));
  }
}

}  // namespace mlh
