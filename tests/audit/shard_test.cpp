// The split of an audit over machines (audit/shard.h): whole tasks, the same on every machine,
// balanced by source size.
#include "audit/shard.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace kaudit::audit {
namespace {

// Tasks a..e (corpus order), each with kernels whose sources have the given sizes.
corpus::Corpus corpus_of(const std::vector<std::pair<std::string, std::vector<std::size_t>>>& tasks) {
  corpus::Corpus c;
  for (const auto& [name, sizes] : tasks) {
    corpus::Task t;
    t.name = name;
    c.tasks.push_back(t);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      corpus::Kernel k;
      k.task = name;
      k.name = "k" + std::to_string(i);
      k.source = std::string(sizes[i], 'x');
      c.kernels.push_back(k);
    }
  }
  return c;
}

TEST(Shards, HeaviestTasksGoFirstToTheLightestShardAndEachShardKeepsCorpusOrder) {
  // Weights a=10, b=70, c=40, d=30, e=20. Heaviest first, each to the lighter shard (a tie to
  // the first): b->1 (loads 70/0), c->2 (70/40), d->2 (70/70), e->1 on the tie (90/70), a->2.
  const auto c = corpus_of({{"a", {10}}, {"b", {30, 40}}, {"c", {40}}, {"d", {10, 20}}, {"e", {20}}});
  const ShardPlan plan = plan_shards(c, {}, 2);
  EXPECT_EQ(plan.tasks, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  ASSERT_EQ(plan.shards.size(), 2u);
  EXPECT_EQ(plan.shards[0], (std::vector<std::string>{"b", "e"}));
  EXPECT_EQ(plan.shards[1], (std::vector<std::string>{"a", "c", "d"}));
}

TEST(Shards, EveryTaskIsInExactlyOneShardForAnyCount) {
  const auto c = corpus_of({{"a", {5}}, {"b", {5}}, {"c", {5}}, {"d", {7}}, {"e", {1, 1}}, {"f", {3}}, {"g", {9}}});
  for (std::size_t n = 1; n <= 7; ++n) {
    const ShardPlan plan = plan_shards(c, {}, n);
    ASSERT_EQ(plan.shards.size(), n);
    std::multiset<std::string> seen;
    for (const auto& s : plan.shards) {
      EXPECT_FALSE(s.empty()) << n << " shards";
      seen.insert(s.begin(), s.end());
    }
    EXPECT_EQ(seen, std::multiset<std::string>(plan.tasks.begin(), plan.tasks.end())) << n << " shards";
    EXPECT_EQ(plan.shards, plan_shards(c, {}, n).shards) << "the split must not change between calls";
  }
}

TEST(Shards, OnlyTheSelectedKernelsCountAndDecideWhichTasksAreSplit) {
  const auto c = corpus_of({{"a", {100}}, {"b", {1, 50}}, {"c", {60}}});
  const std::vector<std::string> only = {"b/k0", "c/k0"};
  const ShardPlan plan = plan_shards(c, only, 2);
  EXPECT_EQ(plan.tasks, (std::vector<std::string>{"b", "c"}));  // a has no selected kernel
  EXPECT_EQ(plan.shards[0], (std::vector<std::string>{"c"}));     // 60 against b's 1
  EXPECT_EQ(shard_kernels(c, only, plan.shards[1]), (std::vector<std::string>{"b/k0"}));
  EXPECT_EQ(shard_kernels(c, {}, {"b", "c"}), (std::vector<std::string>{"b/k0", "b/k1", "c/k0"}));
}

TEST(Shards, MoreShardsThanTasksOrNoneAtAllIsRefused) {
  const auto c = corpus_of({{"a", {1}}, {"b", {1}}});
  EXPECT_THROW(plan_shards(c, {}, 3), std::invalid_argument);
  EXPECT_THROW(plan_shards(c, {}, 0), std::invalid_argument);
  try {
    plan_shards(c, {}, 3);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at most 2 shards"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kaudit::audit
