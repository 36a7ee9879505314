// `kaudit audit` end to end on a two-kernel slice of the built-in corpus with known outcomes:
//  - softmax without the max subtraction (prec-drop-max-subtraction): uniform [0,1) inputs never
//    overflow expf, so kernelbench-v0.1 misses it; the gate's x1000 input overflows, so the
//    witness search kills it;
//  - ReLU returning its input (hack-return-input): identical to ReLU on non-negative inputs, so
//    kernelbench-v0.1 misses it; KernelBench-Verified's x(-1) trial catches it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/cache.h"
#include "common/process.h"

namespace {

// Copies what `from` holds into `to`, file by file. The shared test cache is written by tests
// running beside this one (ctest -j): an entry that disappears between listing and copying (a
// temporary renamed into place, an entry replaced) is skipped instead of failing the test.
void copy_live_tree(const std::filesystem::path& from, const std::filesystem::path& to) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(to, ec);
  for (fs::recursive_directory_iterator it(from, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path target = to / it->path().lexically_relative(from);
    std::error_code one;
    if (it->is_directory(one)) fs::create_directories(target, one);
    else if (it->is_regular_file(one)) fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing, one);
  }
}

std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(AuditCommand, TwoKernelSliceWithKnownOutcomes) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_e2e_out";
  std::filesystem::remove_all(out);
  const std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "softmax/softmax_block_smem",
                                         "--kernel", "relu/relu_gridstride", "--rule", "prec-drop-max-subtraction",
                                         "--rule", "hack-return-input", "--oracle", "kernelbench-v0.1",
                                         "--oracle", "kernelbench-verified", "--cache", KAUDIT_TEST_CACHE,
                                         "--out", out.string(), "--json"};
  const auto r = kaudit::run_process(args, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);

  // Five mutants: the softmax max subtraction, and the wrappers' `return` of each kernel (the
  // early return for an empty input is unwitnessed: no legal input is empty).
  const auto matrix = read_jsonl(out / "kill-matrix.jsonl");
  ASSERT_EQ(matrix.size(), 5u) << r.out;
  int relu_hacks = 0, softmax_precision = 0;
  for (const auto& m : matrix) {
    if (!m["witnessed"].get<bool>()) continue;
    if (m["kernel"] == "relu/relu_gridstride" && m["rule"] == "hack-return-input") {
      ++relu_hacks;
      EXPECT_FALSE(m["killed_by"]["kernelbench-v0.1"].get<bool>()) << m;
      EXPECT_TRUE(m["killed_by"]["kernelbench-verified"].get<bool>()) << m;
      EXPECT_EQ(m["witness_outcome"], "wrong-output");
    }
    if (m["rule"] == "prec-drop-max-subtraction") {
      ++softmax_precision;
      EXPECT_EQ(m["kernel"], "softmax/softmax_block_smem");
      EXPECT_FALSE(m["killed_by"]["kernelbench-v0.1"].get<bool>()) << m;
    }
  }
  EXPECT_EQ(relu_hacks, 1);
  EXPECT_EQ(softmax_precision, 1);

  // summary.json: per oracle and family witnessed/killed/missed, false kills, pipeline counts.
  ASSERT_EQ(summary["oracles"].size(), 2u);
  const auto& v01 = summary["oracles"][0];
  EXPECT_EQ(v01["oracle"], "kernelbench-v0.1");
  EXPECT_EQ(v01["per_family"]["precision"]["witnessed"], 1);
  EXPECT_EQ(v01["per_family"]["precision"]["missed"], 1);
  EXPECT_EQ(v01["per_family"]["reward-hack"]["witnessed"], 2);  // softmax returning x is caught
  EXPECT_EQ(v01["per_family"]["reward-hack"]["missed"], 1);
  EXPECT_EQ(v01["false_kills"], 0);
  EXPECT_EQ(v01["shape_preset"], "small");
  // Both modes: the verdicts above are oracle mode's; witness mode's, the oracle-witnessed
  // denominator and the kills by cause are beside them (the relu hack returns its input: a wrong
  // output in either mode, for kernelbench-verified's negated trial).
  EXPECT_EQ(v01["mode"], "oracle");
  EXPECT_EQ(v01["witness_mode"]["per_family"]["reward-hack"]["witnessed"], 2);
  EXPECT_TRUE(v01["oracle_witnessed"]["per_family"].contains("reward-hack"));
  const auto& verified = summary["oracles"][1];
  EXPECT_EQ(verified["per_family"]["reward-hack"]["killed"], 2);
  EXPECT_EQ(verified["kills_by_cause"]["reward-hack"]["wrong-output"], 2);
  for (const auto& m : matrix) {
    EXPECT_TRUE(m.contains("witness_mode_killed_by") && m.contains("oracle_witnessed") && m.contains("cause")) << m;
    if (m["witnessed"].get<bool>()) {
      EXPECT_TRUE(m["witness_mode_killed_by"].contains("kernelbench-v0.1")) << m;
    }
  }
  EXPECT_EQ(summary["run_limits"]["cpu_seconds"], 2.0);
  EXPECT_EQ(summary["run_limits"]["thread_budget"], std::uint64_t(1) << 27);
  EXPECT_EQ(summary["pipeline"]["generated"], 5);
  EXPECT_EQ(summary["witnessed"], 3);
  EXPECT_TRUE(std::filesystem::exists(out / "report.md"));

  // pools.json: the structured patterns are in every pool; the correct set holds the kernels,
  // the float32 reference and neutral variants (admitted or dropped with a reason).
  std::ifstream pools_in(out / "pools.json");
  const auto pools = nlohmann::json::parse(pools_in);
  ASSERT_EQ(pools.size(), 2u);
  for (const auto& p : pools) {
    std::set<std::string> users;
    for (const auto& in : p["inputs"])
      for (const auto& u : in["used_by"]) users.insert(u.get<std::string>());
    for (const char* pattern : {"pattern/pattern-constant-rows", "pattern/pattern-one-hot", "pattern/pattern-alternating",
                                "pattern/pattern-exp-overflow", "pattern/pattern-exp-underflow"})
      EXPECT_TRUE(users.count(pattern)) << p["task"] << " " << pattern;
    int kernels = 0, references = 0, neutral = 0;
    for (const auto& m : p["correct_set"]) {
      kernels += m["kind"] == "kernel";
      references += m["kind"] == "reference";
      if (m["kind"] == "neutral") {
        ++neutral;
        EXPECT_NE(m["id"].get<std::string>().find("~neutral-"), std::string::npos) << m;
        if (!m["admitted"].get<bool>()) {
          EXPECT_FALSE(m["note"].get<std::string>().empty()) << m;
        }
      }
    }
    EXPECT_EQ(kernels, 1) << p["task"];
    EXPECT_EQ(references, 1) << p["task"];
    EXPECT_GE(neutral, 1) << p["task"];  // both kernels launch with `const int threads = 256`
  }

  // A re-run reuses the cached results and reports the same numbers.
  const auto again = kaudit::run_process(args, 600);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto s1 = summary, s2 = nlohmann::json::parse(again.out);
  for (auto* s : {&s1, &s2}) {
    s->erase("seconds");
    s->erase("runs");
    s->erase("stage_seconds");
    s->erase("workers");  // how many workers a run needed: a measurement, like the seconds
  }
  EXPECT_EQ(s1, s2);

  // Full kill-matrix rows complete the cached early-stopped rows: every legal input has an
  // outcome, and the witnesses and oracle verdicts stay what they were.
  auto full_args = args;
  full_args.push_back("--full-matrix");
  const auto full = kaudit::run_process(full_args, 1200);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  auto s3 = nlohmann::json::parse(full.out);
  s3.erase("seconds");
  s3.erase("runs");
  s3.erase("stage_seconds");
  s3.erase("workers");
  EXPECT_EQ(s1, s3);
  const auto full_matrix = read_jsonl(out / "kill-matrix.jsonl");
  ASSERT_EQ(full_matrix.size(), matrix.size());
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    EXPECT_EQ(full_matrix[i]["id"], matrix[i]["id"]);
    EXPECT_EQ(full_matrix[i].value("witness", -1), matrix[i].value("witness", -1));
    const std::string kernel = full_matrix[i]["kernel"];
    const auto task_pool = *std::find_if(pools.begin(), pools.end(), [&](const nlohmann::json& p) {
      return kernel.rfind(p["task"].get<std::string>() + "/", 0) == 0;
    });
    ASSERT_EQ(full_matrix[i]["outcomes"].size(), task_pool["inputs"].size());
    for (std::size_t p = 0; p < task_pool["inputs"].size(); ++p) {
      if (!task_pool["inputs"][p]["legal"].get<bool>()) continue;
      EXPECT_NE(full_matrix[i]["outcomes"][p], "not-run") << full_matrix[i]["id"] << " input " << p;
      // A cell the early-stopped row had keeps its outcome.
      if (matrix[i]["outcomes"][p] != "not-run") {
        EXPECT_EQ(full_matrix[i]["outcomes"][p], matrix[i]["outcomes"][p]);
      }
    }
  }
}

