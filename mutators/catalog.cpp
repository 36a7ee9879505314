// The rule catalog: the union of the family lists, validated and sorted once.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "mutators/rule.h"

namespace kaudit::mutators {

namespace detail {
namespace {

bool is_kebab_case(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-') return false;
  char prev = 0;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && prev == '-')) return false;
    prev = c;
  }
  return true;
}

size_t family_index(Family f) {
  return static_cast<size_t>(std::find(kAllFamilies.begin(), kAllFamilies.end(), f) -
                             kAllFamilies.begin());
}

std::vector<RuleDef> build_catalog() {
  std::vector<RuleDef> all;
  for (auto* list : {&arithmetic_rules, &indexing_rules, &semantic_rules, &boundary_rules,
                     &synchronization_rules, &precision_rules, &reward_hack_rules}) {
    std::vector<RuleDef> rules = (*list)();
    all.insert(all.end(), rules.begin(), rules.end());
  }
  std::set<std::string_view> seen;
  for (const RuleDef& r : all) {
    if (!is_kebab_case(r.id)) {
      throw std::logic_error(std::string("mutator rule id is not kebab-case: ") + r.id);
    }
    if (!seen.insert(r.id).second) {
      throw std::logic_error(std::string("duplicate mutator rule id: ") + r.id);
    }
    if (r.scopes == 0 || r.matcher == nullptr || r.produce == nullptr) {
      throw std::logic_error(std::string("incomplete mutator rule: ") + r.id);
    }
  }
  std::sort(all.begin(), all.end(), [](const RuleDef& a, const RuleDef& b) {
    const size_t fa = family_index(a.family), fb = family_index(b.family);
    if (fa != fb) return fa < fb;
    return std::string_view(a.id) < std::string_view(b.id);
  });
  return all;
}

}  // namespace

const std::vector<RuleDef>& all_rule_defs() {
  static const std::vector<RuleDef> catalog = build_catalog();
  return catalog;
}

const std::vector<RuleDef>& neutral_rule_defs() {
  static const std::vector<RuleDef> rules = [] {
    std::vector<RuleDef> out = neutral_rules();
    std::set<std::string_view> seen;
    for (const RuleDef& r : out) {
      if (!is_kebab_case(r.id) || r.family != Family::Neutral || !seen.insert(r.id).second)
        throw std::logic_error(std::string("bad neutral rule: ") + r.id);
      for (const RuleDef& c : all_rule_defs())
        if (std::string_view(c.id) == r.id) throw std::logic_error(std::string("neutral rule id is also a mutator: ") + r.id);
    }
    std::sort(out.begin(), out.end(),
              [](const RuleDef& a, const RuleDef& b) { return std::string_view(a.id) < std::string_view(b.id); });
    return out;
  }();
  return rules;
}

}  // namespace detail

const std::vector<RuleInfo>& rule_catalog() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> out;
    for (const detail::RuleDef& r : detail::all_rule_defs()) {
      out.push_back(RuleInfo{r.id, r.family, r.description, r.scopes});
    }
    return out;
  }();
  return infos;
}

const std::vector<RuleInfo>& neutral_rule_catalog() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> out;
    for (const detail::RuleDef& r : detail::neutral_rule_defs())
      out.push_back(RuleInfo{r.id, r.family, r.description, r.scopes});
    return out;
  }();
  return infos;
}

}  // namespace kaudit::mutators
