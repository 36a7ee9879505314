// kaudit::cover -- minimal hidden-input suites from a kill matrix (`kaudit cover`).
//
// Pure functions on plain data, so the tie-breaks can be tested on hand-made matrices:
//
//   KillMatrix m;                  // one task: mutants (rows) x legal inputs (columns)
//   CoverResult r = greedy_cover(m, budget);
//
// Greedy set cover: repeatedly take the input that kills the most mutants not yet killed. Ties go
// to the input that newly kills more families (a suite should reach different faults, not many of
// one kind), then to the cheaper input (fewer elements), then to the earlier column (pool order).
// The result is deterministic. Greedy is within a factor ln(n) + 1 of the optimum; it is optimal
// when the best choice at every step is unique in the sense above (the tests use such matrices).
//
// Held-out evaluation splits a task's witnessed mutants in two halves by a hash of the mutant id
// (in_selection_half): a suite is chosen on one half and scored on the other, so it is measured on
// faults it was not chosen for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kaudit::cover {

struct KillMatrix {
  std::vector<std::string> mutants;        // ids
  std::vector<int> family;                 // per mutant: any small integer (mutators::Family)
  std::vector<std::int64_t> cost;          // per input: elements (cheaper wins ties)
  // kills[input][mutant]: the input shows the mutant wrong (any failure under the witness
  // comparator: wrong output, crash, timeout, out-of-bounds, ...).
  std::vector<std::vector<bool>> kills;
  std::size_t inputs() const { return kills.size(); }
};

struct CoverResult {
  std::vector<std::size_t> chosen;       // columns, in the order greedy took them
  std::vector<std::size_t> covered_after;  // mutants killed after each choice (cumulative)
  std::size_t coverable = 0;             // mutants at least one input kills
  bool complete() const { return (covered_after.empty() ? 0 : covered_after.back()) == coverable; }
};

// At most `budget` inputs (0: until every coverable mutant is killed). Inputs that kill nothing new
// are never taken. Throws std::invalid_argument if the matrix is ragged.
CoverResult greedy_cover(const KillMatrix& m, std::size_t budget = 0);

// Mutants (of `subset`, indices into m.mutants) that at least one of `inputs` kills.
std::size_t killed_by(const KillMatrix& m, const std::vector<std::size_t>& inputs,
                      const std::vector<std::size_t>& subset);

// True for the selection half, false for the held-out half: the low bit of the first byte of
// SHA-256("kaudit-split-v1:" + id). The same on every machine and run.
bool in_selection_half(const std::string& mutant_id);

}  // namespace kaudit::cover