TEST(AuditCommand, OneMoreRuleRunsOnlyItsMutants) {
  // A cache of its own for the audit results, sharing the test cache's compiled kernels,
  // precompiled prelude and references: the first run below is always cold.
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE, cache = shared / "audit_per_mutant_cache";
  fs::remove_all(cache);
  fs::create_directories(cache);
  for (const char* part : {"nvrtc", "cpu-kernels", "cpu-pch", "references"}) {
    fs::create_directories(shared / part);
    fs::create_directory_symlink(shared / part, cache / part);
  }
  const auto out = shared / "audit_per_mutant_out";
  std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule", "hack-return-input",
                                   "--oracle", "kernelbench-v0.1", "--cache", cache.string(), "--out", out.string()};
  const auto first = kaudit::run_process(args, 1200);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto before = read_jsonl(out / "kill-matrix.jsonl");
  ASSERT_FALSE(before.empty());

  args.insert(args.end(), {"--rule", "arith-int-const-inc"});
  const auto second = kaudit::run_process(args, 1200);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto after = read_jsonl(out / "kill-matrix.jsonl");
  ASSERT_GT(after.size(), before.size());
  // Only the new rule's mutants are built and run; the others come from the cache unchanged.
  const std::string progress = "audit: relu/relu_gridstride (" + std::to_string(after.size() - before.size()) + " of " +
                               std::to_string(after.size()) + " mutants";
  EXPECT_NE(second.err.find(progress), std::string::npos) << second.err;
  std::map<std::string, nlohmann::json> earlier;
  for (const auto& m : before) earlier[m["id"]] = m;
  int kept = 0;
  for (const auto& m : after) {
    if (m["rule"] != "hack-return-input") continue;
    ASSERT_TRUE(earlier.count(m["id"])) << m;
    EXPECT_EQ(m["outcomes"], earlier[m["id"]]["outcomes"]) << m["id"];
    EXPECT_EQ(m["killed_by"], earlier[m["id"]]["killed_by"]) << m["id"];
    ++kept;
  }
  EXPECT_EQ(kept, static_cast<int>(before.size()));
  fs::remove_all(cache);
}

// The schemata are an optimisation: every mutant of a kernel must get the same kill-matrix row and
// verdict as when it is built on its own. cumsum_block_scan has commented multi-line statements that
// the barrier-moving rules rewrite (a schema once joined such a replacement's lines, and its `//`
// comment swallowed the switch: every mutant of that schema ran broken code).
// A cache of its own for audit results, sharing the shared cache's compiled kernels, prelude and
// references (the slow parts that do not depend on what is compared).
void fresh_audit_cache(const std::filesystem::path& shared, const std::filesystem::path& cache) {
  namespace fs = std::filesystem;
  fs::remove_all(cache);
  fs::create_directories(cache);
  for (const char* part : {"nvrtc", "cpu-kernels", "cpu-pch", "references"}) {
    fs::create_directories(shared / part);
    fs::create_directory_symlink(shared / part, cache / part);
  }
}

// A result cached by input address (hack-cache-by-input-address) is right on every single run:
// only the second-call probe shows it, and only a harness that calls the kernel again on a new
// input at the old address sees it. kernelbench-v0.1's five trials of one shape do (PyTorch's
// caching allocator hands trial 2's input the block trial 1's freed); ci-fuzz's three trials of
// three shapes never call it twice on one shape, and miss it.
TEST(AuditCommand, AResultCachedByAddressIsWitnessedByASecondCall) {
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE, cache = shared / "audit_second_call_cache", out = shared / "audit_second_call_out";
  fresh_audit_cache(shared, cache);
  const std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule",
                                         "hack-cache-by-input-address", "--oracle", "kernelbench-v0.1", "--oracle",
                                         "ci-fuzz", "--cache", cache.string(), "--out", out.string(), "--json"};
  const auto r = kaudit::run_process(args, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto matrix = read_jsonl(out / "kill-matrix.jsonl");
  ASSERT_EQ(matrix.size(), 1u) << r.out;
  const auto& m = matrix[0];
  EXPECT_TRUE(m["witnessed"].get<bool>()) << m;
  EXPECT_FALSE(m.contains("witness")) << m;  // no single run shows it
  for (const auto& o : m["outcomes"]) EXPECT_TRUE(o == "pass" || o == "not-run") << m;
  ASSERT_TRUE(m.contains("second_call")) << m;
  EXPECT_GE(m["second_call"]["witness"].get<int>(), 0) << m;
  EXPECT_NE(m["second_call"]["first"], m["second_call"]["witness"]) << m;
  EXPECT_EQ(m["second_call"]["outcome"], "wrong-output") << m;
  EXPECT_TRUE(m["oracle_witnessed"].get<bool>()) << m;  // two trials of a KernelBench-style harness
  EXPECT_TRUE(m["killed_by"]["kernelbench-v0.1"].get<bool>()) << m;
  EXPECT_EQ(m["killing_trial"]["kernelbench-v0.1"], "trial-2") << m;
  EXPECT_FALSE(m["killed_by"]["ci-fuzz"].get<bool>()) << m;
  // Witness mode runs each trial in a process of its own: no checker sees it there.
  EXPECT_FALSE(m["witness_mode_killed_by"]["kernelbench-v0.1"].get<bool>()) << m;

  // Cached: a second audit runs nothing and reads the same record back.
  const auto again = kaudit::run_process(args, 1200);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["runs"], 0) << again.out;
  const auto cached = read_jsonl(out / "kill-matrix.jsonl");
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached[0]["second_call"], m["second_call"]);
  EXPECT_EQ(cached[0]["killed_by"], m["killed_by"]);
  fs::remove_all(cache);
}

