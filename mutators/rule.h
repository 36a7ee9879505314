// Internal: the rule framework, in the style of clang-tidy checks.
//
// A rule is one declarative entry (RuleDef) in a family file rules/<family>.cpp:
//
//   {"arith-add-to-sub", Family::Arithmetic, kScopeDevice | kScopeLaunch,
//    "a + b -> a - b (arithmetic operands)",
//    [] { return match(binaryOperator(hasOperatorName("+")).bind("site")); },
//    [](const MatchContext& m) -> std::optional<Edit> { ... }},
//
// - `matcher` builds a Clang AST matcher. It must bind the node being rewritten (or its closest
//   enclosing node) as "site"; everything else it binds is for the producer.
// - `produce` turns one match into at most one Edit (a contiguous main-file rewrite), or nullopt
//   to decline (e.g. the code is in a macro body or the operand types do not fit).
// - `scopes` says where the edit may land (kScopeDevice/kScopeLaunch/kScopeHost, mutators.h); the
//   site finder drops edits outside them, so matchers stay simple.
//
// The engine (sites.cpp) runs all rules in one MatchFinder pass over the AST (template
// instantiations included: identical edits from several instantiations collapse into one site),
// keeps main-file edits only, and orders sites by (begin offset, rule id, end, replacement).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <clang/AST/ExprCXX.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>

#include "mutators/ast_util.h"
#include "mutators/mutators.h"

namespace kaudit::mutators::detail {

using DynMatcher = clang::ast_matchers::internal::DynTypedMatcher;
using MatcherFactory = DynMatcher (*)();
using Producer = std::optional<Edit> (*)(const MatchContext&);

struct RuleDef {
  const char* id;
  Family family;
  unsigned scopes;
  const char* description;
  MatcherFactory matcher;
  Producer produce;
};

// Converts any typed matcher to the dynamic form the engine registers.
template <typename M>
DynMatcher match(const M& matcher) {
  return clang::ast_matchers::internal::DynTypedMatcher(matcher);
}

// Matchers that ASTMatchers does not ship.
// `threadIdx.x` & co. are MSPropertyRefExpr nodes (Clang's __declspec(property) builtins).
extern const clang::ast_matchers::internal::VariadicDynCastAllOfMatcher<clang::Stmt,
                                                                        clang::MSPropertyRefExpr>
    msPropertyRefExpr;

// Shared matcher fragments.
// Expression whose (desugared) type is float or double.
inline auto floating_expr() {
  using namespace clang::ast_matchers;
  return expr(hasType(qualType(hasCanonicalType(realFloatingPointType()))));
}
// Expression of an integer type (bool and enums excluded).
inline auto integer_expr() {
  using namespace clang::ast_matchers;
  return expr(hasType(qualType(hasCanonicalType(isInteger()))),
              unless(hasType(qualType(hasCanonicalType(booleanType())))));
}
// Call to a function named `name` (resolved or, in a template pattern, unresolved).
inline auto call_to(llvm::StringRef name) {
  using namespace clang::ast_matchers;
  return callExpr(callee(functionDecl(hasName(name))));
}

// The family lists, one per rules/<family>.cpp.
std::vector<RuleDef> arithmetic_rules();
std::vector<RuleDef> indexing_rules();
std::vector<RuleDef> semantic_rules();
std::vector<RuleDef> boundary_rules();
std::vector<RuleDef> synchronization_rules();
std::vector<RuleDef> precision_rules();
std::vector<RuleDef> reward_hack_rules();
std::vector<RuleDef> neutral_rules();  // not in the catalog (rules/neutral.cpp)
// Neutral rules sorted by id.
const std::vector<RuleDef>& neutral_rule_defs();

// All rules in catalog order (family order, then id); checked once for unique kebab-case ids.
const std::vector<RuleDef>& all_rule_defs();

// Helpers used by several families.
// Non-dependent arithmetic (integer or floating) type.
bool is_arithmetic(const clang::Expr* e);
bool is_integer(const clang::Expr* e);   // integer, not bool
bool is_floating(const clang::Expr* e);  // float or double (or half-precision builtins)
bool is_float32(const clang::Expr* e);   // exactly float
bool is_pointer(const clang::Expr* e);
// Rewrites the operator token of `op` (which must be spelled op->getOpcodeStr()) to `to`.
std::optional<Edit> swap_operator(const MatchContext& m, const clang::BinaryOperator* op,
                                  std::string to);
// `text` of a bound expression minus one: literals are respelled (7 -> 6), anything else gets
// " - 1" (parenthesised if needed). nullopt for a literal 0 or unreadable code.
std::optional<std::string> minus_one(const MatchContext& m, const clang::Expr* e);
// dim3-aware rewrite of a launch configuration argument: `op` is applied to the scalar, or to the
// x component of a dim3 (`dim3((g).x / 2, (g).y, (g).z)`).
std::optional<Edit> rewrite_config_x(const MatchContext& m, const clang::Expr* arg,
                                     const std::string& op_suffix);
// The written launch-configuration argument `index` (0 grid, 1 block, 2 shared memory, 3 stream)
// of a <<<...>>> launch, with implicit conversions stripped; null when defaulted.
const clang::Expr* launch_config_arg(const clang::CUDAKernelCallExpr* launch, unsigned index);
// True if the expression's type is the dim3 record.
bool is_dim3(const clang::Expr* e);
// True if `var` is a local accumulator: assigned somewhere in `body` by `var op= ...` or by
// `var = <expression that reads var>`.
bool is_accumulator(const clang::VarDecl* var, const clang::Stmt* body);
// Renames the callee of a direct call (`expf(x)` -> `__expf(x)`); nullopt for indirect calls.
std::optional<Edit> rename_called_function(const MatchContext& m, const clang::CallExpr* call,
                                  const std::string& to);
// For a `threadIdx.x`-style MSPropertyRefExpr: the builtin's name ("threadIdx") and the property
// ("x"); nullopt for anything else.
std::optional<std::pair<std::string, std::string>> builtin_member(
    const clang::MSPropertyRefExpr* p);
// The `threadIdx.x`-style property access that `e` is, through parentheses, casts and the
// PseudoObjectExpr that wraps a property read in an rvalue context; null for anything else.
const clang::MSPropertyRefExpr* builtin_property(const clang::Expr* e);
// The `threadIdx` DeclRefExpr of `threadIdx.x` (the base sits in an OpaqueValueExpr).
const clang::DeclRefExpr* builtin_base(const clang::MSPropertyRefExpr* p);
// True if `e` is `threadIdx.<axis>` (through casts), or a local whose initialiser is one
// (`const int tid = threadIdx.x;`).
bool is_thread_index(const clang::Expr* e);
// True if `s` reads threadIdx, directly or through the initialisers of the locals it reads
// (a few levels deep): the value may differ between the threads of a block.
bool depends_on_thread_index(const clang::Stmt* s);
// Lane/warp split of a thread index: `tid % 32`, `tid % warpSize`, `tid / 32`, `tid / warpSize`,
// `tid & 31`, `tid >> 5` (tid as in is_thread_index).
bool is_lane_warp_split(const clang::BinaryOperator* op);
// True for torch::Tensor (and references to it).
bool is_tensor_type(clang::QualType t);

}  // namespace kaudit::mutators::detail
