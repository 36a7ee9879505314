// runtime/cpu/fiber_stacks.h: pooled fiber stacks keep a working guard page below each stack.
#include "runtime/cpu/fiber_stacks.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <set>
#include <vector>

using kaudit::rt::FiberStackPool;

TEST(FiberStacks, StacksAreDisjointWritableAndReused) {
  FiberStackPool pool(64 * 1024);
  std::set<char*> tops;
  std::vector<kaudit::rt::FiberStack> taken;
  for (int i = 0; i < 130; ++i) {  // more than two mappings' worth
    auto s = pool.take();
    EXPECT_EQ(s.size, 64u * 1024);
    char* top = static_cast<char*>(s.top);
    top[-1] = 1;                          // the top byte
    top[-static_cast<long>(s.size)] = 1;  // the lowest byte of the stack
    EXPECT_TRUE(tops.insert(top).second);
    taken.push_back(s);
  }
  for (auto& s : taken) {
    for (auto& t : taken) {
      if (s.top != t.top) {
        EXPECT_GE(std::abs(static_cast<char*>(s.top) - static_cast<char*>(t.top)), 64 * 1024 + 4096);
      }
    }
  }
  pool.give(taken.back());
  EXPECT_EQ(pool.take().top, taken.back().top);
}

TEST(FiberStacks, WritingBelowAStackFaults) {
  // An overflow reaches the guard page below the stack, not the stack of the next fiber.
  EXPECT_EXIT(
      {
        FiberStackPool pool(64 * 1024);
        pool.take();
        auto s = pool.take();
        volatile char* below = static_cast<char*>(s.top) - s.size - 1;
        *below = 1;
        std::exit(0);
      },
      testing::KilledBySignal(SIGSEGV), "");
}
