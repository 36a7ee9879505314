#include "suites/cover.h"

#include <set>
#include <stdexcept>

#include "common/sha256.h"

namespace kaudit::cover {

CoverResult greedy_cover(const KillMatrix& m, std::size_t budget) {
  const std::size_t n = m.mutants.size();
  if (m.family.size() != n || m.cost.size() != m.inputs())
    throw std::invalid_argument("kill matrix: family per mutant and cost per input expected");
  for (const auto& col : m.kills)
    if (col.size() != n) throw std::invalid_argument("kill matrix: every input needs one cell per mutant");

  CoverResult r;
  std::vector<bool> covered(n, false);
  for (std::size_t j = 0; j < n; ++j)
    for (const auto& col : m.kills)
      if (col[j]) {
        ++r.coverable;
        break;
      }
  std::vector<bool> taken(m.inputs(), false);
  std::size_t total = 0;
  while (budget == 0 || r.chosen.size() < budget) {
    std::size_t best = m.inputs(), best_new = 0, best_families = 0;
    for (std::size_t i = 0; i < m.inputs(); ++i) {
      if (taken[i]) continue;
      std::size_t fresh = 0;
      std::set<int> families;
      for (std::size_t j = 0; j < n; ++j)
        if (m.kills[i][j] && !covered[j]) {
          ++fresh;
          families.insert(m.family[j]);
        }
      if (fresh == 0) continue;
      const bool better = best == m.inputs() || fresh > best_new ||
                          (fresh == best_new && families.size() > best_families) ||
                          (fresh == best_new && families.size() == best_families && m.cost[i] < m.cost[best]);
      if (better) {  // strict comparisons: the earlier column wins a complete tie
        best = i;
        best_new = fresh;
        best_families = families.size();
      }
    }
    if (best == m.inputs()) break;  // nothing new to kill
    taken[best] = true;
    for (std::size_t j = 0; j < n; ++j)
      if (m.kills[best][j]) covered[j] = true;
    total += best_new;
    r.chosen.push_back(best);
    r.covered_after.push_back(total);
  }
  return r;
}

std::size_t killed_by(const KillMatrix& m, const std::vector<std::size_t>& inputs,
                      const std::vector<std::size_t>& subset) {
  std::size_t killed = 0;
  for (std::size_t j : subset)
    for (std::size_t i : inputs)
      if (m.kills.at(i).at(j)) {
        ++killed;
        break;
      }
  return killed;
}

bool in_selection_half(const std::string& mutant_id) {
  kaudit::Sha256 h;
  h.update("kaudit-split-v1:" + mutant_id);
  const std::string hex = h.hex_digest();
  const int first_byte = std::stoi(hex.substr(0, 2), nullptr, 16);
  return (first_byte & 1) == 0;
}

}  // namespace kaudit::cover
