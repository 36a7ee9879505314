// runtime/cpu/fiber.h: the symmetric switch, in whichever implementation this binary was built
// with (runtime_tests: the build's choice; fiber_ucontext_tests: always ucontext).
#include "runtime/cpu/fiber.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/cpu/fiber_stacks.h"

namespace {
using kaudit::rt::FiberContext;
using kaudit::rt::FiberStackPool;
using kaudit::rt::switch_context;

// Two fibers hand over to each other directly and end by switching to the thread for good, as the
// emulator's lanes do.
struct PingPong {
  FiberContext main, a, b;
  std::vector<std::string> log;
  static void run_a(void* p) {
    auto& s = *static_cast<PingPong*>(p);
    s.log.push_back("a1");
    switch_context(s.a, s.b);
    s.log.push_back("a2");
    switch_context(s.a, s.main);  // last switch
  }
  static void run_b(void* p) {
    auto& s = *static_cast<PingPong*>(p);
    s.log.push_back("b1");
    switch_context(s.b, s.a);
    ADD_FAILURE() << "b resumed after its last switch";
  }
};

TEST(Fiber, SymmetricSwitchesRunInOrderAndReturnToTheThread) {
  FiberStackPool pool(64 * 1024);
  PingPong s;
  auto sa = pool.take(), sb = pool.take();
  s.a.start(sa, &PingPong::run_a, &s);
  s.b.start(sb, &PingPong::run_b, &s);
  switch_context(s.main, s.a);
  EXPECT_EQ(s.log, (std::vector<std::string>{"a1", "b1", "a2"}));
  s.a.reset();
  s.b.reset();  // suspended in its last switch: nothing left to run
  EXPECT_STREQ(kaudit::rt::fiber_implementation(), KAUDIT_EXPECTED_FIBERS);
}

// An exception thrown and caught on a fiber's stack, across a switch away and back, and a fiber
// that is resumed many times (the emulator switches millions of times per run).
struct Catcher {
  FiberContext main, self;
  int rounds = 0;
  std::string caught;
  static void run(void* p) {
    auto& s = *static_cast<Catcher*>(p);
    try {
      switch_context(s.self, s.main);
      throw std::runtime_error("thrown on the fiber");
    } catch (const std::exception& e) {
      s.caught = e.what();
    }
    for (;;) {
      ++s.rounds;
      switch_context(s.self, s.main);
    }
  }
};

TEST(Fiber, ExceptionsStayOnTheirFiberAndFibersResumeManyTimes) {
  FiberStackPool pool(64 * 1024);
  Catcher s;
  s.self.start(pool.take(), &Catcher::run, &s);
  switch_context(s.main, s.self);
  EXPECT_TRUE(s.caught.empty());
  for (int i = 0; i < 100000; ++i) switch_context(s.main, s.self);
  EXPECT_EQ(s.caught, "thrown on the fiber");
  EXPECT_EQ(s.rounds, 100000);  // the first of them threw and caught first
  // The thread's own deep frames are intact after all those switches.
  std::vector<int> v(1000, 1);
  int sum = 0;
  for (int x : v) sum += x;
  EXPECT_EQ(sum, 1000);
}

// A fiber that touches its whole stack: a stack lent by the pool is usable to its bottom.
struct Deep {
  FiberContext main, self;
  long result = 0;
  static long recurse(int n) {
    volatile char pad[512];
    pad[0] = static_cast<char>(n);
    return n == 0 ? pad[0] : recurse(n - 1) + 1;
  }
  static void run(void* p) {
    auto& s = *static_cast<Deep*>(p);
    s.result = recurse(100);  // about 55 KiB of a 128 KiB stack
    switch_context(s.self, s.main);
  }
};

TEST(Fiber, RecursionUsesTheLentStack) {
  FiberStackPool pool(128 * 1024);
  Deep s;
  s.self.start(pool.take(), &Deep::run, &s);
  switch_context(s.main, s.self);
  EXPECT_EQ(s.result, 100);
}

}  // namespace
