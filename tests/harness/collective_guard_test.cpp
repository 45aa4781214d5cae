// The end of life of a communicator whose destruction waits for its peers (harness/collective_guard.h),
// shown with a fake device communicator whose destroy blocks unless it was aborted: what NCCL's does
// when a peer sits in a collective that this rank will never join.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "harness/collective_guard.h"
#include "harness/world.h"

namespace mlh {
namespace {

// What happened to a fake communicator, in order, shared with the test that outlives it.
struct Journal {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> events;
  bool aborted = false;
  std::chrono::milliseconds peers_wait{20000};  // how long destroy waits for the peers that never come
  std::string problem;              // what the watchdog will be told
  int problem_questions = 0;
  std::vector<std::string> job_failures;

  void note(const std::string& event) {
    const std::lock_guard<std::mutex> lock(mutex);
    events.push_back(event);
    changed.notify_all();
  }
  std::vector<std::string> seen() {
    const std::lock_guard<std::mutex> lock(mutex);
    return events;
  }
  // Waits (at most a minute: a failure, not a measurement) until `done` holds.
  template <typename Condition>
  bool wait_until(Condition done) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::minutes(1), done);
  }
};

// A device communicator as the engine holds one (shared, through World): its destroy waits for the
// peers, which never come, unless it was aborted first; after journal->peers_wait it gives up and says so.
class PeerBoundCommunicator final : public Communicator {
 public:
  explicit PeerBoundCommunicator(std::shared_ptr<Journal> journal,
                                 std::chrono::milliseconds grace = std::chrono::minutes(1))
      : journal_(journal),
        guard_(CollectiveGuard::Operations{[journal] {
                                             const std::lock_guard<std::mutex> lock(journal->mutex);
                                             journal->aborted = true;
                                             journal->events.push_back("abort");
                                             journal->changed.notify_all();
                                           },
                                           [journal] {
                                             std::unique_lock<std::mutex> lock(journal->mutex);
                                             const bool freed = journal->changed.wait_for(
                                                 lock, journal->peers_wait, [&] { return journal->aborted; });
                                             journal->events.push_back(freed ? "destroy" : "destroy waited for the peers");
                                           },
                                           [journal] {
                                             const std::lock_guard<std::mutex> lock(journal->mutex);
                                             ++journal->problem_questions;
                                             journal->changed.notify_all();
                                             return journal->problem;
                                           }},
               CollectiveGuard::Watchdog{std::chrono::milliseconds(5), grace, [journal](const std::string& message) {
                                           const std::lock_guard<std::mutex> lock(journal->mutex);
                                           journal->job_failures.push_back(message);
                                           journal->changed.notify_all();
                                         }}) {}

  void allreduce_sum(torch::Tensor&) override {}
  void broadcast(torch::Tensor&, int) override {}
  void barrier() override {}
  std::string name() const override { return "peer-bound"; }
  bool aborted() const { return guard_.aborted(); }

 private:
  std::shared_ptr<Journal> journal_;
  CollectiveGuard guard_;
};

// A destroy that waits for absent peers never returns in a real job; here it says that it waited.
TEST(CollectiveGuard, IsDestroyedWhenItsOwnerEndsNormally) {
  auto journal = std::make_shared<Journal>();
  journal->peers_wait = std::chrono::milliseconds(0);
  {
    const auto communicator = std::make_shared<PeerBoundCommunicator>(journal);
    EXPECT_FALSE(communicator->aborted());
  }
  EXPECT_EQ(journal->seen(), std::vector<std::string>{"destroy waited for the peers"});
}

// The driver's shape: the communicator is a local of the run (inside World); a rank fails; main
// catches the error, prints it and ends the job. The communicator must be aborted, not destroyed,
// before main's handler runs, or that rank would wait for its peers instead of ending the job.
void run_that_fails(const std::shared_ptr<Journal>& journal) {
  const std::shared_ptr<Communicator> communicator = std::make_shared<PeerBoundCommunicator>(journal);
  throw std::runtime_error("a truncated JPEG in this rank's shard");
}

