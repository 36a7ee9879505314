// The rule catalog: the union of the family lists, validated and sorted once.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "mutators/rule.h"

namespace kaudit::mutators {

std::string_view family_name(Family family) {
  switch (family) {
    case Family::Arithmetic: return "arithmetic";
    case Family::Indexing: return "indexing";
    case Family::Semantic: return "semantic";
    case Family::Boundary: return "boundary";
    case Family::Synchronization: return "synchronization";
    case Family::Precision: return "precision";
    case Family::RewardHack: return "reward-hack";
    case Family::Neutral: return "neutral";
  }
  return "unknown";
}

std::optional<Family> family_from_name(std::string_view name) {
  for (Family f : kAllFamilies) {
    if (family_name(f) == name) return f;
  }
  return std::nullopt;
}

std::string scope_names(unsigned scopes) {
  std::string out;
  const auto add = [&](unsigned bit, const char* name) {
    if ((scopes & bit) == 0) return;
    if (!out.empty()) out += '|';
    out += name;
  };
  add(kScopeDevice, "device");
  add(kScopeLaunch, "launch");
  add(kScopeHost, "host");
  return out;
}

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

const RuleInfo* find_rule(std::string_view id) {
  for (const RuleInfo& r : rule_catalog()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

nlohmann::json rules_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const RuleInfo& r : rule_catalog()) {
    out.push_back({{"id", r.id},
                   {"family", std::string(family_name(r.family))},
                   {"description", r.description},
                   {"scope", scope_names(r.scopes)}});
  }
  return out;
}

std::string rules_table() {
  size_t id_w = 2, fam_w = 6, scope_w = 5;
  for (const RuleInfo& r : rule_catalog()) {
    id_w = std::max(id_w, r.id.size());
    fam_w = std::max(fam_w, family_name(r.family).size());
    scope_w = std::max(scope_w, scope_names(r.scopes).size());
  }
  std::ostringstream os;
  const auto pad = [](std::string_view s, size_t w) {
    std::string out(s);
    out.resize(std::max(w, s.size()), ' ');
    return out;
  };
  os << pad("ID", id_w) << "  " << pad("FAMILY", fam_w) << "  " << pad("SCOPE", scope_w)
     << "  DESCRIPTION\n";
  std::map<size_t, size_t> per_family;
  for (const RuleInfo& r : rule_catalog()) {
    os << pad(r.id, id_w) << "  " << pad(family_name(r.family), fam_w) << "  "
       << pad(scope_names(r.scopes), scope_w) << "  " << r.description << '\n';
    ++per_family[detail::family_index(r.family)];
  }
  os << '\n' << rule_catalog().size() << " rules:";
  bool first = true;
  for (Family f : kAllFamilies) {
    os << (first ? " " : ", ") << family_name(f) << ' ' << per_family[detail::family_index(f)];
    first = false;
  }
  os << '\n';
  return os.str();
}

}  // namespace kaudit::mutators
