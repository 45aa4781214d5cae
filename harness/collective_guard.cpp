#include "harness/collective_guard.h"

#include <exception>
#include <utility>

#include "base/user_error.h"
#include "harness/world.h"

namespace mlh {

CollectiveGuard::CollectiveGuard(Operations operations, Watchdog watchdog)
    : operations_(std::move(operations)),
      watchdog_(std::move(watchdog)),
      uncaught_at_construction_(std::uncaught_exceptions()) {
  MLH_ASSERT(operations_.abort && operations_.destroy && operations_.problem);
  if (!watchdog_.fail_job) watchdog_.fail_job = [](const std::string& message) { MpiSession::fail_job(message); };
  MpiSession::on_abort(&CollectiveGuard::abort_hook, this);
  watchdog_thread_ = std::thread([this] { watch(); });
}

CollectiveGuard::~CollectiveGuard() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  watchdog_thread_.join();
  MpiSession::forget_abort_hook(this);
  if (std::uncaught_exceptions() > uncaught_at_construction_) {
    abort();
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!aborted_) operations_.destroy();
}

void CollectiveGuard::abort() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_) return;
  aborted_ = true;
  operations_.abort();
}

bool CollectiveGuard::aborted() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return aborted_;
}

void CollectiveGuard::abort_hook(void* self) { static_cast<CollectiveGuard*>(self)->abort(); }

void CollectiveGuard::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  // The communicator is asked under the lock, so never after an abort has freed it.
  std::string problem;
  while (problem.empty()) {
    if (stop_requested_.wait_for(lock, watchdog_.poll, [this] { return stopping_; }) || aborted_) return;
    problem = operations_.problem();
  }
  if (stop_requested_.wait_for(lock, watchdog_.grace, [this] { return stopping_; })) return;
  lock.unlock();
  watchdog_.fail_job(problem);
}

}  // namespace mlh
