// kaudit audit [--oracle SPEC]... [--corpus PATH] [--out DIR] [--json]: the main job.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "audit/audit.h"
#include "corpus/corpus.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/audit_args.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit audit [--oracle SPEC]... [--corpus PATH] [--out DIR] [--json] [--kernel TASK/NAME]...\n"
    "                    [--rule ID]... [--witness-tol T] [--timeout S] [--thread-budget N] [--jobs N]\n"
    "                    [--cache DIR] [--full-matrix] [--no-schemata] [--backend cpu|cuda] [--mutants DIR]\n"
    "                    [--preset P]\n\n"
    "Measures correctness checkers (oracle specs) on the mutants of a corpus (default: the built-in\n"
    "one), on the CPU backend (or on this machine's GPU: --backend cuda):\n"
    "  1. mutate: every rule at every site, compiled with NVRTC, deduplicated by image;\n"
    "  2. pool: every built-in and named oracle's trials, the gate's recipes (signs, magnitudes, odd shapes) and\n"
    "     structured patterns (constant rows, one-hot, alternating signs, exp overflow/underflow);\n"
    "  3. legality: an input is legal when every correct kernel of the task, their neutral variants\n"
    "     (rounding order, block size) and the float32 reference stay within the witness tolerance\n"
    "     of the float64 reference;\n"
    "  4. witness: each distinct mutant runs on the legal inputs, cheap first (isolated workers); the\n"
    "     first on which it fails (wrong output, crash, timeout, out-of-bounds...) is its witness;\n"
    "  5. score: per oracle and family, the witnessed mutants it misses, and its false kills (correct\n"
    "     kernels or the float32 reference it rejects).\n"
    "Unwitnessed mutants never enter a rate. Results are cached: a re-run reuses them.\n\n"
    "  --oracle SPEC    a built-in oracle name (suites/NAME.json) or a spec file; repeatable; default all\n"
    "  --corpus PATH    corpus folder (tasks/ and kernels/)\n"
    "  --out DIR        report folder (default kaudit-out): report.md, summary.json, mutants.jsonl,\n"
    "                   kill-matrix.jsonl, pools.json\n"
    "  --json           print summary.json instead of the table\n"
    "  --kernel ID      only this kernel (repeatable)      --rule ID   only this rule (repeatable)\n"
    "  --witness-tol T  allclose rtol = atol = T for witnesses and legality (default 1e-2)\n"
    "  --timeout S      CPU s per kernel run, 0.01 to 3600 (default 2)   --jobs N  workers, 1 to 1024 (default: cores)\n"
    "  --thread-budget N  CUDA threads a run may start, those of kernels run on fibers (barriers, warp\n"
    "                   collectives) counting 128; a launch over it starts nothing and is a\n"
    "                   thread-budget timeout (default 2^27 = 134217728; 0: no limit)\n"
    "  --cache DIR      cache (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "  --backend B      cpu (default: the emulator) or cuda (nvcc builds run on this machine's GPU;\n"
    "                   --timeout is then wall-clock seconds, default 5)\n"
    "  --mutants DIR    audit the mutant set `kaudit mutate --out DIR` wrote instead of generating\n"
    "                   mutants (no Clang needed: how a GPU machine without Clang audits)\n"
    "  --preset P       every spec, the gate's recipes and the patterns at the task shape preset P\n"
    "                   (kernelbench-v0, kernelbench: the benchmark's sizes, docs/CORPUS.md) instead of\n"
    "                   `small`; odd and explicit shapes stay. The report names each spec's preset\n"    "  --full-matrix    run every mutant on every legal input (full kill-matrix rows, for set cover)\n"
    "                   instead of stopping at the witness; completes cached rows\n"
    "  --no-schemata    build every mutant on its own instead of many behind a switch in one build\n"
    "                   (much slower; its kill matrix must equal the default's: with a fresh --cache,\n"
    "                   a check of the schemata)\n"
    "Exit status: 0; 1 when something was skipped (listed); 2 on a usage error or a bad spec.\n";

std::string pct(const audit::Tally& t) { return audit::percent(t.missed(), t.witnessed); }

// A per-family table over the six fault families, their sum and the reward hacks: `cells` gives
// a row's cells after the family name, one string per column.
template <typename Cells>
void family_rows(std::ostringstream& os, const Cells& cells) {
  for (auto f : mutators::kAllFamilies)
    if (f != mutators::Family::RewardHack) os << "| " << mutators::family_name(f) << " |" << cells(f, false) << "\n";
  os << "| **all faults** |" << cells(mutators::Family::Arithmetic, true) << "\n";
  os << "| reward-hack |" << cells(mutators::Family::RewardHack, false) << "\n";
}

// The report's tables after the first: the second denominator, what witness mode would have
// said, and the kills by cause.
std::string mode_tables(const audit::AuditResult& r, const std::vector<oracle::OracleSpec>& oracles) {
  std::ostringstream os;
  if (r.scores.empty()) return os.str();
  const auto header = [&](const char* first, const char* extra) {
    os << "| " << first << " |" << extra;
    for (const auto& o : oracles) os << " " << o.name << " |";
    os << "\n|---|" << (std::string(extra).empty() ? "" : "---:|");
    for (std::size_t i = 0; i < oracles.size(); ++i) os << "---:|";
    os << "\n";
  };
  os << "\nOver the mutants also witnessed in oracle mode (faults that show under a checker's harness on a "
        "GPU at all; the reference study counted only such faults): missed %.\n\n";
  header("family", " witnessed in oracle mode |");
  family_rows(os, [&](mutators::Family f, bool all) {
    const auto& first = all ? r.scores[0].faults_oracle_witnessed : r.scores[0].per_family_oracle_witnessed.at(f);
    std::string row = " " + std::to_string(first.witnessed) + " |";
    for (const auto& s : r.scores) {
      const auto& t = all ? s.faults_oracle_witnessed : s.per_family_oracle_witnessed.at(f);
      row += " " + audit::percent(t.missed(), t.witnessed) + " |";
    }
    return row;
  });
  os << "\nWitness mode's verdicts on the same mutants (the strict emulator: NaN-filled outputs, the memory "
        "checker, divergence, warp-major races; what kaudit reported before oracle mode): missed %, and in "
        "brackets how many points of detection it credited the checker with beyond oracle mode.\n\n";
  header("family", "");
  family_rows(os, [&](mutators::Family f, bool all) {
    std::string row;
    for (const auto& s : r.scores) {
      const auto& strict = all ? s.faults_strict : s.per_family_strict.at(f);
      const auto& faithful = all ? s.faults : s.per_family.at(f);
      char over[32] = "";
      if (strict.witnessed)
        std::snprintf(over, sizeof over, " (%+.1f)",
                      100.0 * (double(strict.killed) - double(faithful.killed)) / double(strict.witnessed));
      row += " " + audit::percent(strict.missed(), strict.witnessed) + over + " |";
    }
    return row;
  });
  os << "| false kills (correct set) |";
  for (const auto& s : r.scores) os << " " << s.strict_false_kills.size() << " |";
  os << "\n\nKills by cause, oracle mode (witnessed fault mutants; witness mode's in brackets):\n\n";
  std::set<std::string> causes;
  for (const auto& s : r.scores) {
    for (const auto& [c, n] : s.fault_causes) causes.insert(c);
    for (const auto& [c, n] : s.fault_strict_causes) causes.insert(c);
  }
  os << "| oracle |";
  for (const auto& c : causes) os << " " << c << " |";
  os << "\n|---|";
  for (std::size_t i = 0; i < causes.size(); ++i) os << "---:|";
  os << "\n";
  for (const auto& s : r.scores) {
    os << "| " << s.oracle << " |";
    for (const auto& c : causes) {
      const auto get = [&](const audit::CauseCounts& m) { const auto it = m.find(c); return it == m.end() ? 0 : it->second; };
      os << " " << get(s.fault_causes) << " (" << get(s.fault_strict_causes) << ") |";
    }
    os << "\n";
  }
  return os.str();
}

// The Markdown report: one row per family, a column per oracle (missed % of witnessed).
std::string markdown_table(const audit::AuditResult& r, const std::vector<oracle::OracleSpec>& oracles,
                           const oracle::Comparator& witness) {
  std::ostringstream os;
  const auto counts = r.pipeline.counts();
  if (r.backend == "cpu")
    os << "Missed % of witnessed mutants, per family and oracle, oracle verdicts in oracle mode (each checker's "
          "harness modelled on a GPU: docs/ORACLES.md), witnesses in witness mode (CPU backend; oracle shape presets:";
  else
    os << "Missed % of witnessed mutants, per family and oracle, oracle verdicts in oracle mode (each checker's "
          "harness run on the GPU: docs/ORACLES.md), witnesses from plain runs on the GPU (" << r.backend
       << " backend; oracle shape presets:";
  for (const auto& o : oracles) os << " " << o.name << "=" << o.shape_preset;
  os << "; witness tolerance allclose rtol=atol=" << witness.rtol << ").\n\n";
  os << "| family | generated | distinct | witnessed | unwitnessed |";
  for (const auto& o : oracles) os << " " << o.name << " |";
  os << "\n|---|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < oracles.size(); ++i) os << "---:|";
  os << "\n";
  const auto row = [&](const std::string& name, const mutators::DedupCounts& pc, const audit::Tally& any,
                       auto&& tally_of) {
    os << "| " << name << " | " << pc.generated << " | " << pc.distinct << " | " << any.witnessed << " | "
       << any.unwitnessed << " |";
    for (const auto& s : r.scores) os << " " << pct(tally_of(s)) << " |";
    os << "\n";
  };
  if (r.scores.empty()) return os.str();
  mutators::DedupCounts fault_counts;
  for (auto f : mutators::kAllFamilies) {
    if (f == mutators::Family::RewardHack) continue;
    const auto& c = counts.per_family.at(f);
    fault_counts.generated += c.generated;
    fault_counts.distinct += c.distinct;
    row(std::string(mutators::family_name(f)), c, r.scores[0].per_family.at(f),
        [f](const audit::OracleScore& s) { return s.per_family.at(f); });
  }
  row("**all faults**", fault_counts, r.scores[0].faults, [](const audit::OracleScore& s) { return s.faults; });
  const auto hack = mutators::Family::RewardHack;
  row("reward-hack", counts.per_family.at(hack), r.scores[0].per_family.at(hack),
      [hack](const audit::OracleScore& s) { return s.per_family.at(hack); });
  os << "| false kills (correct set) | | | | |";
  for (const auto& s : r.scores) os << " " << s.false_kills.size() << " |";
  os << "\n\nPipeline: " << counts.total.generated << " generated, " << counts.total.stillborn << " stillborn, "
     << counts.total.duplicate << " duplicate, " << counts.total.equivalent << " equivalent, "
     << counts.total.distinct << " distinct";
  if (counts.total.unknown) os << ", " << counts.total.unknown << " unknown (no NVRTC)";
  std::size_t legal = 0, inputs = 0;
  for (const auto& p : r.pools)
    for (const auto& in : p.inputs) {
      ++inputs;
      legal += in.legal;
    }
  os << "; " << r.mutants.size() << " audited on " << inputs << " pool inputs (" << legal << " legal) over "
     << r.pools.size() << " tasks.\n";
  std::size_t kernels = 0, neutral = 0, dropped = 0;
  for (const auto& p : r.pools)
    for (const auto& m : p.correct_set) {
      kernels += m.kind == "kernel";
      neutral += m.kind == "neutral" && m.admitted;
      dropped += m.kind == "neutral" && !m.admitted;
    }
  os << "Correct set (legality and false kills): " << kernels << " corpus kernels, " << neutral
     << " neutral variants (" << dropped << " more failed the sanity inputs and were dropped: pools.json), "
     << "the float32 reference of each task.\n";
  os << mode_tables(r, oracles);
  return os.str();
}

nlohmann::json summary_json(const audit::AuditResult& r, const std::vector<oracle::OracleSpec>& oracles,
                            const audit::AuditOptions& options, const std::string& corpus_path) {
  const oracle::Comparator& witness = options.witness;
  nlohmann::json j;
  j["backend"] = r.backend;
  j["corpus"] = corpus_path;
  j["witness_tolerance"] = {{"kind", oracle::comparator_name(witness.kind)}, {"rtol", witness.rtol}, {"atol", witness.atol}};
  if (options.cuda)
    j["run_limits"] = {{"wall_seconds", options.timeout_seconds}};
  else
    j["run_limits"] = {{"cpu_seconds", options.timeout_seconds}, {"thread_budget", options.thread_budget}};
  j["pipeline"] = mutators::pipeline_summary_json(r.pipeline);
  j["pipeline"].erase("per_rule");
  std::size_t witnessed = 0;
  for (const auto& m : r.mutants) witnessed += m.scored.witnessed;
  j["audited"] = r.mutants.size();
  j["witnessed"] = witnessed;
  nlohmann::json os = nlohmann::json::array();
  for (std::size_t i = 0; i < r.scores.size(); ++i) {
    nlohmann::json o = audit::to_json(r.scores[i]);
    o["shape_preset"] = oracles[i].shape_preset;
    o["spec"] = oracles[i].file.empty() ? "" : oracles[i].file.filename().string();
    os.push_back(o);
  }
  j["oracles"] = os;
  j["problems"] = r.problems;
  j["runs"] = r.runs;
  j["seconds"] = r.seconds;
  j["stage_seconds"] = r.stage_seconds;
  j["workers"] = {{"started", r.worker_starts}, {"start_seconds", r.worker_start_seconds}, {"runner_seconds", r.runner_seconds}};
  return j;
}

}  // namespace