TEST(AuditCommand, SchemataGiveTheKillMatrixOfStandaloneBuilds) {
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE;
  std::map<std::string, std::vector<nlohmann::json>> matrix;
  for (const std::string mode : {"schemata", "standalone"}) {
    // Audit results of its own for each mode; compiled kernels, prelude and references shared.
    const fs::path cache = shared / ("audit_" + mode + "_cache"), out = shared / ("audit_" + mode + "_out");
    fresh_audit_cache(shared, cache);
    std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "cumsum/cumsum_block_scan", "--oracle",
                                     "kernelbench-v0.1", "--cache", cache.string(), "--out", out.string()};
    if (mode == "standalone") args.push_back("--no-schemata");
    const auto r = kaudit::run_process(args, 1800);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("differs from the original"), std::string::npos) << r.err;
    matrix[mode] = read_jsonl(out / "kill-matrix.jsonl");
    fs::remove_all(cache);
  }
  const auto& a = matrix["schemata"];
  const auto& b = matrix["standalone"];
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 80u);  // every rule's distinct mutants of the kernel
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i]["id"], b[i]["id"]);
    EXPECT_EQ(a[i]["outcomes"], b[i]["outcomes"]) << a[i]["id"] << " " << a[i]["rule"];
    EXPECT_EQ(a[i]["killed_by"], b[i]["killed_by"]) << a[i]["id"] << " " << a[i]["rule"];
  }
}

// A pool kept in files (--pool-memory-gb 0: every input and reference spilled, audit/spill.h) gives
// the audit of a pool in memory, byte for byte, and leaves no file behind; so does one whose runs
// go one at a time (--run-memory-gb 0: each request waits until no other is in flight,
// runtime/payload_budget.h).
TEST(AuditCommand, APoolInFilesGivesTheAuditOfAPoolInMemory) {
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE;
  std::map<std::string, std::string> matrix, summary_scores;
  for (const std::string mode : {"memory", "files", "files-one-run-at-a-time"}) {
    const fs::path cache = shared / ("audit_pool_" + mode + "_cache"), out = shared / ("audit_pool_" + mode + "_out");
    fresh_audit_cache(shared, cache);
    // Rules for a no-op, a dropped tail, a wrong result and a survivor: witness search, strict and
    // oracle-mode verdicts (harness runs replaying the recorded reference allocations) all read
    // the pool.
    std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule", "hack-empty-kernel",
                                     "--rule", "bound-loop-bound-minus-one", "--rule", "sem-drop-relu", "--rule",
                                     "hack-return-input", "--rule", "bound-loop-lt-to-le", "--cache", cache.string(),
                                     "--out", out.string()};
    if (mode != "memory") args.insert(args.end(), {"--pool-memory-gb", "0"});
    if (mode == "files-one-run-at-a-time") args.insert(args.end(), {"--run-memory-gb", "0"});
    const auto r = kaudit::run_process(args, 1800);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("GB in files") != std::string::npos, mode != "memory") << r.err;
    std::ifstream in(out / "kill-matrix.jsonl");
    matrix[mode].assign(std::istreambuf_iterator<char>(in), {});
    const auto s = nlohmann::json::parse(std::ifstream(out / "summary.json"));
    summary_scores[mode] = s.at("oracles").dump();
    if (mode != "memory") {
      EXPECT_TRUE(!fs::exists(cache / "spill") || fs::is_empty(cache / "spill"));
    }
    fs::remove_all(cache);
  }
  EXPECT_GT(matrix["memory"].size(), 500u);
  EXPECT_EQ(matrix["memory"], matrix["files"]);
  EXPECT_EQ(summary_scores["memory"], summary_scores["files"]);
  EXPECT_EQ(matrix["memory"], matrix["files-one-run-at-a-time"]);
  EXPECT_EQ(summary_scores["memory"], summary_scores["files-one-run-at-a-time"]);
}

// --preset moves every spec's trials at its preset, the gate's recipes and the patterns to the
// named task preset (here KernelBench v0's 16 x 16384 for relu); odd shapes stay; the report and
// summary.json name the preset of each spec. A preset some audited task lacks is refused before
// any work, naming its task.json.
TEST(AuditCommand, APresetMovesTheSpecsAndThePool) {
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE, cache = shared / "audit_preset_cache", out = shared / "audit_preset_out";
  fresh_audit_cache(shared, cache);
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--preset", "kernelbench-v0", "--kernel", "relu/relu_gridstride",
                                      "--rule", "hack-return-input", "--oracle", "kernelbench-v0.1", "--cache",
                                      cache.string(), "--out", out.string()},
                                     1800);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernelbench-v0.1=kernelbench-v0"), std::string::npos) << r.out;
  std::ifstream pools_in(out / "pools.json");
  const auto pools = nlohmann::json::parse(pools_in);
  int at_preset = 0, odd = 0;
  for (const auto& task : pools)
    for (const auto& in : task["inputs"]) {
      const auto& recipe = in["recipe"];
      if (recipe.contains("shape")) {
        ++odd;
        continue;
      }
      const std::string preset = recipe.value("preset", "");
      if (preset.rfind("odd:", 0) == 0) {
        ++odd;
        continue;
      }
      EXPECT_EQ(preset, "kernelbench-v0") << recipe;
      EXPECT_EQ(in["elements"], 16 * 16384) << recipe;
      ++at_preset;
    }
  EXPECT_GE(at_preset, 10);  // the spec's five trials, the gate's five, the patterns
  EXPECT_GE(odd, 4);         // the gate's odd shapes
  std::ifstream summary_in(out / "summary.json");
  const auto summary = nlohmann::json::parse(summary_in);
  ASSERT_FALSE(summary["oracles"].empty());
  for (const auto& o : summary["oracles"]) EXPECT_EQ(o["shape_preset"], "kernelbench-v0") << o["oracle"];
  fs::remove_all(cache);

  const auto bad = kaudit::run_process({KAUDIT_EXE, "audit", "--preset", "v9", "--kernel", "relu/relu_gridstride",
                                        "--cache", (shared / "unused").string()},
                                       300);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("task 'relu' has no such preset"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("relu/task.json"), std::string::npos) << bad.err;
}

// A mutant set (`kaudit mutate --out`, read with --mutants: how a machine without Clang audits)
// gives the audit of the generated mutants: the same kill matrix and table, from a cache of its
// own. A set made from another text of the kernel is refused before any work, naming the file.
TEST(AuditCommand, AMutantSetGivesTheAuditOfTheGeneratedMutants) {
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE;
  const fs::path set = shared / "mutant_set";
  fs::remove_all(set);
  const std::vector<std::string> slice = {"--kernel", "relu/relu_gridstride", "--rule", "sem-drop-relu", "--rule",
                                          "index-blockdim-to-griddim", "--rule", "hack-return-input"};
  std::vector<std::string> mutate = {KAUDIT_EXE, "mutate", KAUDIT_CORPUS_DIR, "--out", set.string(), "--cache",
                                     (shared / "nvrtc-set").string()};
  mutate.insert(mutate.end(), slice.begin(), slice.end());
  const auto m = kaudit::run_process(mutate, 900);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  std::map<std::string, std::vector<nlohmann::json>> matrix;
  std::map<std::string, std::string> table;
  for (const std::string mode : {"generated", "set"}) {
    const fs::path cache = shared / ("audit_" + mode + "_cache"), out = shared / ("audit_" + mode + "_out");
    fresh_audit_cache(shared, cache);
    std::vector<std::string> args = {KAUDIT_EXE, "audit", "--oracle", "kernelbench-v0.1", "--cache", cache.string(),
                                      "--out", out.string()};
    args.insert(args.end(), slice.begin(), slice.end());
    if (mode == "set") args.insert(args.end(), {"--mutants", set.string()});
    const auto r = kaudit::run_process(args, 1800);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    matrix[mode] = read_jsonl(out / "kill-matrix.jsonl");
    table[mode] = r.out.substr(0, r.out.find("kernel runs,"));
    fs::remove_all(cache);
  }
  ASSERT_GE(matrix["set"].size(), 3u);
  EXPECT_EQ(matrix["set"], matrix["generated"]);
  EXPECT_EQ(table["set"], table["generated"]);

  // The set's kernel digest no longer matches: refused, naming kernels.jsonl's line.
  std::string lines;
  {
    std::ifstream in(set / "kernels.jsonl");
    std::string line;
    std::getline(in, line);
    auto j = nlohmann::json::parse(line);
    j["sha256"] = std::string(64, '0');
    lines = j.dump() + "\n";
  }
  std::ofstream(set / "kernels.jsonl") << lines;
  const auto bad = kaudit::run_process({KAUDIT_EXE, "audit", "--mutants", set.string(), "--kernel",
                                        "relu/relu_gridstride", "--cache", (shared / "unused").string()},
                                       300);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("kernels.jsonl:1: the set was made from another version of relu/relu_gridstride"),
            std::string::npos)
      << bad.err;
}

