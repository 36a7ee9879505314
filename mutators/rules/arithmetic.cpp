// Arithmetic family: operator swaps, off-by-one constants, negated stores, dropped factors and
// signs, wrong constants, and formula terms that lost their square, root or reciprocal.
// (Reference study: `+`->`-`, `*`->`/`, off-by-one constant, negate store.)
#include <cmath>
#include <cstdio>

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


// Both operands floating: the formula rules below leave integer (index) arithmetic to the
// indexing family.
bool floating_operands(const BinaryOperator* op) {
  return is_floating(op->getLHS()) && is_floating(op->getRHS());
}

bool is_literal_one(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* f = dyn_cast<FloatingLiteral>(e)) return f->getValueAsApproximateDouble() == 1.0;
  if (const auto* i = dyn_cast<IntegerLiteral>(e)) return i->getValue() == 1;
  return false;
}

// A floating literal that is a formula constant (0.5f, 1.0f, 0.7071f, 1e-2): not zero, not an
// epsilon (<= 1e-3: the reward-hack family shrinks those) and not a +-FLT_MAX-style sentinel.
const FloatingLiteral* formula_constant(const MatchContext& m) {
  const auto* lit = m.node<FloatingLiteral>("site");
  if (lit == nullptr) return nullptr;
  const double v = std::fabs(lit->getValueAsApproximateDouble());
  if (!(v > 1e-3 && v < 1e30)) return nullptr;
  const auto t = m.text(lit);
  if (!t || !is_number_token(*t)) return nullptr;
  return lit;
}

// The literal respelled with value * factor, keeping its suffix; float literals get 9
// significant digits, double literals 17 (both round-trip).
std::optional<Edit> scale_constant(const MatchContext& m, double factor) {
  const FloatingLiteral* lit = formula_constant(m);
  if (lit == nullptr) return std::nullopt;
  const bool is_float = lit->getType()->isSpecificBuiltinType(BuiltinType::Float);
  char digits[64];
  std::snprintf(digits, sizeof digits, is_float ? "%.9g" : "%.17g",
                lit->getValueAsApproximateDouble() * factor);
  std::string d = digits;
  if (d.find_first_of(".e") == std::string::npos) d += ".0";
  return m.replace(lit, respell_float_literal(*m.text(lit), d));
}

// The two operands of `x * x` spelled identically (whitespace aside).
bool is_square(const MatchContext& m, const BinaryOperator* op) {
  const auto l = m.text(op->getLHS());
  const auto r = m.text(op->getRHS());
  return l && r && *l == *r;
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
      {"arith-mul-to-add", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a * b -> a + b (floating operands)",
       [] { return match(binaryOperator(hasOperatorName("*"), floating_expr()).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!floating_operands(op)) return std::nullopt;
         return swap_operator(m, op, "+");
       }},
      {"arith-add-to-mul", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "a + b -> a * b (floating operands)",
       [] { return match(binaryOperator(hasOperatorName("+"), floating_expr()).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!floating_operands(op)) return std::nullopt;
         return swap_operator(m, op, "*");
       }},
      {"arith-drop-factor", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "right factor of a floating product dropped: a * b -> a (normalisation, scale or weight "
       "forgotten; not b == 1, not x * x)",
       [] { return match(binaryOperator(hasOperatorName("*"), floating_expr()).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!floating_operands(op) || is_literal_one(op->getRHS()) || is_square(m, op)) {
           return std::nullopt;
         }
         // The left operand of `*` binds at least as tightly as the product it replaces.
         const auto l = m.text(op->getLHS());
         if (!l) return std::nullopt;
         return m.replace(op, *l);
       }},
      {"arith-square-to-value", Family::Arithmetic, kScopeDevice,
       "square lost: x * x -> x (floating; sum of squares becomes a plain sum)",
       [] { return match(binaryOperator(hasOperatorName("*"), floating_expr()).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!floating_operands(op) || !is_square(m, op)) return std::nullopt;
         const auto t = m.operand_text(op->getLHS());
         if (!t) return std::nullopt;
         return m.replace(op, *t);
       }},
      {"arith-drop-unary-minus", Family::Arithmetic, kScopeDevice,
       "sign dropped: -x -> x (non-literal arithmetic operand, e.g. expf(-v) in a sigmoid)",
       [] {
         return match(unaryOperator(hasOperatorName("-"),
                                    unless(hasUnaryOperand(ignoringParenImpCasts(
                                        anyOf(floatLiteral(), integerLiteral())))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<UnaryOperator>("site");
         if (!is_arithmetic(op->getSubExpr())) return std::nullopt;
         const auto t = m.text(op->getSubExpr());
         if (!t) return std::nullopt;
         return m.replace(op, *t);
       }},
      {"arith-float-const-double", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "floating formula constant doubled: 0.5f -> 1.0f (not 0, epsilons <= 1e-3 or sentinels)",
       [] { return match(floatLiteral().bind("site")); },
       [](const MatchContext& m) { return scale_constant(m, 2.0); }},
      {"arith-float-const-halve", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "floating formula constant halved: 1.0f -> 0.5f (not 0, epsilons <= 1e-3 or sentinels)",
       [] { return match(floatLiteral().bind("site")); },
       [](const MatchContext& m) { return scale_constant(m, 0.5); }},
      {"arith-mod-to-div", Family::Arithmetic, kScopeDevice,
       "a % b -> a / b (integer operands; lane ids `tid % 32` belong to index-lane-warp-swap)",
       [] { return match(binaryOperator(hasOperatorName("%")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_integer(op->getLHS()) || !is_integer(op->getRHS()) || is_lane_warp_split(op)) {
           return std::nullopt;
         }
         return swap_operator(m, op, "/");
       }},
      {"arith-drop-sqrt", Family::Arithmetic, kScopeDevice,
       "root forgotten: sqrtf(x) -> x, rsqrtf(x) -> 1.0f / x (sqrt/rsqrt likewise)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("sqrtf", "sqrt", "rsqrtf", "rsqrt"))),
                               argumentCountIs(1))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const Expr* arg = call->getArg(0);
         if (!is_floating(arg)) return std::nullopt;
         const auto t = m.operand_text(arg);
         if (!t) return std::nullopt;
         const std::string name = callee_name(call);
         if (name == "sqrtf" || name == "sqrt") return m.replace(call, *t);
         return m.replace(call, std::string("(") + (name == "rsqrtf" ? "1.0f" : "1.0") + " / " +
                                    *t + ")");
       }},
      {"arith-drop-reciprocal", Family::Arithmetic, kScopeDevice | kScopeLaunch,
       "reciprocal forgotten: 1.0f / x -> x (floating)",
       [] {
         return match(binaryOperator(hasOperatorName("/"), floating_expr(),
                                     hasLHS(ignoringParenImpCasts(anyOf(floatLiteral(), integerLiteral()))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_floating(op) || !is_literal_one(op->getLHS())) return std::nullopt;
         const auto t = m.operand_text(op->getRHS());
         if (!t) return std::nullopt;
         return m.replace(op, *t);
       }},
  };
}

}  // namespace kaudit::mutators::detail
