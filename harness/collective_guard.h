// The end of life of a communicator whose collectives wait for their peers (NCCL's, harness/
// nccl_communicator.h), kept in code the CPU build compiles so that its tests show it without a GPU
// (tests/harness/collective_guard_test.cpp). Its rules:
//  - Destroying such a communicator waits for the peers. While an exception unwinds (this rank has
//    failed, and its peers may sit in a collective it will never join) it is aborted instead, so the
//    error reaches main, which prints it and ends the job (MpiSession::abort_job) at once.
//  - MpiSession::abort_job aborts it before ending the job, from whichever thread calls it.
//  - A watchdog thread asks it every `poll` what is wrong. When it names a problem, the job ends
//    with that message (MpiSession::fail_job) `grace` later: a peer that failed first ends the job
//    with its own message meanwhile.
// abort runs at most once; destroy runs only when abort has not, and never while abort does.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace mlh {

class CollectiveGuard {
 public:
  struct Operations {
    std::function<void()> abort;            // must not wait for peers; may run on any thread
    std::function<void()> destroy;          // may wait for peers
    std::function<std::string()> problem;   // "" while healthy; called on the watchdog thread
  };
  struct Watchdog {
    std::chrono::milliseconds poll{500};
    std::chrono::milliseconds grace{10000};
    // Ends the job with the message; MpiSession::fail_job unless a test gives another.
    std::function<void(const std::string&)> fail_job;
  };

  CollectiveGuard(Operations operations, Watchdog watchdog);
  ~CollectiveGuard();
  CollectiveGuard(const CollectiveGuard&) = delete;
  CollectiveGuard& operator=(const CollectiveGuard&) = delete;

  // Aborts the communicator now (once; later calls do nothing).
  void abort();
  bool aborted() const;

 private:
  static void abort_hook(void* self);
  void watch();

  Operations operations_;
  Watchdog watchdog_;
  const int uncaught_at_construction_;
  mutable std::mutex mutex_;
  bool aborted_ = false;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::thread watchdog_thread_;
};

}  // namespace mlh
