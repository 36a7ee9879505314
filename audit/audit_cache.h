// The audit's cached results: JSON records under <cache>/audit/<key>.json, checked against their
// digest on read (common/cache.h), keyed by what they depend on (internal to audit/).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "audit/backend.h"
#include "common/cache.h"

namespace kaudit::audit {

// Bump when the meaning of cached audit results changes.
// v7: schemata put a replacement on one line without its comments (under v6 a `//` in a
// multi-line replacement could break every mutant of its schema).
// v8: memory-check tensors come from an arena: an access far past a tensor is out-of-bounds
// (under v7 it could be a crash, or a read of other memory).
// v9: the thread budget (outcome thread-budget), and guard pages around static shared memory (an
// access far past it is out-of-bounds; under v8 it could be a crash or a wrong output).
// v10: oracle mode (verdicts and false kills from a model of the checker's harness on a GPU,
// oracle witnesses), kill causes; TUs with shared memory run on fibers with step points.
// v11: half and bfloat16 library products (torch::matmul & co. on the CPU backend) in float32,
// rounded once, as cuBLAS computes them (under v10 an exception where Debian's libtorch has no
// half product); rows gain the contract check.
// v12: static shared memory laid out as a GPU's window (runtime/cpu/shared_window.h): buffers in
// declaration order, a guard right after their size rounded up to 128 bytes (under v11, 16 KiB of
// poison after them, and GCC's reverse order).
inline constexpr const char* kCacheVersion = "kaudit-audit-v12";
// The oracle-mode model's own version, in the keys of what oracle mode computes (verdicts, false
// kills, oracle witnesses) only: a change of the model re-runs those, not the witness search.
// om1: the first model (docs/ORACLES.md, Oracle mode).
// om2: step points only after statements that reach shared memory.
// om3: step points before and after statements that may write shared memory, none at reads.
// om9: the 16 MiB below the first segment read as zeros (om8 faulted there: an H100 did not, in
// a KernelBench-style harness, fresh process or not; runtime/cpu/device_memory.h).
// om10: shared memory, static and dynamic, one window as a GPU lays it out: an access past its
// 128-byte-rounded end, or more than 1 to 5 KiB before its start, is an illegal address (om9 read
// zeros up to 16 KiB either side; an H100 faults: docs/calibration/h100-2026-12-07d); the
// reference forward's recorded blocks start as zeros (under om9 they held the host heap's bytes
// wherever the forward wrote nothing).
// om11: a short `if` body (straight-line code: no loop, jump, barrier, collective or global load,
// no statement that reads what an earlier one of it wrote to shared memory) takes
// its turns around the `if`, braces or not, so a warp whose condition is false keeps pace with
// those that run it (under om10 braces, or a schema's switch, let idle warps skip those turns and
// run ahead: softmax's and argmax's trees without their in-loop barrier read the root early).
inline constexpr const char* kOracleModelVersion = "om11";

// The record cached under `key` in `dir`; nullopt when there is none, or it is no JSON object.
std::optional<nlohmann::json> cache_read(const std::filesystem::path& dir, const std::string& key);
// A cache that cannot be written only costs time: failures are ignored.
void cache_write(const std::filesystem::path& dir, const std::string& key, const nlohmann::json& j);

// A digest only says a record is the one written; one written by another kaudit, or by hand, can
// still have another shape. Decoding such a record must not abort the audit: `decode` fills its
// results from `j` and may throw (a missing key, a wrong type); then nothing of it is used, the
// record is reported once and the caller recomputes (issue 21: a `{}` legality record aborted).
template <class Decode>
bool decode_cached(const std::filesystem::path& dir, const std::string& key, const nlohmann::json& j, Decode&& decode) {
  try {
    decode(j);
    return true;
  } catch (const std::exception& e) {
    cache::report_damaged(dir / (key + ".json"), std::string("unexpected shape (") + e.what() + "); recomputed");
    return false;
  }
}

// The false kills cached under `key`, into `fks`; false (and `fks` empty) when there are none to use.
bool cached_false_kills(const std::filesystem::path& dir, const std::string& key, const std::string& oracle,
                        const std::string& task, std::vector<FalseKill>& fks);
// `fks` sorted (a deterministic order, whichever worker finished first) and their cache record.
nlohmann::json false_kills_record(std::vector<FalseKill>& fks);

// What every cached result depends on besides the kernel: the pool, the witness comparator, the
// limits and the CPU toolchain. Not the oracles: verdicts and false kills are cached per oracle.
// reference_keys: the ReferenceStore keys of the task's references (problem.py, the export
// script, init arguments, torch): a changed Model changes every verdict's key, not only the
// reference's.
std::string context_digest(const std::vector<PoolInput>& pool, const std::set<std::string>& reference_keys,
                           const AuditOptions& o, const Backend& backend);
// A key of `parts` in `context`.
std::string cache_key(const std::string& context, const std::vector<std::string>& parts);

}  // namespace kaudit::audit
