// A rule test case: a small kernel holding places where the rule must fire and places where it
// must not, and the exact sites (original text -> replacement) expected, in source order.
// One file per family (rules/<family>_cases.cpp); rules_test.cpp runs them all and checks that
// every catalog rule has exactly one case.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kaudit::mutators::testing_cases {

struct Expect {
  std::string original;
  std::string replacement;
  bool operator==(const Expect&) const = default;
};

inline void PrintTo(const Expect& e, std::ostream* os) {
  *os << "[" << e.original << "] -> [" << e.replacement << "]";
}

struct RuleCase {
  std::string rule;
  std::string code;
  std::vector<Expect> sites;
};

inline void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.rule; }

// A host wrapper prefix (torch and CUDA runtime includes), used by the launch-scope cases.
inline const char* const kHostPrefix =
    "#include <torch/extension.h>\n#include <cuda_runtime.h>\n";

std::vector<RuleCase> arithmetic_cases();
std::vector<RuleCase> indexing_cases();
std::vector<RuleCase> semantic_cases();
std::vector<RuleCase> boundary_cases();
std::vector<RuleCase> synchronization_cases();
std::vector<RuleCase> precision_cases();
std::vector<RuleCase> reward_hack_cases();

}  // namespace kaudit::mutators::testing_cases