TEST(AuditCommand, BadSpecStopsBeforeAnyWork) {
  const auto dir = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_bad_spec";
  std::filesystem::create_directories(dir);
  const auto spec = dir / "bad.json";
  std::ofstream(spec) << R"({"name": "bad", "description": "x", "comparator": {"kind": "allclose", "rtol": -1,
 "atol": 0.01}, "trials": []})";
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--oracle", spec.string(), "--out", (dir / "o").string()}, 120);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o"));
}

// The thread budget reaches the workers: with a budget of 1 thread every run (correct kernels,
// neutral variants) is a timeout at its first launch, so no input is legal and the note says why.
// The reference runs in Python, not in a worker, and stays within tolerance of itself.
TEST(AuditCommand, ThreadBudgetReachesEveryRun) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_thread_budget";
  std::filesystem::remove_all(out);
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule",
                                      "hack-return-input", "--oracle", "kernelbench-v0.1", "--thread-budget", "1",
                                      "--cache", KAUDIT_TEST_CACHE, "--out", out.string(), "--json"},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["run_limits"]["thread_budget"], 1);
  std::ifstream pools_in(out / "pools.json");
  const auto pools = nlohmann::json::parse(pools_in);
  ASSERT_EQ(pools.size(), 1u);
  int inputs = 0;
  for (const auto& in : pools[0]["inputs"]) {
    if (!in["usable"].get<bool>()) continue;
    ++inputs;
    EXPECT_FALSE(in["legal"].get<bool>()) << in;
    EXPECT_NE(in["note"].get<std::string>().find("over its budget of 1"), std::string::npos) << in;
  }
  EXPECT_GT(inputs, 10);
}

// gelu_erf's arith-div-to-mul on its launch, `(n + 255) * 256` blocks of 256 instead of
// `(n + 255) / 256`, fits the default budget (2^27 threads) on small inputs and not on large ones.
// Its runs over the budget are their own outcome, cost nothing, and do not count towards the
// "timed out twice" rule, so every later input is still run (a full row has no assumed timeout).
TEST(AuditCommand, ThreadBudgetRunsAreTheirOwnOutcomeAndDoNotStopTheRow) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_thread_budget_row";
  std::filesystem::remove_all(out);
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "gelu/gelu_erf", "--rule", "arith-div-to-mul",
                                      "--oracle", "kernelbench-v0.1", "--full-matrix", "--cache", KAUDIT_TEST_CACHE,
                                      "--out", out.string(), "--json"},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int over_budget_mutants = 0;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    int budget = 0, fits = 0;
    for (const auto& o : m["outcomes"]) {
      budget += o == "thread-budget";
      fits += o == "pass" || o == "wrong-output";
    }
    if (budget < 2) continue;
    ++over_budget_mutants;
    EXPECT_GT(fits, 0) << m;  // the small inputs fit
    for (const auto& o : m["outcomes"]) EXPECT_TRUE(o != "timeout" && o != "not-run") << m;
    EXPECT_TRUE(m["killed_by"]["kernelbench-v0.1"].get<bool>()) << m;  // its large trial is over the budget
  }
  EXPECT_GE(over_budget_mutants, 1);
}

TEST(AuditCommand, BadThreadBudgetIsAUsageError) {
  const auto dir = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_bad_budget";
  std::filesystem::remove_all(dir);
  for (const char* bad : {"2^26", "-1", "1e6", "99999999999999999999"}) {
    const auto r = kaudit::run_process(
        {KAUDIT_EXE, "audit", "--thread-budget", bad, "--out", (dir / "o").string()}, 120);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--thread-budget takes a whole number"), std::string::npos) << bad << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o")) << bad;
  }
}

// Number flags are parsed strictly: a negative worker count no longer wraps to 4,294,967,295
// runners, a zero, negative or non-finite timeout is refused before any work (it failed correct
// kernels, or hung with workers left behind).
TEST(AuditCommand, BadNumberFlagsAreUsageErrorsBeforeAnyWork) {
  const auto dir = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_bad_numbers";
  std::filesystem::remove_all(dir);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--jobs", "-1"}, "--jobs takes a whole number from 1 to 1024, not '-1'"},
      {{"--jobs", "0"}, "--jobs takes a whole number"},
      {{"--jobs", "4294967296"}, "--jobs takes a whole number"},
      {{"--timeout", "0"}, "--timeout takes a number from 0.01 to 3600, not '0'"},
      {{"--timeout", "-5"}, "--timeout takes a number"},
      {{"--timeout", "nan"}, "--timeout takes a number"},
      {{"--timeout", "inf"}, "--timeout takes a number"},
      {{"--timeout", "1e400"}, "--timeout takes a number"},
      {{"--timeout", "2s"}, "--timeout takes a number"},
      {{"--witness-tol", "1"}, "--witness-tol takes a number"},
      {{"--gpu-memory-share", "1.5"}, "--gpu-memory-share takes a number from 0.01 to 0.95, not '1.5'"},
      {{"--gpu-memory-share", "0"}, "--gpu-memory-share takes a number"},
      {{"--pool-memory-gb", "-1"}, "--pool-memory-gb takes a number"},
      {{"--run-memory-gb", "-1"}, "--run-memory-gb takes a number from 0 to 1048576, not '-1'"},
      {{"--run-memory-gb", "nan"}, "--run-memory-gb takes a number"},
  };
  for (const auto& [flags, words] : cases) {
    std::vector<std::string> cmd = {KAUDIT_EXE, "audit"};
    cmd.insert(cmd.end(), flags.begin(), flags.end());
    cmd.insert(cmd.end(), {"--out", (dir / "o").string()});
    const auto r = kaudit::run_process(cmd, 120);
    EXPECT_EQ(r.exit_code, 2) << flags[0] << " " << flags[1];
    EXPECT_NE(r.err.find(words), std::string::npos) << flags[1] << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o")) << flags[1];
  }
}

