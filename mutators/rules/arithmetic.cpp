// Arithmetic family: operator swaps, off-by-one constants, negated stores.
// (Reference study: `+`->`-`, `*`->`/`, off-by-one constant, negate store.)
#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

// a OP b with operand types where the swapped operator still compiles.
bool additive_ok(const BinaryOperator* op) {
  const Expr* l = op->getLHS();
  const Expr* r = op->getRHS();
  if (is_arithmetic(l) && is_arithmetic(r)) return true;
  return is_pointer(l) && is_integer(r);  // p + i <-> p - i
}

bool multiplicative_ok(const BinaryOperator* op) {
  return is_arithmetic(op->getLHS()) && is_arithmetic(op->getRHS());
}

// Integer literals spelled in the kernel, below the mask/sentinel range (0x7fffffff and up are
// lane masks and "infinite" indices; the synchronization family owns masks).
std::optional<std::pair<std::string, uint64_t>> small_int_literal(const MatchContext& m) {
  const auto* lit = m.node<IntegerLiteral>("site");
  if (lit == nullptr) return std::nullopt;
  const auto t = m.text(lit);
  if (!t || !is_number_token(*t)) return std::nullopt;
  if (lit->getValue().getActiveBits() > 31) return std::nullopt;
  const uint64_t v = lit->getValue().getLimitedValue();
  if (v >= 0x7fffffffu) return std::nullopt;
  return std::make_pair(*t, v);
}

// An lvalue that is an element of memory (a[i], *p, a[i].f), not a plain local.
auto memory_lvalue() {
  return ignoringParenImpCasts(
      anyOf(arraySubscriptExpr(), unaryOperator(hasOperatorName("*")),
            memberExpr(hasObjectExpression(ignoringParenImpCasts(arraySubscriptExpr())))));
}

}  // namespace

std::vector<RuleDef> arithmetic_rules() {
  return {
      {"arith-add-to-sub", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a + b -> a - b (arithmetic operands, or pointer + integer)",
       [] { return match(binaryOperator(hasOperatorName("+")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!additive_ok(op)) return std::nullopt;
         return swap_operator(m, op, "-");
       }},
      {"arith-sub-to-add", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a - b -> a + b (arithmetic operands, or pointer - integer)",
       [] { return match(binaryOperator(hasOperatorName("-")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!additive_ok(op)) return std::nullopt;
         return swap_operator(m, op, "+");
       }},
      {"arith-mul-to-div", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a * b -> a / b (arithmetic operands)",
       [] { return match(binaryOperator(hasOperatorName("*")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!multiplicative_ok(op)) return std::nullopt;
         return swap_operator(m, op, "/");
       }},
      {"arith-div-to-mul", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a / b -> a * b (arithmetic operands)",
       [] { return match(binaryOperator(hasOperatorName("/")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!multiplicative_ok(op)) return std::nullopt;
         return swap_operator(m, op, "*");
       }},
      {"arith-compound-swap", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a += b <-> a -= b, a *= b <-> a /= b (not in a for-loop increment)",
       [] {
         return match(binaryOperator(hasAnyOperatorName("+=", "-=", "*=", "/="),
                                     unless(hasParent(forStmt())))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_arithmetic(op->getRHS()) ||
             !(is_arithmetic(op->getLHS()) || is_pointer(op->getLHS()))) {
           return std::nullopt;
         }
         switch (op->getOpcode()) {
           case BO_AddAssign: return swap_operator(m, op, "-=");
           case BO_SubAssign: return swap_operator(m, op, "+=");
           case BO_MulAssign:
             return is_pointer(op->getLHS()) ? std::nullopt : swap_operator(m, op, "/=");
           case BO_DivAssign:
             return is_pointer(op->getLHS()) ? std::nullopt : swap_operator(m, op, "*=");
           default: return std::nullopt;
         }
       }},
      {"arith-int-const-inc", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "integer literal n -> n + 1 (literals below 0x7fffffff)",
       [] { return match(integerLiteral().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto lit = small_int_literal(m);
         if (!lit) return std::nullopt;
         const auto t = respell_int_literal(lit->first, lit->second + 1);
         if (!t) return std::nullopt;
         return m.replace(m.node<IntegerLiteral>("site"), *t);
       }},
      {"arith-int-const-dec", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "integer literal n -> n - 1 (n >= 1, below 0x7fffffff)",
       [] { return match(integerLiteral().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto lit = small_int_literal(m);
         if (!lit || lit->second == 0) return std::nullopt;
         const auto t = respell_int_literal(lit->first, lit->second - 1);
         if (!t) return std::nullopt;
         return m.replace(m.node<IntegerLiteral>("site"), *t);
       }},
      {"arith-negate-store", Family::Arithmetic, kScopeDevice,
       "store of a floating value to memory: a[i] = v -> a[i] = -(v)",
       [] {
         return match(binaryOperator(hasOperatorName("="), hasLHS(memory_lvalue()),
                                     hasLHS(floating_expr()),
                                     unless(hasRHS(ignoringParenImpCasts(
                                         anyOf(floatLiteral(), integerLiteral())))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_floating(op->getLHS())) return std::nullopt;
         const auto rhs = m.text(op->getRHS());
         if (!rhs) return std::nullopt;
         return m.replace(op->getRHS(), "-(" + *rhs + ")");
       }},
      {"arith-swap-sub-operands", Family::Arithmetic, kScopeDevice,
       "a - b -> b - a (floating operands)",
       [] {
         return match(binaryOperator(hasOperatorName("-"), hasLHS(floating_expr()),
                                     hasRHS(floating_expr()))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_floating(op->getLHS()) || !is_floating(op->getRHS())) return std::nullopt;
         const auto l = m.operand_text(op->getLHS());
         const auto r = m.text(op->getRHS());
         if (!l || !r || *l == *r) return std::nullopt;
         return m.replace(op, *r + " - " + *l);
       }},
  };
}

}  // namespace kaudit::mutators::detail
