// SIGINT and SIGTERM while a run trains (harness/interrupt.h): the first signal is only noted, so the
// run stops after its step in order; the handler is then reset, so a second Ctrl-C ends the process
// where it is. Death tests: each runs in a child process of its own.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "harness/interrupt.h"

namespace mlh {
namespace {

class InterruptWatchTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// The child's exit status says what check() did after the signal: 0 = RunInterrupted with the signal
// and 128 + it; 1 = nothing thrown; 2 = another signal.
[[noreturn]] void raise_then_check(int signal_number) {
  const World world = World::single_process();
  const InterruptWatch watch(world);
  std::raise(signal_number);
  try {
    watch.check();
  } catch (const RunInterrupted& stop) {
    std::_Exit(stop.signal_number() == signal_number && stop.exit_status() == 128 + signal_number ? 0 : 2);
  }
  std::_Exit(1);
}

TEST_F(InterruptWatchTest, AFirstSigintIsNotedAndStopsTheRunAtTheNextCheckWithStatus130) {
  EXPECT_EXIT(raise_then_check(SIGINT), ::testing::ExitedWithCode(0), "");
}

TEST_F(InterruptWatchTest, AFirstSigtermIsNotedAndStopsTheRunAtTheNextCheckWithStatus143) {
  EXPECT_EXIT(raise_then_check(SIGTERM), ::testing::ExitedWithCode(0), "");
}

TEST_F(InterruptWatchTest, ASecondCtrlCEndsTheProcessAtOnce) {
  auto twice = [] {
    const World world = World::single_process();
    const InterruptWatch watch(world);
    std::raise(SIGINT);  // noted; the process goes on
    std::raise(SIGINT);  // the default action: the process ends here
    std::_Exit(0);
  };
  EXPECT_EXIT(twice(), ::testing::KilledBySignal(SIGINT), "");
}

TEST_F(InterruptWatchTest, NoSignalNoStopAndTheHandlersAreRestoredAfterTheWatch) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  {
    const World world = World::single_process();
    const InterruptWatch watch(world);
    EXPECT_NO_THROW(watch.check());
  }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
}  // namespace mlh