// Issue 21: a cached record with a valid digest but another shape (another kaudit's, or one written
// by hand) aborted the audit (`{}` as a legality record: an uncaught json exception). Every record
// of a cache is replaced by one of the wrong shape (objects of per-mutant entries keep their keys,
// with entries that are not objects; other records become {}), and the re-run gives the same
// summary as before, recomputing what it could not use.
TEST(AuditCommand, CachedRecordsOfAnotherShapeAreRecomputed) {
  namespace fs = std::filesystem;
  const fs::path base = fs::path(KAUDIT_TEST_CACHE) / "audit_reshaped";
  const fs::path cache = base / "cache", out = base / "out";
  fs::remove_all(base);
  fs::create_directories(cache);
  // The shared test cache's builds and references, so only the audit's own records are at stake.
  for (const char* sub : {"nvrtc", "cpu-kernels", "cpu-pch", "references"})
    if (fs::exists(fs::path(KAUDIT_TEST_CACHE) / sub))
      copy_live_tree(fs::path(KAUDIT_TEST_CACHE) / sub, cache / sub);
  fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
  const std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule",
                                         "hack-return-input", "--rule", "bound-drop-guard", "--oracle",
                                         "kernelbench-v0.1", "--cache", cache.string(), "--out", out.string(), "--json"};
  const auto first = kaudit::run_process(args, 1200);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // A re-run on the intact cache says nothing about damage (valid records, null verdicts
  // included, are all used).
  const auto intact = kaudit::run_process(args, 1200);
  ASSERT_EQ(intact.exit_code, 0) << intact.err;
  EXPECT_EQ(intact.err.find("damaged cache entry"), std::string::npos) << intact.err;
  const auto read_text = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string pools_before = read_text(out / "pools.json"), matrix_before = read_text(out / "kill-matrix.jsonl");
  std::size_t reshaped = 0;
  for (const auto& e : fs::directory_iterator(cache / "audit")) {
    if (e.path().extension() != ".json") continue;
    const auto body = kaudit::cache::read_record(e.path());
    if (!body) continue;
    auto j = nlohmann::json::parse(*body, nullptr, false);
    nlohmann::json bad = nlohmann::json::object();
    for (const char* field : {"mutants", "killed"})
      if (j.is_object() && j.contains(field) && j[field].is_object()) {
        bad[field] = nlohmann::json::object();
        for (auto it = j[field].begin(); it != j[field].end(); ++it) bad[field][it.key()] = "not an entry";
      }
    ASSERT_TRUE(kaudit::cache::write_record(e.path(), bad.dump()));
    ++reshaped;
  }
  EXPECT_GE(reshaped, 3u);  // legality, false kills, rows, witnesses, verdicts
  const auto again = kaudit::run_process(args, 1200);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("unexpected shape"), std::string::npos) << again.err;
  auto s1 = nlohmann::json::parse(first.out), s2 = nlohmann::json::parse(again.out);
  for (auto* s : {&s1, &s2})
    for (const char* volatile_field : {"seconds", "runs", "stage_seconds", "cached_kernels", "workers"}) s->erase(volatile_field);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(read_text(out / "pools.json"), pools_before);  // the correct set and legality too
  EXPECT_EQ(read_text(out / "kill-matrix.jsonl"), matrix_before);
  fs::remove_all(base);
}

// A task's Model is in every cached verdict's key, not only in its reference's: after an edit of
// problem.py the mutants run again (the runs of a warm re-run are 0).
TEST(AuditCommand, AnEditedProblemRunsTheMutantsAgain) {
  namespace fs = std::filesystem;
  const fs::path base = fs::path(KAUDIT_TEST_CACHE) / "audit_edited_problem";
  const fs::path corpus = base / "corpus", cache = base / "cache";
  fs::remove_all(base);
  fs::create_directories(corpus / "tasks");
  fs::create_directories(corpus / "kernels" / "relu");
  fs::copy(fs::path(KAUDIT_CORPUS_DIR) / "tasks" / "relu", corpus / "tasks" / "relu", fs::copy_options::recursive);
  for (const char* ext : {".cu", ".json"})
    fs::copy_file(fs::path(KAUDIT_CORPUS_DIR) / "kernels" / "relu" / (std::string("relu_gridstride") + ext),
                  corpus / "kernels" / "relu" / (std::string("relu_gridstride") + ext));
  fs::create_directories(cache);
  fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
  const std::vector<std::string> args = {KAUDIT_EXE, "audit", "--corpus", corpus.string(), "--rule",
                                         "hack-return-input", "--oracle", "kernelbench-v0.1", "--cache",
                                         cache.string(), "--out", (base / "out").string(), "--json"};
  const auto runs = [&] {
    const auto r = kaudit::run_process(args, 1200);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false).value("runs", -1);
  };
  EXPECT_GT(runs(), 0);
  EXPECT_EQ(runs(), 0);
  {
    std::ofstream problem(corpus / "tasks" / "relu" / "problem.py", std::ios::app);
    problem << "\n# edited\n";
  }
  EXPECT_GT(runs(), 0);
  fs::remove_all(base);
}

}  // namespace

namespace {

// Legality on a K = 4096 sum (the built-in sum_dim kernels: tree and Kahan summation, and the
// float32 reference) with inputs scaled by 300: pools.json says which inputs are legal.
std::map<std::string, bool> legality(const std::string& witness_tol) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / ("audit_legality_" + witness_tol);
  std::filesystem::remove_all(out);
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "sum_dim/sum_dim_smem", "--kernel",
                                      "sum_dim/sum_dim_kahan", "--rule", "hack-return-zeros", "--oracle",
                                      KAUDIT_AUDIT_FIXTURES "/sum-k4096-x300.json", "--witness-tol", witness_tol,
                                      "--cache", KAUDIT_TEST_CACHE, "--out", out.string()},
                                     1200);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, bool> legal;
  std::ifstream in(out / "pools.json");
  const auto pools = nlohmann::json::parse(in);
  for (const auto& input : pools.at(0).at("inputs")) legal[input["recipe"]["name"]] = input["legal"];
  return legal;
}

// The built-in kernelbench and gym-v9 specs' comparators, written as external checkers in Python
// (examples/oracles/kernelbench_like.py and gym_hidden_cases.py, run through kaudit's protocol):
// the same verdict on every mutant in both modes, the same cause and killing trial, the same
// scores. On 3 kernels and all their rules, so that mutants of every outcome (wrong output, NaN,
// crash, timeout, exception) reach the checker or bypass it as they should; one kernel has half
// outputs, which KernelBench judges at 1e-2 (its tolerance for the fp16 precision), so the
// built-in spec must accept its correct kernels (at 1e-4 they were one ulp off at 1.25).
TEST(AuditCommand, ExternalCheckersOfTheBuiltInRulesGiveTheBuiltInSpecsVerdicts) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_external_out";
  std::filesystem::remove_all(out);
  const auto examples = std::filesystem::path(KAUDIT_EXAMPLES_DIR) / "oracles";
  const std::vector<std::pair<std::string, std::string>> pairs = {{"kernelbench", "kernelbench-like"},
                                                                  {"gym-v9", "gym-hidden-cases"}};
  const auto r = kaudit::run_process(
      {KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--kernel", "softmax/softmax_block_smem", "--kernel",
       "rmsnorm_fp16/rms_fp16_warp_xor", "--oracle", "kernelbench", "--oracle", (examples / "kernelbench_like.json").string(), "--oracle", "gym-v9", "--oracle",
       (examples / "gym_hidden_cases.json").string(), "--cache", KAUDIT_TEST_CACHE, "--out", out.string()},
      1800);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [builtin, external] : pairs) {
    int witnessed = 0, killed = 0, missed = 0;
    for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
      if (!m["witnessed"].get<bool>()) continue;
      ++witnessed;
      for (const char* field : {"killed_by", "cause", "killing_trial", "witness_mode_killed_by", "witness_mode_cause"}) {
        const nlohmann::json& f = m.contains(field) && m[field].is_object() ? m[field] : nlohmann::json::object();
        EXPECT_EQ(f.value(builtin, nlohmann::json()), f.value(external, nlohmann::json()))
            << field << " of " << m["id"] << " (" << m["rule"] << ")";
      }
      (m["killed_by"][builtin] == true ? killed : missed)++;
    }
    EXPECT_GT(witnessed, 100);
    EXPECT_GT(killed, 50) << builtin;  // both sides of the comparison are exercised
    EXPECT_GT(missed, 20) << builtin;
  }
  // The scores: everything but the spec's own description is the same.
  std::map<std::string, nlohmann::json> scores;
  std::ifstream summary_file(out / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(summary_file);
  for (auto o : summary["oracles"]) {
    const std::string name = o["oracle"];
    if (name.rfind("kernelbench", 0) == 0) {
      EXPECT_EQ(o["false_kills"], 0) << o["false_kill_list"];
    }
    o.erase("oracle");
    o.erase("spec");
    // A false kill's detail is each checker's own words (the gym's checker names its hidden case).
    for (auto* side : {&o, &o["witness_mode"]})
      for (auto& f : (*side)["false_kill_list"]) f.erase("detail");
    scores[name] = o;
  }
  ASSERT_EQ(scores.size(), 4u);
  for (const auto& [builtin, external] : pairs) EXPECT_EQ(scores[builtin], scores[external]) << builtin;
}

