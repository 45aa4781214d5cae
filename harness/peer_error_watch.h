// Rank 0's ear for another rank's error. Under mpirun a rank that fails ends the whole job, while
// rank 0 may sit in a collective that rank will never join, until mpirun kills it (SIGTERM, then
// SIGKILL a second later). Before it ends the job, the failing rank tells rank 0 its message
// (MpiSession::tell_root_of_error, launch/main.cpp); this thread polls for it every `poll` and hands
// it to `on_error` once, on the watch's thread, so that rank 0 can end its log as an error of its own
// would (harness/driver.cpp: no log is left half-written). It runs on rank 0 of a world of several
// ranks, where MPI lets a second thread communicate (MPI_THREAD_MULTIPLE); elsewhere it does nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/world.h"

namespace mlh {

class PeerErrorWatch {
 public:
  using OnError = std::function<void(int rank, const std::string& message)>;
  PeerErrorWatch(const World& world, OnError on_error, std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  ~PeerErrorWatch();  // stops the thread and waits for it
  PeerErrorWatch(const PeerErrorWatch&) = delete;
  PeerErrorWatch& operator=(const PeerErrorWatch&) = delete;

 private:
  void watch();

  OnError on_error_;
  std::chrono::milliseconds poll_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mlh
