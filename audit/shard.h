// kaudit::audit -- splitting an audit over machines (`kaudit audit --shard I/N`, then `kaudit
// merge`): whole tasks go to shards, never parts of one, because a task's pool, legality and false
// kills depend on all of its kernels (the correct set). Every machine must compute the same split
// from the same corpus, so it uses nothing a machine measures: each task weighs the bytes of its
// audited kernels' sources (mutation sites, and so mutants, grow with the text), and the tasks,
// heaviest first, go one at a time to the lightest shard (ties: the lower shard; equal weights keep
// corpus order). Run time per task is only roughly proportional to that weight (a task whose
// mutants hang costs more: docs/RESULTS.md, "Time", has a measured split).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace kaudit::audit {

struct ShardPlan {
  std::vector<std::string> tasks;                // every audited task, in corpus order
  std::vector<std::vector<std::string>> shards;  // per shard, its tasks in corpus order
};

// The split of the tasks that have kernels among `only` (empty: every kernel) into `count`
// shards. Throws std::invalid_argument when there are fewer such tasks than shards (a shard would
// audit nothing) or count is 0.
ShardPlan plan_shards(const corpus::Corpus& corpus, const std::vector<std::string>& only, std::size_t count);

// The kernel ids of `tasks` among `only` (empty: every kernel of the corpus), in corpus order:
// what one shard audits.
std::vector<std::string> shard_kernels(const corpus::Corpus& corpus, const std::vector<std::string>& only,
                                       const std::vector<std::string>& tasks);

}  // namespace kaudit::audit