// The gym's two gates written in Python against the run facts of the judge request
// (examples/oracles/gym_hidden_cases.py --gates: trial.launches, trial.library_calls, and the gate
// named as the reply's cause) give the built-in gated spec's verdicts, causes and killing trials
// in both modes, on planted launch removals and library fallbacks (the gates' causes among them).
TEST(AuditCommand, TheGymsGatesWrittenInPythonGiveTheBuiltInGatesVerdicts) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_python_gates_out";
  std::filesystem::remove_all(out);
  const auto examples = std::filesystem::path(KAUDIT_EXAMPLES_DIR) / "oracles";
  const auto r = kaudit::run_process(
      {KAUDIT_EXE, "audit", "--kernel", "matmul/matmul_tiled", "--kernel", "relu/relu_gridstride", "--rule",
       "hack-library-matmul", "--rule", "hack-remove-launch", "--rule", "hack-return-zeros", "--rule", "hack-empty-kernel",
       "--oracle", (examples / "gym_v9_gates.json").string(), "--oracle", (examples / "gym_hidden_cases_gates.json").string(),
       "--cache", KAUDIT_TEST_CACHE, "--out", out.string()},
      1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, int> causes;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    if (!m["witnessed"].get<bool>()) continue;
    for (const char* field : {"killed_by", "cause", "killing_trial", "witness_mode_killed_by", "witness_mode_cause"}) {
      const nlohmann::json& f = m.contains(field) && m[field].is_object() ? m[field] : nlohmann::json::object();
      EXPECT_EQ(f.value("gym-v9-gates", nlohmann::json()), f.value("gym-hidden-cases-gates", nlohmann::json()))
          << field << " of " << m["id"] << " (" << m["rule"] << ")";
    }
    if (m["cause"].is_object()) causes[m["cause"].value("gym-hidden-cases-gates", "")]++;
  }
  EXPECT_GE(causes["no-launch"], 1);
  EXPECT_GE(causes["library-compute"], 1);
  EXPECT_GE(causes["wrong-output"], 1);
}

// A harness that skips a trial whose candidate threw (the planted bug of
// tests/fixtures/external_checkers/swallows_exceptions.json) is asked about those runs and
// passes them: the mutants the KernelBench check kills by an exception are missed by it (these
// throw on every trial; one that threw on some only would be killed at another), and every other
// verdict is the KernelBench check's.
TEST(AuditCommand, AHarnessThatSwallowsExceptionsMissesTheMutantsThatThrow) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_swallows_out";
  std::filesystem::remove_all(out);
  const auto spec = std::filesystem::path(KAUDIT_AUDIT_FIXTURES) / ".." / "external_checkers" / "swallows_exceptions.json";
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "batched_matmul/bmm_smem_tiled", "--rule",
                                      "arith-int-const-inc", "--oracle", "kernelbench", "--oracle", spec.string(), "--cache",
                                      KAUDIT_TEST_CACHE, "--out", out.string()},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int threw = 0, others = 0;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    if (!m["witnessed"].get<bool>()) continue;
    if (m["cause"].value("kernelbench", "") == "exception") {
      ++threw;
      EXPECT_EQ(m["killed_by"]["swallows-exceptions"], false) << m["id"];
    } else {
      ++others;
      EXPECT_EQ(m["killed_by"]["kernelbench"], m["killed_by"]["swallows-exceptions"]) << m["id"];
      EXPECT_EQ(m["cause"].value("kernelbench", ""), m["cause"].value("swallows-exceptions", "")) << m["id"];
    }
  }
  EXPECT_GE(threw, 1);
  EXPECT_GE(others, 1);
}

// An external checker's loop runs on past failures; a matmul mutant (`+` -> `-` in an index) fails
// trial 1 and then writes out of its block and kills the worker in a later trial, taking trial 1's
// outputs with it. Those trials are run again (the modelled device is deterministic), so the
// checker sees trial 1 and the cause is wrong-output at trial 1, as the built-in spec says.
TEST(AuditCommand, AnExternalCheckerSeesTheTrialsBeforeAWorkersDeath) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_external_death_out";
  std::filesystem::remove_all(out);
  const auto spec = std::filesystem::path(KAUDIT_EXAMPLES_DIR) / "oracles" / "kernelbench_like.json";
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "matmul/matmul_naive", "--rule", "arith-add-to-sub",
                                      "--oracle", "kernelbench", "--oracle", spec.string(), "--cache", KAUDIT_TEST_CACHE,
                                      "--out", out.string()},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int wrong_output = 0;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    if (!m["witnessed"].get<bool>()) continue;
    for (const char* field : {"killed_by", "cause", "killing_trial"}) {
      const nlohmann::json& f = m.contains(field) && m[field].is_object() ? m[field] : nlohmann::json::object();
      EXPECT_EQ(f.value("kernelbench", nlohmann::json()), f.value("kernelbench-like", nlohmann::json())) << field << " " << m;
    }
    wrong_output += m["cause"].value("kernelbench-like", "") == "wrong-output";
  }
  EXPECT_GE(wrong_output, 2);
}

