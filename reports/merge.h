// kaudit::reports -- one run directory from the shards of an audit (`kaudit audit --shard I/N` on
// N machines, then `kaudit merge`). Each shard audited whole tasks (audit/shard.h), so the merged
// files are the shards' records put back in corpus order, and the scores are recomputed from the
// merged kill matrix and false kills by the audit's own scoring: the kill matrix, pools, mutants,
// sources and report are those one unsharded audit of the same corpus and settings would write,
// and summary.json differs only in what is timing (summed over the shards, each shard's runs and
// seconds kept under "merged_shards") and in "shard"/"merged_shards" themselves; its "problems"
// lines are put back in the audit's order (by kind, then task).
#pragma once
#include <vector>

#include "reports/run_dir.h"

namespace kaudit::reports {

// Throws RunDirError naming the directory and what differs when the runs are not the N shards of
// one split (a shard missing or given twice; another plan, corpus files, kernel or rule selection,
// mutant set, NVRTC, settings, oracles or backend; a record outside the shard's tasks; a malformed
// "shard"), or when one of them had oracles added with `--from` (merge first, then add).
RunFiles merge_shards(const std::vector<RunDir>& shards);

}  // namespace kaudit::reports
