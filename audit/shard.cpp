#include "audit/shard.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace kaudit::audit {
namespace {

bool selected(const std::vector<std::string>& only, const std::string& id) {
  return only.empty() || std::find(only.begin(), only.end(), id) != only.end();
}

}  // namespace

ShardPlan plan_shards(const corpus::Corpus& corpus, const std::vector<std::string>& only, std::size_t count) {
  if (count == 0) throw std::invalid_argument("an audit cannot be split into 0 shards");
  ShardPlan plan;
  std::map<std::string, std::size_t> weight;
  for (const auto& task : corpus.tasks)
    for (const auto& k : corpus.kernels)
      if (k.task == task.name && selected(only, k.id())) {
        if (!weight.count(task.name)) plan.tasks.push_back(task.name);
        weight[task.name] += k.source.size();
      }
  if (plan.tasks.size() < count)
    throw std::invalid_argument(std::to_string(count) + " shards for " + std::to_string(plan.tasks.size()) +
                                " tasks: a shard takes whole tasks, so at most " + std::to_string(plan.tasks.size()) +
                                " shards");
  std::vector<std::size_t> order(plan.tasks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return weight[plan.tasks[a]] > weight[plan.tasks[b]];
  });
  std::vector<std::size_t> load(count, 0);
  std::vector<std::vector<std::size_t>> members(count);
  for (const std::size_t t : order) {
    const std::size_t s = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[s] += weight[plan.tasks[t]];
    members[s].push_back(t);
  }
  for (auto& m : members) {
    if (m.empty())  // only when tasks weigh nothing (no source text): a shard would audit everything
      throw std::invalid_argument("a shard would get no task (the kernels' sources are empty)");
    std::sort(m.begin(), m.end());
    std::vector<std::string> names;
    for (const std::size_t t : m) names.push_back(plan.tasks[t]);
    plan.shards.push_back(std::move(names));
  }
  return plan;
}

std::vector<std::string> shard_kernels(const corpus::Corpus& corpus, const std::vector<std::string>& only,
                                       const std::vector<std::string>& tasks) {
  std::vector<std::string> ids;
  for (const auto& k : corpus.kernels)
    if (selected(only, k.id()) && std::find(tasks.begin(), tasks.end(), k.task) != tasks.end()) ids.push_back(k.id());
  return ids;
}

}  // namespace kaudit::audit
