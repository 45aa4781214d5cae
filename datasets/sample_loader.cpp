#include "datasets/sample_loader.h"

#include <algorithm>

namespace mlh {
namespace {

constexpr size_t kMaxSkippedSourcesKept = 100;

void check_option(bool holds, const std::string& message) {
  if (!holds) throw UserError("loader: " + message);
}

// A batch whose slot could not be made: delivered at once with that error.
struct FailedSlot final : detail::LoaderSlot {
  void decode(int64_t, int32_t, int64_t) override {}
  void skip(int64_t) override {}
};

}  // namespace

BadSample::BadSample(std::string source, std::string reason, const std::string& hint)
    : UserError(source + ": " + reason + (hint.empty() ? "" : "; " + hint)),
      source_(std::move(source)),
      reason_(std::move(reason)) {}

namespace detail {

struct LoaderCore::Task {
  std::shared_ptr<LoaderSlot> slot;
  int64_t epoch = 0;
  int64_t position = 0;  // within the batch
  int32_t index = 0;     // the sample
};

LoaderCore::LoaderCore(SampleLoaderOptions options, MakeSlot make_slot)
    : options_(std::move(options)), make_slot_(std::move(make_slot)) {
  check_option(options_.threads >= 1, "threads is " + std::to_string(options_.threads) +
                                          "; use at least 1 worker thread");
  check_option(options_.prefetch_batches >= 1,
               "prefetch_batches is " + std::to_string(options_.prefetch_batches) +
                   "; prefetch at least 1 batch");
  try {
    for (int t = 0; t < options_.threads; ++t) workers_.emplace_back([this] { work(); });
  } catch (...) {
    stop();
    throw;
  }
}

LoaderCore::~LoaderCore() { stop(); }

void LoaderCore::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

void LoaderCore::start(std::vector<std::vector<int32_t>> plan, int64_t epoch) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    plan_ = std::move(plan);
    epoch_ = epoch;
    next_delivery_ = 0;
    issue_batch_ = 0;
    issue_position_ = 0;
    issuing_slot_.reset();
    open_slots_.clear();  // workers still on old tasks hold their slots and finish harmlessly
    open_next_batches();
  }
  work_ready_.notify_all();
}

std::shared_ptr<LoaderSlot> LoaderCore::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  MLH_ASSERT(next_delivery_ < static_cast<int64_t>(plan_.size()));
  batch_ready_.wait(lock, [this] { return !open_slots_.empty() && open_slots_.front()->remaining == 0; });
  std::shared_ptr<LoaderSlot> slot = std::move(open_slots_.front());
  open_slots_.pop_front();
  ++next_delivery_;
  open_next_batches();
  work_ready_.notify_all();
  if (slot->error != nullptr) {
    // Moved out: only the consumer touches an exception object once it is in a delivered slot.
    const std::exception_ptr error = std::move(slot->error);
    lock.unlock();
    std::rethrow_exception(error);
  }
  std::sort(slot->skipped.begin(), slot->skipped.end());
  skipped_total_ += static_cast<int64_t>(slot->skipped.size());
  for (auto& [position, source] : slot->skipped) {
    if (skipped_sources_.size() < kMaxSkippedSourcesKept) skipped_sources_.push_back(std::move(source));
  }
  return slot;
}

int64_t LoaderCore::skipped_total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_total_;
}

std::vector<std::string> LoaderCore::skipped_sources() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_sources_;
}

bool LoaderCore::window_open() const {
  return issue_batch_ < static_cast<int64_t>(plan_.size()) &&
         issue_batch_ < next_delivery_ + options_.prefetch_batches;
}

void LoaderCore::open_next_batches() {
  while (issuing_slot_ == nullptr && window_open()) {
    const std::vector<int32_t>& indices = plan_[static_cast<size_t>(issue_batch_)];
    std::shared_ptr<LoaderSlot> slot;
    try {
      slot = make_slot_(indices);
      slot->remaining = static_cast<int64_t>(indices.size());
    } catch (...) {
      slot = std::make_shared<FailedSlot>();
      slot->error = std::current_exception();
    }
    open_slots_.push_back(slot);
    if (slot->remaining > 0) {
      issuing_slot_ = std::move(slot);
    } else {
      ++issue_batch_;  // complete already: empty, or failed
      batch_ready_.notify_all();
    }
  }
}

LoaderCore::Task LoaderCore::take_task() {
  const std::vector<int32_t>& indices = plan_[static_cast<size_t>(issue_batch_)];
  Task task;
  task.slot = issuing_slot_;
  task.epoch = epoch_;
  task.position = issue_position_;
  task.index = indices[static_cast<size_t>(issue_position_)];
  if (++issue_position_ == static_cast<int64_t>(indices.size())) {
    issuing_slot_.reset();
    ++issue_batch_;
    issue_position_ = 0;
    open_next_batches();
  }
  return task;
}

void LoaderCore::finish(Task& task, bool skipped, std::string skipped_source, std::exception_ptr error) {
  LoaderSlot& slot = *task.slot;
  if (error != nullptr && (slot.error == nullptr || task.position < slot.error_position)) {
    slot.error = std::move(error);
    slot.error_position = task.position;
  }
  if (skipped) slot.skipped.emplace_back(task.position, std::move(skipped_source));
  if (--slot.remaining == 0) batch_ready_.notify_all();
}

void LoaderCore::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [this] { return stopping_ || issuing_slot_ != nullptr; });
    if (stopping_) return;
    Task task = take_task();
    // A sample after the batch's first failure in plan order cannot change what next() reports.
    const bool needed = task.slot->error == nullptr || task.position < task.slot->error_position;
    lock.unlock();
    bool skipped = false;
    std::string skipped_source;
    std::exception_ptr error;
    if (needed) {
      try {
        try {
          task.slot->decode(task.position, task.index, task.epoch);
        } catch (const BadSample& bad) {
          if (options_.on_bad_sample != BadSamplePolicy::kSkip) throw;
          task.slot->skip(task.position);
          if (options_.on_skip) options_.on_skip(bad);
          skipped = true;
          skipped_source = bad.source();
        }
      } catch (...) {
        skipped = false;
        error = std::current_exception();
      }
    }
    lock.lock();
    finish(task, skipped, std::move(skipped_source), std::move(error));
  }
}

}  // namespace detail
}  // namespace mlh
