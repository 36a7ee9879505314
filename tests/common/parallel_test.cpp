// common/parallel.h: the contract both implementations (oneTBB forwards, kaudit's own pool) keep.
// The same tests run in a build with TBB and in one without (KAUDIT_WITH_TBB=OFF).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/parallel.h"

namespace par = kaudit::parallel;

namespace {
// Busy work long enough that a loop's chunks overlap in time when several threads run them.
void spin() {
  volatile unsigned x = 0;
  for (int i = 0; i < 20000; ++i) x = x + i;
}
}  // namespace

TEST(Parallel, ReportsItsImplementation) {
  std::printf("common/parallel.h uses %s; max_concurrency %u\n", par::uses_tbb() ? "oneTBB" : "kaudit's thread pool",
              par::max_concurrency());
  EXPECT_GE(par::max_concurrency(), 1u);
}

TEST(Parallel, EveryIndexRunsOnce) {
  for (std::size_t n : {0u, 1u, 2u, 7u, 1000u, 100003u}) {
    std::vector<std::atomic<int>> hits(n + 5);
    par::for_each_index(5, n + 5, [&](std::size_t i) { hits[i].fetch_add(1); });
    for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), i < 5 ? 0 : 1) << "n " << n << " i " << i;
  }
}

TEST(Parallel, RangesAreDisjointAndCoverTheRange) {
  for (std::size_t grain : {1u, 3u, 16u, 1000u, 10000u}) {
    const std::size_t begin = 10, end = 10 + 5000;
    std::vector<std::atomic<int>> hits(end);
    par::for_each_range(begin, end, grain, [&](std::size_t b, std::size_t e) {
      ASSERT_LT(b, e);
      for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < end; ++i) ASSERT_EQ(hits[i].load(), i < begin ? 0 : 1) << "grain " << grain;
  }
}

TEST(Parallel, AnEmptyRangeCallsNothing) {
  bool called = false;
  par::for_each_range(4, 4, 1, [&](std::size_t, std::size_t) { called = true; });
  par::for_each_index(9, 3, [&](std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(Parallel, MaxThreadsOneRunsOnTheCallingThread) {
  const auto self = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  par::for_each_range(0, 256, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) spin();
    if (std::this_thread::get_id() != self) elsewhere.fetch_add(1);
  }, 1);
  EXPECT_EQ(elsewhere.load(), 0);
}

TEST(Parallel, ALimitOfOneRunsEveryLoopOnTheCallingThread) {
  const auto self = std::this_thread::get_id();
  std::atomic<int> elsewhere{0}, ran{0};
  {
    par::Limit limit(1);
    if (!par::uses_tbb()) {
      EXPECT_EQ(par::max_concurrency(), 1u);
    }
    par::for_each_index(0, 256, [&](std::size_t) {
      spin();
      ran.fetch_add(1);
      if (std::this_thread::get_id() != self) elsewhere.fetch_add(1);
    });
  }
  EXPECT_EQ(ran.load(), 256);
  // The worker sets its limit before any loop runs. Here earlier tests have started TBB's workers,
  // which may still take a task while they leave, so the thread is only checked for the pool.
  if (!par::uses_tbb()) {
    EXPECT_EQ(elsewhere.load(), 0);
  }
}

TEST(Parallel, UsesSeveralThreadsWhenTheMachineHasThem) {
  if (par::max_concurrency() < 2) GTEST_SKIP() << "one CPU available";
  std::mutex mu;
  std::set<std::thread::id> seen;
  // Long enough that a helper wakes up and takes chunks before the caller has run them all.
  par::for_each_index(0, 400, [&](std::size_t) {
    for (int k = 0; k < 20; ++k) spin();
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_GE(seen.size(), 2u);
}

TEST(Parallel, TheFirstExceptionReachesTheCaller) {
  std::atomic<int> ran{0};
  EXPECT_THROW(par::for_each_index(0, 10000,
                                   [&](std::size_t i) {
                                     ran.fetch_add(1);
                                     if (i == 17) throw std::runtime_error("index 17");
                                   }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 1);
  // The pool is still usable afterwards.
  std::atomic<int> after{0};
  par::for_each_index(0, 100, [&](std::size_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 100);
}

TEST(Parallel, NestedAndConcurrentLoopsFinish) {
  // A body that loops itself, called from several threads at once (the audit builds the schemata
  // of several kernels side by side, each build a loop).
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      par::for_each_index(0, 8, [&](std::size_t) {
        par::for_each_index(0, 50, [&](std::size_t j) { total.fetch_add(long(j)); });
      });
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 4L * 8 * (49 * 50 / 2));
}

TEST(Parallel, WorksInAForkedChild) {
  // The worker is a zygote that forks (runtime/worker.cpp); TBB is not fork-safe once its threads
  // run, the project's pool starts a new one in the child.
  if (par::uses_tbb()) GTEST_SKIP() << "oneTBB: fork after use is not supported by TBB itself";
  std::atomic<int> before{0};
  par::for_each_index(0, 1000, [&](std::size_t) { before.fetch_add(1); });  // the parent's pool exists
  ASSERT_EQ(before.load(), 1000);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::atomic<int> n{0};
    par::for_each_index(0, 1000, [&](std::size_t) {
      spin();
      n.fetch_add(1);
    });
    _exit(n.load() == 1000 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
