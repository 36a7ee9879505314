// The mutation engine's entry points in a kaudit built without Clang LibTooling
// (KAUDIT_WITH_CLANG=OFF, e.g. on a GPU machine without Clang 19): every way to find sites or list
// rules throws ClangUnavailable, which the CLI reports in one line (tools/kaudit_main.cpp). What
// is built on these (generate_mutants, neutral_variants, find_rule, rules_json...) throws the
// same; family names, mutant ids and JSON records (core.cpp, mutants.cpp) still work.
#include "mutators/mutators.h"

namespace kaudit::mutators {

bool clang_available() { return false; }

const std::vector<RuleInfo>& rule_catalog() { throw ClangUnavailable(); }

const std::vector<RuleInfo>& neutral_rule_catalog() { throw ClangUnavailable(); }

SiteResult find_sites(const KernelSourceInfo&, const SiteOptions&) { throw ClangUnavailable(); }

}  // namespace kaudit::mutators