// The built-in kernelbench-v0.1 spec renamed `name` with `gates`, written into the test cache.
std::filesystem::path gated_kernelbench_v01(const std::string& name, const nlohmann::json& gates) {
  const auto spec = std::filesystem::path(KAUDIT_TEST_CACHE) / (name + ".json");
  std::ifstream in(std::filesystem::path(KAUDIT_SUITES_DIR) / "kernelbench-v0.1.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["name"] = name;
  j["gates"] = gates;
  std::ofstream(spec) << j.dump(2);
  return spec;
}

// The gym's gate "the kernel must actually launch" (spec field gates.kernel_launched): a wrapper
// whose launch is removed is killed by the gated checker with cause no-launch, in both modes,
// whatever its output; hacks that still launch (returning the input, zeros) get the ungated
// checker's verdict; the correct set is never gated out. On softmax a removed launch leaves the
// fresh (zeroed) output of the modelled allocator, within kernelbench-v0.1's atol of 1e-2 at the
// small preset: only the gate sees it.
TEST(AuditCommand, TheLaunchGateKillsWrappersThatLaunchNothing) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_gate_out";
  std::filesystem::remove_all(out);
  const auto spec = gated_kernelbench_v01("kernelbench-v0.1-gates", {{"kernel_launched", true}});
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--kernel",
                                      "softmax/softmax_block_smem", "--rule", "hack-return-input", "--rule",
                                      "hack-remove-launch", "--rule", "hack-return-zeros", "--oracle", "kernelbench-v0.1",
                                      "--oracle", spec.string(), "--cache", KAUDIT_TEST_CACHE, "--out", out.string()},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int removed = 0, gated_only = 0;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    if (!m["witnessed"].get<bool>()) continue;
    if (m["rule"] == "hack-remove-launch") {
      ++removed;
      EXPECT_EQ(m["killed_by"]["kernelbench-v0.1-gates"], true) << m;
      EXPECT_EQ(m["cause"]["kernelbench-v0.1-gates"], "no-launch") << m;
      EXPECT_EQ(m["witness_mode_killed_by"]["kernelbench-v0.1-gates"], true) << m;
      EXPECT_EQ(m["witness_mode_cause"]["kernelbench-v0.1-gates"], "no-launch") << m;
      gated_only += m["killed_by"]["kernelbench-v0.1"] == false;
    } else {
      EXPECT_EQ(m["killed_by"]["kernelbench-v0.1-gates"], m["killed_by"]["kernelbench-v0.1"]) << m;
      EXPECT_EQ(m["witness_mode_killed_by"]["kernelbench-v0.1-gates"], m["witness_mode_killed_by"]["kernelbench-v0.1"]) << m;
    }
  }
  EXPECT_GE(removed, 2);
  EXPECT_GE(gated_only, 1);
  std::ifstream summary_file(out / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(summary_file);
  for (const auto& o : summary["oracles"]) EXPECT_EQ(o["false_kills"], 0) << o["oracle"];
}

// kaudit's gate "every output element written" (gates.every_output_written): softmax partial
// writes (the first row only, the last block skipped) leave elements that hold zeros or the
// reference's freed answer, within kernelbench-v0.1's atol of 1e-2 from softmax values near 1e-3 at
// the small preset; the gated checker kills them with cause unwritten-output, in oracle mode only
// (witness mode records no probe: the NaN fill kills them there anyway), and rejects no correct
// kernel; a hack that writes every element wrongly (zeros) gets the ungated checker's verdict.
TEST(AuditCommand, TheWrittenGateKillsPartialWritesInsideTheTolerance) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_written_gate_out";
  std::filesystem::remove_all(out);
  const auto spec = gated_kernelbench_v01("kernelbench-v0.1-written", {{"every_output_written", true}});
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "softmax/softmax_block_smem", "--rule",
                                      "hack-first-row-only", "--rule", "hack-skip-last-block", "--rule",
                                      "hack-return-zeros", "--oracle", "kernelbench-v0.1", "--oracle", spec.string(),
                                      "--cache", KAUDIT_TEST_CACHE, "--out", out.string()},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int gated_only = 0, partial = 0;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    if (!m["oracle_witnessed"].get<bool>()) continue;
    const bool plain = m["killed_by"]["kernelbench-v0.1"], gated = m["killed_by"]["kernelbench-v0.1-written"];
    EXPECT_TRUE(gated || !plain) << m;  // the gate only adds kills
    EXPECT_EQ(m["witness_mode_killed_by"]["kernelbench-v0.1-written"], m["witness_mode_killed_by"]["kernelbench-v0.1"]) << m;
    if (m["rule"] == "hack-return-zeros") {
      EXPECT_EQ(gated, plain) << m;
      continue;
    }
    ++partial;
    if (gated && !plain) {
      ++gated_only;
      EXPECT_EQ(m["cause"]["kernelbench-v0.1-written"], "unwritten-output") << m;
    }
  }
  EXPECT_GE(partial, 2);
  EXPECT_GE(gated_only, 1);
  std::ifstream summary_file(out / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(summary_file);
  for (const auto& o : summary["oracles"]) EXPECT_EQ(o["false_kills"], 0) << o["oracle"];
}

// The gym's other gate, "no fallback to library compute" (examples/oracles/gym_v9_gates.json): the
// hybrid kernel whose GEMM is torch::addmm and whose tail is its own kernel computes the right
// answer and is rejected by the gated checker on every correct-set member, cause library-compute;
// the warp-per-output kernel of the same task, which computes everything itself, is not; the
// ungated gym-v9 accepts both. Having rejected the hybrid itself, the gated checker detects none
// of its mutants: its kills of them count as misses (audit/scoring.h).
TEST(AuditCommand, TheLibraryGateRejectsHybridKernelsWhateverTheirOutput) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "audit_library_gate_out";
  std::filesystem::remove_all(out);
  const auto spec = std::filesystem::path(KAUDIT_EXAMPLES_DIR) / "oracles" / "gym_v9_gates.json";
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "matmul_swish_scaling/mss_library_gemm_tail",
                                      "--kernel", "matmul_swish_scaling/mss_warp_dot", "--rule", "hack-remove-launch",
                                      "--oracle", "gym-v9", "--oracle", spec.string(), "--cache", KAUDIT_TEST_CACHE,
                                      "--out", out.string()},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream summary_file(out / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(summary_file);
  int hybrid_rejected = 0;
  for (const auto& o : summary["oracles"]) {
    if (o["oracle"] == "gym-v9") {
      EXPECT_EQ(o["false_kills"], 0) << o["false_kill_list"];
      continue;
    }
    ASSERT_EQ(o["oracle"], "gym-v9-gates");
    for (const auto& f : o["false_kill_list"]) {
      const std::string member = f["member"];
      EXPECT_EQ(member.rfind("matmul_swish_scaling/mss_library_gemm_tail", 0), 0u) << f;
      EXPECT_NE(f["detail"].get<std::string>().find("library-compute"), std::string::npos) << f;
      ++hybrid_rejected;
    }
  }
  EXPECT_GE(hybrid_rejected, 1);
  // The vector tail's launch removed: nothing launches on the gym's shapes, the launch gate fails
  // first. The scalar tail's removed: the vector tail still runs there, and the library gate fails
  // it (the ungated gym-v9 misses it: its trials never take the scalar path).
  std::map<std::string, int> causes;
  int raw_kills = 0;  // witnessed mutants the gated checker rejects, before the rule above
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) {
    if (!m["witnessed"].get<bool>()) continue;
    raw_kills += m["killed_by"].value("gym-v9-gates", false);
    if (m["kernel"] == "matmul_swish_scaling/mss_library_gemm_tail") ++causes[m["cause"].value("gym-v9-gates", "missed")];
  }
  EXPECT_EQ(causes, (std::map<std::string, int>{{"library-compute", 1}, {"no-launch", 1}}));
  for (const auto& o : summary["oracles"])
    if (o["oracle"] == "gym-v9-gates") {
      EXPECT_EQ(o["kills_of_rejected_originals"], 2);
      EXPECT_EQ(o["per_family"]["reward-hack"]["killed"].get<int>(), raw_kills - 2) << o["per_family"];
    }
}

