#include "harness/peer_error_watch.h"

#include <utility>

namespace mlh {

PeerErrorWatch::PeerErrorWatch(const World& world, OnError on_error, std::chrono::milliseconds poll)
    : on_error_(std::move(on_error)), poll_(poll) {
  if (world.is_root() && world.size() > 1 && MpiSession::threads_may_communicate())
    thread_ = std::thread([this] { watch(); });
}

PeerErrorWatch::~PeerErrorWatch() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeerErrorWatch::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_requested_.wait_for(lock, poll_, [this] { return stopping_; })) {
    if (const std::optional<MpiSession::PeerError> error = MpiSession::take_peer_error()) {
      on_error_(error->rank, error->message);
      return;
    }
  }
}

}  // namespace mlh
