// kaudit::audit -- scoring oracles on the kill matrix (pure functions, no kernel runs).
//
// Every audited mutant carries: its family, rule and task; whether it is witnessed (some legal
// input makes it fail, by the witness comparator against the float64 reference); and, per oracle,
// whether that oracle rejects it. An oracle's detection rate counts witnessed mutants only:
//   detection = killed-and-witnessed / witnessed,   missed = witnessed - killed.
// Unwitnessed mutants (no legal input shows a fault: possibly equivalent on the CPU backend, or a
// fault the pool cannot reach) never enter a denominator; they are counted on their own.
// The six fault families are summed into "all faults"; the reward-hack family is reported on its
// own line and not in that sum (a planted hack is not a bug, and it would swamp the faults).
//
// Two modes (docs/ORACLES.md, Oracle mode). A mutant's witness comes from witness mode (strict:
// poisoned memory, the memory checker, divergence detection), which proves the fault is real.
// An oracle's verdict comes from oracle mode, a model of the checker's harness on a GPU: that is
// the detection rate reported. Kept next to it: the verdicts witness mode would give (what kaudit
// reported before oracle mode, and how far that overstated detection), and a second denominator,
// the mutants also witnessed in oracle mode (faults that show on a GPU at all: the reference
// study counted only those), with the miss rate over it. Kills are counted by cause.
//
// A checker that rejects a kernel's own original (a false kill of that very kernel, not of a
// neutral variant) cannot tell that kernel's mutants from it: rejecting them shows nothing, so
// such kills count as misses, per mode (its oracle-mode false kills for its verdicts, its witness-
// mode ones for witness mode's), and are counted apart (`kills_of_rejected_originals`). This is
// the mutation-testing rule that a mutant is killed when the verdict differs from the original's.
// Without it a gate that rejects a whole kernel (a hybrid under "no library compute"), or a
// tolerance below a half kernel's rounding, would "detect" every one of its mutants.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutators/mutators.h"

namespace kaudit::audit {

struct ScoredMutant {
  std::string id;
  std::string task;
  std::string kernel;
  std::string rule;
  mutators::Family family = mutators::Family::Arithmetic;
  bool witnessed = false;                 // witness mode found a legal input on which it fails
  bool oracle_witnessed = false;          // and so did oracle mode (a fault that shows on a GPU)
  std::map<std::string, bool> killed_by;  // oracle name -> rejects this mutant (oracle mode)
  std::map<std::string, std::string> cause;  // oracle name -> why, when killed (oracle mode)
  std::map<std::string, std::string> trial;  // oracle name -> the trial that killed it (oracle mode;
                                             // absent in verdicts cached before it was kept)
  std::map<std::string, bool> strict_killed_by;         // the same in witness mode
  std::map<std::string, std::string> strict_cause;
};

struct Tally {
  std::size_t witnessed = 0;
  std::size_t killed = 0;
  std::size_t unwitnessed = 0;  // audited mutants without a witness (not in the rates)
  std::size_t missed() const { return witnessed - killed; }
  // killed / witnessed; 0 when nothing is witnessed.
  double detection() const { return witnessed ? double(killed) / double(witnessed) : 0.0; }
  double missed_fraction() const { return witnessed ? double(missed()) / double(witnessed) : 0.0; }
};

// 100 * part / whole with one decimal ("12.5"), or "-" when whole is 0: the tables' format.
std::string percent(std::size_t part, std::size_t whole);

struct FalseKill {
  std::string oracle;
  std::string member;  // a corpus kernel id, or "reference-fp32"
  std::string task;
  std::string trial;   // the oracle trial that rejected it
  std::string detail;  // the comparator's or the run's message
};

// Kills by cause: "wrong-output", "nan-inf", "crash", "timeout", "launch-error", "exception", a
// spec gate's "no-launch", "library-compute" and "unwritten-output" (oracle/spec.h), and in
// witness mode "out-of-bounds" and "barrier-divergence" (oracle/harness.h). Any other string a
// verdict carries is counted under its own name.
using CauseCounts = std::map<std::string, std::size_t>;

struct OracleScore {
  std::string oracle;
  // Oracle-mode verdicts over the mutants witnessed in witness mode: the reported rates.
  std::map<mutators::Family, Tally> per_family;  // all seven families, even when empty
  Tally faults;                                  // the six fault families together
  std::map<std::string, Tally> per_rule;
  std::map<std::string, Tally> per_task;         // fault families only
  // Oracle-mode verdicts over the mutants also witnessed in oracle mode (`unwitnessed`: those
  // witnessed in witness mode only).
  std::map<mutators::Family, Tally> per_family_oracle_witnessed;
  Tally faults_oracle_witnessed;
  // Witness-mode verdicts over the witness-mode denominators (what a strict emulator would say).
  std::map<mutators::Family, Tally> per_family_strict;
  Tally faults_strict;
  std::map<mutators::Family, CauseCounts> causes, strict_causes;  // kills of witnessed mutants
  CauseCounts fault_causes, fault_strict_causes;                  // the six fault families
  // Witnessed mutants it rejects whose original kernel it rejects too, counted as missed above.
  std::size_t kills_of_rejected_originals = 0, strict_kills_of_rejected_originals = 0;
  std::vector<FalseKill> false_kills;         // oracle mode
  std::vector<FalseKill> strict_false_kills;  // witness mode
};

// One score per oracle, in the order given. A mutant without an entry for an oracle counts as not
// killed by it.
std::vector<OracleScore> score_oracles(const std::vector<ScoredMutant>& mutants,
                                       const std::vector<std::string>& oracles,
                                       const std::vector<FalseKill>& false_kills,
                                       const std::vector<FalseKill>& strict_false_kills = {});

nlohmann::json to_json(const Tally& t);  // {"witnessed","killed","missed","unwitnessed","detection"}
nlohmann::json to_json(const OracleScore& s);

}  // namespace kaudit::audit