TEST(CollectiveGuard, IsAbortedNotDestroyedWhileAnExceptionUnwinds) {
  auto journal = std::make_shared<Journal>();
  try {
    run_that_fails(journal);
  } catch (const std::runtime_error& error) {
    journal->note(std::string("main reports: ") + error.what());
  }
  EXPECT_EQ(journal->seen(), (std::vector<std::string>{"abort", "main reports: a truncated JPEG in this rank's shard"}));
}

// Counted from its construction: a communicator made and ended normally inside a destructor that
// runs during another exception's unwinding is destroyed as usual.
struct MakesOneWhenDestroyed {
  std::shared_ptr<Journal> journal;
  ~MakesOneWhenDestroyed() { PeerBoundCommunicator communicator(journal); }
};

TEST(CollectiveGuard, CountsOnlyExceptionsThrownInItsLifetime) {
  auto journal = std::make_shared<Journal>();
  journal->peers_wait = std::chrono::milliseconds(0);
  try {
    MakesOneWhenDestroyed maker{journal};
    throw std::runtime_error("elsewhere");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(journal->seen(), std::vector<std::string>{"destroy waited for the peers"});
}

// abort_job runs the hooks in the order they were registered: the communicator's, then the test's,
// which reports on stderr what the communicator has seen.
void report_first_event(void* journal) {
  const auto& events = static_cast<Journal*>(journal)->events;
  std::fprintf(stderr, "events: %zu, first: %s\n", events.size(), events.empty() ? "none" : events.front().c_str());
}

TEST(CollectiveGuard, TheJobsAbortAbortsItFirst) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto journal = std::make_shared<Journal>();
        PeerBoundCommunicator communicator(journal);
        MpiSession::on_abort(&report_first_event, journal.get());
        MpiSession::abort_job(2);  // no MPI session here: the hooks, then exit 2
      },
      ::testing::ExitedWithCode(2), "events: 1, first: abort");
}

TEST(CollectiveGuard, AnEndedCommunicatorIsNotAbortedByTheJob) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto journal = std::make_shared<Journal>();
        journal->peers_wait = std::chrono::milliseconds(0);
        { PeerBoundCommunicator communicator(journal); }
        MpiSession::on_abort(&report_first_event, journal.get());
        MpiSession::abort_job(2);
      },
      ::testing::ExitedWithCode(2), "events: 1, first: destroy waited for the peers");
}

TEST(CollectiveGuard, TheWatchdogEndsTheJobWithTheProblemItReports) {
  auto journal = std::make_shared<Journal>();
  journal->peers_wait = std::chrono::milliseconds(0);
  auto communicator = std::make_shared<PeerBoundCommunicator>(journal, std::chrono::milliseconds(0));
  ASSERT_TRUE(journal->wait_until([&] { return journal->problem_questions > 0; }));
  EXPECT_TRUE(journal->job_failures.empty());
  {
    const std::lock_guard<std::mutex> lock(journal->mutex);
    journal->problem = "NCCL reports remote process exited or there was a network error";
  }
  ASSERT_TRUE(journal->wait_until([&] { return !journal->job_failures.empty(); }));
  EXPECT_EQ(journal->job_failures, std::vector<std::string>{"NCCL reports remote process exited or there was a network error"});
  communicator.reset();
  EXPECT_EQ(journal->seen(), std::vector<std::string>{"destroy waited for the peers"});
}

// A peer that failed first ends the job with its own message within the grace: meanwhile this rank
// unwinds or ends, and its watchdog says nothing.
TEST(CollectiveGuard, TheWatchdogWaitsItsGraceBeforeEndingTheJob) {
  auto journal = std::make_shared<Journal>();
  journal->problem = "NCCL reports remote process exited or there was a network error";
  journal->aborted = true;  // so the destroy below returns at once
  {
    PeerBoundCommunicator communicator(journal, std::chrono::minutes(10));
    ASSERT_TRUE(journal->wait_until([&] { return journal->problem_questions > 0; }));
  }
  EXPECT_TRUE(journal->job_failures.empty());
  EXPECT_EQ(journal->problem_questions, 1);
}

}  // namespace
}  // namespace mlh
