#include "harness/interrupt.h"

#include <csignal>

namespace mlh {

namespace {

volatile std::sig_atomic_t received_signal = 0;
struct sigaction previous_int, previous_term;

extern "C" void note_signal(int signal_number) { received_signal = signal_number; }

}  // namespace

RunInterrupted::RunInterrupted(int signal_number)
    : std::runtime_error("interrupted by " + signal_name(signal_number)), signal_number_(signal_number) {}

std::string signal_name(int signal_number) {
  if (signal_number == SIGINT) return "SIGINT";
  if (signal_number == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal_number);
}

InterruptWatch::InterruptWatch(const World& world) : world_(world) {
  received_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second signal takes the default action: the process ends
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
}

InterruptWatch::~InterruptWatch() {
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

void InterruptWatch::check() const {
  const int local = received_signal;
  const int agreed = world_.size() > 1 ? static_cast<int>(world_.allreduce_max(local)) : local;
  if (agreed != 0) throw RunInterrupted(agreed);
}

}  // namespace mlh