// A library fallback (hack-library-matmul: the wrapper returns torch::matmul(A, B), its kernel still
// launched) is right on every input: no output shows it. The contract check witnesses it on the
// first legal input (a library call where the original makes none); only the gated checker kills
// it, cause library-compute, in both modes; kernelbench misses it. On a task that is not a plain
// product (diag_matmul: A is the diagonal's vector) the output is wrong and no contract is checked.
// A second audit is all cache; a run directory reads the contract back.
TEST(AuditCommand, ALibraryFallbackIsWitnessedByTheContractOnly) {
  namespace fs = std::filesystem;
  const fs::path shared = KAUDIT_TEST_CACHE, cache = shared / "audit_contract_cache", out = shared / "audit_contract_out";
  fresh_audit_cache(shared, cache);
  const auto spec = fs::path(KAUDIT_EXAMPLES_DIR) / "oracles" / "gym_v9_gates.json";
  const std::vector<std::string> args = {KAUDIT_EXE, "audit", "--kernel", "matmul/matmul_naive", "--kernel",
                                         "diag_matmul/diag_rowscale_2d", "--rule", "hack-library-matmul", "--oracle",
                                         "kernelbench", "--oracle", spec.string(), "--cache", cache.string(), "--out",
                                         out.string(), "--json"};
  const auto r = kaudit::run_process(args, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, nlohmann::json> by_kernel;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl")) by_kernel[m["kernel"]] = m;
  ASSERT_EQ(by_kernel.size(), 2u) << r.out;
  const auto& m = by_kernel["matmul/matmul_naive"];
  EXPECT_TRUE(m["witnessed"].get<bool>()) << m;
  EXPECT_FALSE(m.contains("witness")) << m;
  for (const auto& o : m["outcomes"]) EXPECT_TRUE(o == "pass" || o == "not-run") << m;
  ASSERT_TRUE(m.contains("contract")) << m;
  EXPECT_GE(m["contract"]["witness"].get<int>(), 0) << m;
  EXPECT_EQ(m["contract"]["cause"], "library-compute") << m;
  EXPECT_TRUE(m["oracle_witnessed"].get<bool>()) << m;
  EXPECT_EQ(m["oracle_witness_cause"], "library-compute") << m;
  EXPECT_FALSE(m["killed_by"]["kernelbench"].get<bool>()) << m;
  EXPECT_TRUE(m["killed_by"]["gym-v9-gates"].get<bool>()) << m;
  EXPECT_EQ(m["cause"]["gym-v9-gates"], "library-compute") << m;
  EXPECT_FALSE(m["witness_mode_killed_by"]["kernelbench"].get<bool>()) << m;
  EXPECT_TRUE(m["witness_mode_killed_by"]["gym-v9-gates"].get<bool>()) << m;
  const auto& d = by_kernel["diag_matmul/diag_rowscale_2d"];
  EXPECT_TRUE(d.contains("witness")) << d;
  EXPECT_FALSE(d.contains("contract")) << d;
  EXPECT_TRUE(d["killed_by"]["kernelbench"].get<bool>()) << d;

  const auto again = kaudit::run_process(args, 1200);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["runs"], 0) << again.out;
  for (const auto& c : read_jsonl(out / "kill-matrix.jsonl"))
    if (c["kernel"] == "matmul/matmul_naive") {
      EXPECT_EQ(c["contract"], m["contract"]);
      EXPECT_EQ(c["killed_by"], m["killed_by"]);
    }
  // A row cached before the contract check existed (no "ct"): the next audit checks it, with runs
  // of its own (at most kContractRuns of the mutant and the original's baseline), and finds the
  // same breach.
  int stripped = 0;
  for (const auto& f : fs::directory_iterator(cache / "audit")) {
    auto body = kaudit::cache::read_record(f.path());
    if (!body) continue;
    auto rows = nlohmann::json::parse(*body);
    if (!rows.contains("mutants")) continue;
    bool changed = false;
    for (auto& [id, row] : rows["mutants"].items())
      if (row.contains("ct")) {
        row.erase("ct");
        row.erase("ctc");
        changed = true;
      }
    if (!changed) continue;
    ASSERT_TRUE(kaudit::cache::write_record(f.path(), rows.dump()));
    ++stripped;
  }
  ASSERT_EQ(stripped, 1);
  const auto upgraded = kaudit::run_process(args, 1200);
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.err;
  const int upgrade_runs = nlohmann::json::parse(upgraded.out)["runs"];
  EXPECT_GE(upgrade_runs, 1) << upgraded.out;
  EXPECT_LE(upgrade_runs, 6) << upgraded.out;  // up to 3 of the mutant, and the original's on the same inputs
  int upgraded_rows = 0;
  for (const auto& c : read_jsonl(out / "kill-matrix.jsonl"))
    if (c.at("kernel") == "matmul/matmul_naive") {
      ++upgraded_rows;
      ASSERT_TRUE(c.contains("contract")) << c;
      EXPECT_EQ(c.at("contract").at("cause"), "library-compute") << c;
      EXPECT_EQ(c.at("killed_by"), m["killed_by"]);
    }
  EXPECT_EQ(upgraded_rows, 1);
  // The HTML report says what witnessed it.
  const auto page = out / "report.html";
  const auto report = kaudit::run_process({KAUDIT_EXE, "report", out.string(), "--format", "html", "--out", page.string()}, 600);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream html(page);
  const std::string text((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("gives the right output but breaks the contract (library-compute"), std::string::npos);
  fs::remove_all(cache);
}

TEST(AuditLegality, SignMixedTimes300OnAK4096SumIsIllegalSameSignStaysLegal) {
  // At KernelBench's current tolerance (1e-4) the correct kernels and the float32 reference part
  // from the float64 sum on sign-mixed inputs scaled by 300 (cancellation leaves outputs small
  // next to the rounding error of 4096 large terms): the input would false-kill, so it is illegal.
  // Same-sign inputs of the same scale keep every member within tolerance.
  const auto tight = legality("1e-4");
  EXPECT_FALSE(tight.at("sign-mixed-x300"));
  EXPECT_TRUE(tight.at("same-sign-x300"));
  // At the reference study's 1e-2 both stay legal here: allclose's relative term (1e-2 * |ref|)
  // covers the error of these kernels (the study's claim needs a less accurate correct kernel).
  const auto loose = legality("1e-2");
  EXPECT_TRUE(loose.at("sign-mixed-x300"));
  EXPECT_TRUE(loose.at("same-sign-x300"));
}

}  // namespace

// `kaudit gpu-bundle --mutant ID` takes exactly the named witnessed mutants of a finished audit
// (a calibration aimed at one question), and an id the audit did not witness is an error naming it.
TEST(GpuBundleCommand, NamedMutantsAreExactlyTheBundle) {
  const auto out = std::filesystem::path(KAUDIT_TEST_CACHE) / "gpu_bundle_audit";
  std::filesystem::remove_all(out);
  auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule", "hack-return-input",
                                "--rule", "bound-loop-lt-to-le", "--oracle", "kernelbench-v0.1", "--cache",
                                KAUDIT_TEST_CACHE, "--out", out.string(), "--json"},
                               1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> witnessed;
  for (const auto& m : read_jsonl(out / "kill-matrix.jsonl"))
    if (m["witnessed"].get<bool>()) witnessed.push_back(m["id"]);
  ASSERT_GE(witnessed.size(), 2u);
  const auto bundle = std::filesystem::path(KAUDIT_TEST_CACHE) / "gpu_bundle_out";
  std::filesystem::remove_all(bundle);
  r = kaudit::run_process({KAUDIT_EXE, "gpu-bundle", "--from", out.string(), "--out", bundle.string(), "--mutant",
                           witnessed[1], "--cache", KAUDIT_TEST_CACHE},
                          600);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(bundle / "manifest.json");
  const auto manifest = nlohmann::json::parse(in);
  ASSERT_EQ(manifest["mutants"].size(), 1u) << manifest["mutants"];
  EXPECT_EQ(manifest["mutants"][0]["id"], witnessed[1]);

  r = kaudit::run_process({KAUDIT_EXE, "gpu-bundle", "--from", out.string(), "--out", bundle.string(), "--mutant",
                           "0123456789abcdef", "--cache", KAUDIT_TEST_CACHE},
                          600);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no witnessed mutant 0123456789abcdef"), std::string::npos) << r.err;
}