int audit_command(const std::vector<std::string>& args) {
  std::filesystem::path out_dir = "kaudit-out";
  bool json_out = false;
  std::vector<std::string> oracle_names;
  AuditArgs shared;
  audit::AuditOptions& options = shared.options;
  std::vector<oracle::OracleSpec> oracles;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&](const char* flag) -> std::string {
        if (i + 1 >= args.size()) throw std::invalid_argument(std::string(flag) + " needs a value");
        return args[++i];
      };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--oracle") oracle_names.push_back(value("--oracle"));
      else if (a == "--out") out_dir = value("--out");
      else if (a == "--full-matrix") options.full_matrix = true;
      else if (a == "--no-schemata") options.schemata = false;
      else if (!parse_audit_flag(args, i, shared)) throw std::invalid_argument("unknown argument " + a);
    }
    oracles = resolve_oracles(oracle_names);  // a bad spec stops here, before any work
    options.pool_specs = resolve_oracles({});  // the built-ins' trials are always in the pool
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit audit: %s\n%s", e.what(), kHelp);
    return 2;
  }
  options.oracles = oracles;
  auto loaded = load_for_audit("audit", shared);
  if (!loaded) return 2;
  oracles = options.oracles;  // at --preset, if given
  const std::filesystem::path& root = shared.root;
  const audit::AuditResult r = audit::run_audit(loaded->corpus, options);

  const std::string table = markdown_table(r, oracles, options.witness);
  const nlohmann::json summary = summary_json(r, oracles, options, root.filename().string());
  try {
    std::filesystem::create_directories(out_dir);
    write_file_atomically(out_dir / "report.md", table);
    write_file_atomically(out_dir / "summary.json", summary.dump(2) + "\n");
    write_file_atomically(out_dir / "mutants.jsonl", mutators::mutants_jsonl(r.pipeline));
    std::string matrix;
    for (const auto& m : r.mutants) {
      nlohmann::json j = {{"id", m.scored.id}, {"task", m.scored.task}, {"kernel", m.scored.kernel},
                          {"rule", m.scored.rule}, {"family", mutators::family_name(m.scored.family)},
                          {"ran", m.ran}, {"witnessed", m.scored.witnessed},
                          {"oracle_witnessed", m.scored.oracle_witnessed}, {"killed_by", m.scored.killed_by},
                          {"cause", m.scored.cause}, {"witness_mode_killed_by", m.scored.strict_killed_by},
                          {"witness_mode_cause", m.scored.strict_cause}};
      nlohmann::json outcomes = nlohmann::json::array();
      for (auto o : m.row) outcomes.push_back(audit::outcome_name(o));
      j["outcomes"] = outcomes;
      if (m.witness >= 0) {
        j["witness"] = m.witness;
        j["witness_outcome"] = audit::outcome_name(m.witness_outcome);
      }
      if (m.oracle_witness >= 0) {
        j["oracle_witness"] = m.oracle_witness;
        j["oracle_witness_cause"] = m.oracle_witness_cause;
      }
      if (!m.note.empty()) j["note"] = m.note;
      matrix += j.dump() + "\n";
    }
    write_file_atomically(out_dir / "kill-matrix.jsonl", matrix);
    nlohmann::json pools = nlohmann::json::array();
    for (const auto& p : r.pools) {
      nlohmann::json inputs = nlohmann::json::array();
      for (const auto& in : p.inputs)
        inputs.push_back({{"recipe", in.recipe}, {"used_by", in.used_by}, {"elements", in.elements},
                          {"usable", in.usable}, {"legal", in.legal}, {"note", in.note}});
      nlohmann::json members = nlohmann::json::array();
      for (const auto& m : p.correct_set)
        members.push_back({{"id", m.id}, {"kind", m.kind}, {"admitted", m.admitted}, {"note", m.note}});
      pools.push_back({{"task", p.task}, {"inputs", inputs}, {"correct_set", members}});
    }
    write_file_atomically(out_dir / "pools.json", pools.dump(1) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 1;
  }
  if (json_out) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << table;
    std::printf("\n%zu kernel runs, %.0f s (%zu kernels from the audit cache). Reports in %s/\n", r.runs, r.seconds,
                r.cached_kernels, out_dir.c_str());
  }
  for (const auto& p : r.problems) std::fprintf(stderr, "skipped: %s\n", p.c_str());
  return r.problems.empty() && loaded->diagnostics.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
