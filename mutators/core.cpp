// The parts of the public API (mutators.h) that need no Clang: family and scope names, the text
// of diagnostics, and the catalog look-ups and listings built on rule_catalog(). They are built
// with or without Clang LibTooling (KAUDIT_WITH_CLANG); the engine behind find_sites() and
// rule_catalog() is catalog.cpp, sites.cpp and rules/ with Clang, no_clang.cpp without.
#include <algorithm>
#include <map>
#include <sstream>

#include "mutators/mutators.h"

namespace kaudit::mutators {

ClangUnavailable::ClangUnavailable()
    : std::runtime_error(
          "this kaudit was built without Clang LibTooling (see KAUDIT_WITH_CLANG) and cannot generate "
          "mutants; run this command where kaudit is built with Clang 19") {}

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

std::string ParseDiagnostic::to_string() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  out += ": " + severity + ": " + message;
  return out;
}

const RuleInfo* find_rule(std::string_view id) {
  for (const RuleInfo& r : rule_catalog()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

bool rule_keeps_state(std::string_view id) { return id == "hack-cache-by-input-address"; }

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
  std::map<Family, size_t> per_family;
  for (const RuleInfo& r : rule_catalog()) {
    os << pad(r.id, id_w) << "  " << pad(family_name(r.family), fam_w) << "  "
       << pad(scope_names(r.scopes), scope_w) << "  " << r.description << '\n';
    ++per_family[r.family];
  }
  os << '\n' << rule_catalog().size() << " rules:";
  bool first = true;
  for (Family f : kAllFamilies) {
    os << (first ? " " : ", ") << family_name(f) << ' ' << per_family[f];
    first = false;
  }
  os << '\n';
  return os.str();
}

}  // namespace kaudit::mutators
