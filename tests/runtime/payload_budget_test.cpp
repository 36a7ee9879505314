// runtime/payload_budget.h: requests in flight to workers hold at most the budget's bytes at once,
// and a request larger than the whole budget still runs, alone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/payload_budget.h"

namespace kaudit::runtime {
namespace {

// True when `acquired` becomes true within a second.
bool within_a_second(const std::atomic<bool>& acquired) {
  for (int i = 0; i < 100 && !acquired; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return acquired;
}

TEST(PayloadBudget, ARequestWaitsUntilItFitsBesideTheOnesInFlight) {
  PayloadBudget budget(100);
  auto first = budget.acquire(60);
  std::atomic<bool> acquired{false};
  std::thread second([&] {
    auto t = budget.acquire(50);
    acquired = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(acquired);  // 60 + 50 > 100
  EXPECT_EQ(budget.in_flight(), 60u);
  first = PayloadBudget::Ticket();  // released
  EXPECT_TRUE(within_a_second(acquired));
  second.join();
  EXPECT_EQ(budget.in_flight(), 0u);
  EXPECT_EQ(budget.peak(), 60u);
  EXPECT_EQ(budget.waits(), 1u);
}

TEST(PayloadBudget, RequestsThatFitTogetherDoNotWait) {
  PayloadBudget budget(100);
  auto a = budget.acquire(40);
  auto b = budget.acquire(60);
  EXPECT_EQ(budget.in_flight(), 100u);
  EXPECT_EQ(budget.waits(), 0u);
}

TEST(PayloadBudget, ARequestOverTheWholeBudgetRunsAloneInsteadOfBeingRefused) {
  PayloadBudget budget(100);
  {
    auto alone = budget.acquire(250);  // nothing in flight: it goes
    EXPECT_EQ(budget.in_flight(), 250u);
    std::atomic<bool> acquired{false};
    std::thread small([&] {
      auto t = budget.acquire(1);
      acquired = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(acquired);  // nothing fits beside it
    alone = PayloadBudget::Ticket();
    EXPECT_TRUE(within_a_second(acquired));
    small.join();
  }
  EXPECT_EQ(budget.peak(), 250u);
  EXPECT_EQ(budget.in_flight(), 0u);
}

}  // namespace
}  // namespace kaudit::runtime
