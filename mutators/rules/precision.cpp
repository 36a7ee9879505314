// Precision family: fast intrinsics, dropped stabilisers, reduced-precision accumulation/stores.
// (Reference study: fp16 accumulator, fp16 store, expf->__expf, / -> __fdividef, drop softmax
// max-subtraction, drop rsqrt epsilon, drop Kahan compensation.)
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

std::optional<Edit> rename_callee(const MatchContext& m, const CallExpr* call,
                                  const std::string& to) {
  const auto* ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (ref == nullptr) return std::nullopt;
  return m.replace_token(ref->getLocation(), ref->getDecl()->getNameAsString(), to);
}

const std::map<std::string, std::string>& fast_intrinsics() {
  static const std::map<std::string, std::string> table = {
      {"logf", "__logf"},   {"log2f", "__log2f"}, {"log10f", "__log10f"},
      {"powf", "__powf"},   {"sinf", "__sinf"},   {"cosf", "__cosf"},
      {"tanf", "__tanf"},   {"exp10f", "__exp10f"},
  };
  return table;
}

bool looks_like_epsilon(const Expr* e) {
  e = e->IgnoreParenCasts();
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) {
    std::string name = ref->getDecl()->getNameAsString();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name.find("eps") != std::string::npos;
  }
  if (const auto* lit = dyn_cast<FloatingLiteral>(e)) {
    const double v = lit->getValueAsApproximateDouble();
    return v > 0 && v <= 1e-2;
  }
  return false;
}

// A double-precision libm call that has a float twin (erf -> erff).
bool is_double_math(const CallExpr* call) {
  static const char* const names[] = {"exp", "log", "erf", "erfc", "sqrt", "tanh", "pow",
                                      "sin", "cos", "expm1", "log1p", "rsqrt", "cbrt"};
  const FunctionDecl* fd = call->getDirectCallee();
  if (fd == nullptr || !fd->getReturnType()->isSpecificBuiltinType(BuiltinType::Double)) {
    return false;
  }
  const std::string name = fd->getNameAsString();
  for (const char* n : names) {
    if (name == n) return true;
  }
  return false;
}

// Text rounded through a narrower float format and back: the value a narrow accumulator or
// operand holds. (Not a re-declaration in __half/__nv_bfloat16: torch extension builds disable
// their implicit conversions and operators, see prec-half-accumulator.)
struct Narrow {
  const char* to;
  const char* back;
};
constexpr Narrow kHalf{"__float2half_rn", "__half2float"};
constexpr Narrow kBf16{"__float2bfloat16", "__bfloat162float"};

std::string rounded(const Narrow& n, const std::string& text) {
  return std::string(n.back) + "(" + n.to + "(" + text + "))";
}

// The producer shared by the narrow-accumulator rules: a float local's update `acc += v` /
// `acc -= v` / `acc = f(acc, ...)` keeps its running value at the narrow precision.
std::optional<Edit> narrow_accumulator(const MatchContext& m, const Narrow& n) {
  const auto* op = m.node<BinaryOperator>("site");
  const auto* var = m.node<VarDecl>("acc");
  if (!is_float32(op->getLHS())) return std::nullopt;
  const auto name = m.text(m.node<DeclRefExpr>("lhs"));
  const auto rhs = m.text(op->getRHS());
  if (!name || !rhs) return std::nullopt;
  if (op->getOpcode() == BO_Assign) {
    // acc = f(..., acc, ...): an update only when the new value reads the old one.
    if (!references(op->getRHS(), var)) return std::nullopt;
    return m.replace(op->getRHS(), rounded(n, *rhs));
  }
  const char* sign = op->getOpcode() == BO_AddAssign ? " + " : " - ";
  return m.replace(op, *name + " = " + rounded(n, *name + sign + "(" + *rhs + ")"));
}

auto local_float_update() {
  return binaryOperator(hasAnyOperatorName("+=", "-=", "="),
                        hasLHS(ignoringParenImpCasts(
                            declRefExpr(to(varDecl(hasLocalStorage(), unless(parmVarDecl()))
                                               .bind("acc")))
                                .bind("lhs"))))
      .bind("site");
}

// `a + eps` (either order) with exactly one epsilon-like term: the other term, else null.
const Expr* non_eps_term(const BinaryOperator* sum) {
  if (sum == nullptr || !is_floating(sum)) return nullptr;
  const bool eps_left = looks_like_epsilon(sum->getLHS());
  const bool eps_right = looks_like_epsilon(sum->getRHS());
  if (eps_left == eps_right) return nullptr;  // no (or no single) epsilon term
  return eps_right ? sum->getLHS() : sum->getRHS();
}

// Source text usable more than once (no side effects), parenthesised as an operand.
std::optional<std::string> pure_operand(const MatchContext& m, const Expr* e) {
  if (e == nullptr || e->HasSideEffects(m.ast())) return std::nullopt;
  return m.operand_text(e);
}

// Significant decimal digits of a floating literal's spelling (exponent and suffix excluded).
int significant_digits(std::string_view token) {
  int digits = 0;
  bool leading = true;
  for (char c : token) {
    if (c == 'e' || c == 'E') break;
    if (!std::isdigit(static_cast<unsigned char>(c))) continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits;
}

// The integer an integral-valued floating literal (1.0f) or an explicit int -> float cast
// ((float)n) stands for, as text; an integer operand as is. nullopt for anything else.
std::optional<std::string> integer_meaning(const MatchContext& m, const Expr* e, bool& was_cast) {
  const Expr* s = e->IgnoreParenImpCasts();
  if (const auto* lit = dyn_cast<FloatingLiteral>(s)) {
    const double v = lit->getValueAsApproximateDouble();
    if (v != static_cast<double>(static_cast<long long>(v)) || v < 0 || v > 2147483647.0) {
      return std::nullopt;
    }
    return std::to_string(static_cast<long long>(v));
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(s); cast != nullptr && is_floating(cast)) {
    const Expr* inner = cast->getSubExpr()->IgnoreParenImpCasts();
    if (!is_integer(inner)) return std::nullopt;
    was_cast = true;
    return m.operand_text(inner);
  }
  if (is_integer(s)) return m.operand_text(s);
  return std::nullopt;
}

}  // namespace

std::vector<RuleDef> precision_rules() {
  return {
      {"prec-expf-to-intrinsic", Family::Precision, kScopeDevice,
       "expf -> __expf (fast approximate exponential)",
       [] { return match(callExpr(callee(functionDecl(hasName("expf")))).bind("site")); },
       [](const MatchContext& m) { return rename_callee(m, m.node<CallExpr>("site"), "__expf"); }},
      {"prec-math-to-intrinsic", Family::Precision, kScopeDevice,
       "logf/log2f/log10f/powf/sinf/cosf/tanf/exp10f -> the __ fast intrinsic",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("logf", "log2f", "log10f", "powf",
                                                              "sinf", "cosf", "tanf", "exp10f"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const auto it = fast_intrinsics().find(callee_name(call));
         if (it == fast_intrinsics().end()) return std::nullopt;
         return rename_callee(m, call, it->second);
       }},
      {"prec-div-to-fdividef", Family::Precision, kScopeDevice,
       "float division a / b -> __fdividef(a, b)",
       [] { return match(binaryOperator(hasOperatorName("/")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_float32(op->getLHS()) || !is_float32(op->getRHS())) return std::nullopt;
         const auto a = m.text(op->getLHS());
         const auto b = m.text(op->getRHS());
         if (!a || !b) return std::nullopt;
         return m.replace(op, "__fdividef(" + *a + ", " + *b + ")");
       }},
      {"prec-drop-rsqrt-eps", Family::Precision, kScopeDevice,
       "epsilon dropped under a (r)sqrt: rsqrtf(var + eps) -> rsqrtf(var)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("rsqrtf", "rsqrt", "sqrtf", "sqrt",
                                                              "__frsqrt_rn", "__fsqrt_rn"))),
                               hasArgument(0, ignoringParenImpCasts(
                                                  binaryOperator(hasOperatorName("+")).bind("sum"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* sum = m.node<BinaryOperator>("sum");
         const Expr* keep = non_eps_term(sum);
         if (keep == nullptr) return std::nullopt;
         const auto t = m.text(keep);
         if (!t) return std::nullopt;
         return m.replace(sum, *t);
       }},
      {"prec-drop-max-subtraction", Family::Precision, kScopeDevice,
       "softmax stabiliser dropped: expf(x - max) -> expf(x)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("expf", "exp", "__expf", "exp2f"))),
                               hasArgument(0, ignoringParenImpCasts(
                                                  binaryOperator(hasOperatorName("-")).bind("diff"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* diff = m.node<BinaryOperator>("diff");
         if (!is_floating(diff)) return std::nullopt;
         const auto t = m.text(diff->getLHS());
         if (!t) return std::nullopt;
         return m.replace(diff, *t);
       }},
      {"prec-half-accumulator", Family::Precision, kScopeDevice,
       "fp16 accumulator: a float local's update is rounded to half precision, acc += v -> "
       "acc = __half2float(__float2half_rn(acc + (v)))",
       [] { return match(local_float_update()); },
       [](const MatchContext& m) { return narrow_accumulator(m, kHalf); }},
      {"prec-round-store-to-half", Family::Precision, kScopeDevice,
       "float store rounded through fp16: a[i] = v -> a[i] = __half2float(__float2half_rn(v))",
       [] {
         return match(binaryOperator(hasOperatorName("="),
                                     hasLHS(ignoringParenImpCasts(
                                         anyOf(arraySubscriptExpr(), unaryOperator(hasOperatorName("*"))))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_float32(op->getLHS())) return std::nullopt;
         const auto v = m.text(op->getRHS());
         if (!v) return std::nullopt;
         return m.replace(op->getRHS(), "__half2float(__float2half_rn(" + *v + "))");
       }},
      {"prec-drop-kahan", Family::Precision, kScopeDevice,
       "Kahan compensation dropped: c = (t - sum) - y -> c = 0.0f",
       [] {
         return match(binaryOperator(
                          hasOperatorName("="),
                          hasLHS(ignoringParenImpCasts(declRefExpr(to(varDecl().bind("c"))))),
                          hasRHS(ignoringParenImpCasts(binaryOperator(
                              hasOperatorName("-"),
                              hasLHS(ignoringParenImpCasts(binaryOperator(hasOperatorName("-"))))))),
                          hasAncestor(functionDecl().bind("fn")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         const auto* c = m.node<VarDecl>("c");
         const auto* fn = m.node<FunctionDecl>("fn");
         if (!is_floating(op->getLHS())) return std::nullopt;
         // The compensation must be applied somewhere: `y = x - c`.
         bool applied = false;
         std::function<void(const Stmt*)> walk = [&](const Stmt* s) {
           if (s == nullptr || applied) return;
           if (const auto* b = dyn_cast<BinaryOperator>(s)) {
             if (b != op->getRHS()->IgnoreParenImpCasts() && b->getOpcode() == BO_Sub &&
                 referenced_var(b->getRHS()) == c) {
               applied = true;
             }
           }
           for (const Stmt* ch : s->children()) walk(ch);
         };
         walk(fn->getBody());
         if (!applied) return std::nullopt;
         const bool f32 = is_float32(op->getLHS());
         return m.replace(op->getRHS(), f32 ? "0.0f" : "0.0");
       }},
      {"prec-double-math-to-float", Family::Precision, kScopeDevice,
       "double libm call computed in float: erf(x) -> erff((float)(x))",
       [] {
         return match(callExpr(callee(functionDecl(
                                   hasAnyName("exp", "log", "erf", "erfc", "sqrt", "tanh", "pow",
                                              "sin", "cos", "expm1", "log1p", "rsqrt", "cbrt"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         if (!is_double_math(call)) return std::nullopt;
         std::string out = callee_name(call) + "f(";
         for (unsigned i = 0; i < call->getNumArgs(); ++i) {
           const auto t = m.text(call->getArg(i));
           if (!t) return std::nullopt;
           out += (i ? ", (float)(" : "(float)(") + *t + ")";
         }
         out += ")";
         return m.replace(call, out);
       }},
      {"prec-bf16-accumulator", Family::Precision, kScopeDevice,
       "bf16 accumulator: a float local's update is rounded to bfloat16, acc += v -> "
       "acc = __bfloat162float(__float2bfloat16(acc + (v)))",
       [] { return match(local_float_update()); },
       [](const MatchContext& m) { return narrow_accumulator(m, kBf16); }},
      {"prec-double-accumulator-to-float", Family::Precision, kScopeDevice,
       "double accumulator declared float: double acc = 0.0; ... acc += v -> float acc = 0.0;",
       [] {
         return match(varDecl(hasLocalStorage(), unless(parmVarDecl()),
                              hasType(qualType(hasCanonicalType(asString("double")))),
                              hasAncestor(functionDecl(hasBody(stmt().bind("body")))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* var = m.node<VarDecl>("site");
         if (!is_accumulator(var, m.node<Stmt>("body"))) return std::nullopt;
         const TypeSourceInfo* tsi = var->getTypeSourceInfo();
         if (tsi == nullptr) return std::nullopt;
         const auto builtin = tsi->getTypeLoc().getUnqualifiedLoc().getAs<BuiltinTypeLoc>();
         if (builtin.isNull()) return std::nullopt;
         return m.replace_token(builtin.getNameLoc(), "double", "float");
       }},
      {"prec-half-memory-accumulate", Family::Precision, kScopeDevice,
       "fp16 accumulation in memory (shared-memory tree, output): s[i] += v -> "
       "s[i] = __half2float(__float2half_rn(s[i] + (v)))",
       [] {
         return match(binaryOperator(hasAnyOperatorName("+=", "-="),
                                     hasLHS(ignoringParenImpCasts(anyOf(
                                         arraySubscriptExpr(), unaryOperator(hasOperatorName("*"))))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_float32(op->getLHS()) || op->getLHS()->HasSideEffects(m.ast())) {
           return std::nullopt;
         }
         const auto lhs = m.text(op->getLHS());
         const auto rhs = m.text(op->getRHS());
         if (!lhs || !rhs) return std::nullopt;
         const char* sign = op->getOpcode() == BO_AddAssign ? " + " : " - ";
         return m.replace(op, *lhs + " = " + rounded(kHalf, *lhs + sign + "(" + *rhs + ")"));
       }},
      {"prec-mac-operands-bf16", Family::Precision, kScopeDevice,
       "multiply-accumulate on bf16-rounded inputs (tensor-core style): acc += a * b -> "
       "acc += bf16(a) * bf16(b), fmaf(a, b, c) -> fmaf(bf16(a), bf16(b), c)",
       [] {
         return match(stmt(anyOf(
             binaryOperator(hasOperatorName("+="),
                            hasRHS(ignoringParenImpCasts(
                                binaryOperator(hasOperatorName("*")).bind("mul")))),
             callExpr(callee(functionDecl(hasName("fmaf"))), argumentCountIs(3)).bind("fma")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr *a = nullptr, *b = nullptr;
         if (const auto* mul = m.node<BinaryOperator>("mul")) {
           a = mul->getLHS();
           b = mul->getRHS();
         } else if (const auto* fma = m.node<CallExpr>("fma")) {
           a = fma->getArg(0);
           b = fma->getArg(1);
         }
         if (!is_float32(a) || !is_float32(b)) return std::nullopt;
         const auto at = m.text(a);
         const auto bt = m.text(b);
         if (!at || !bt) return std::nullopt;
         // One contiguous edit from the start of a to the end of b.
         const auto between = m.text_between(m.file_range(a), m.file_range(b));
         if (!between) return std::nullopt;
         return m.replace(CharSourceRange::getCharRange(m.file_range(a).getBegin(),
                                                        m.file_range(b).getEnd()),
                          rounded(kBf16, *at) + *between + rounded(kBf16, *bt));
       }},
      {"prec-recip-sqrt-to-rsqrtf", Family::Precision, kScopeDevice,
       "1.0f / sqrtf(x) -> rsqrtf(x) (approximate reciprocal square root)",
       [] {
         return match(binaryOperator(hasOperatorName("/"),
                                     hasLHS(ignoringParenImpCasts(floatLiteral(equals(1.0)))),
                                     hasRHS(ignoringParenImpCasts(
                                         callExpr(callee(functionDecl(hasName("sqrtf"))),
                                                  hasArgument(0, expr().bind("x"))))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         if (!is_float32(m.node<BinaryOperator>("site"))) return std::nullopt;
         const auto x = m.text(m.node<Expr>("x"));
         if (!x) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"), "rsqrtf(" + *x + ")");
       }},
      {"prec-sqrt-to-mul-rsqrt", Family::Precision, kScopeDevice,
       "sqrtf(x) -> (x * rsqrtf(x)) (fast square root: approximate, and NaN at x = 0)",
       [] {
         return match(callExpr(callee(functionDecl(hasName("sqrtf"))), argumentCountIs(1))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto x = pure_operand(m, m.node<CallExpr>("site")->getArg(0));
         if (!x) return std::nullopt;
         return m.replace(m.node<CallExpr>("site"), "(" + *x + " * rsqrtf(" + *x + "))");
       }},
      {"prec-eps-outside-sqrt", Family::Precision, kScopeDevice,
       "epsilon moved outside the root: sqrtf(var + eps) -> (sqrtf(var) + eps), rsqrtf(var + eps) "
       "-> (1.0f / (sqrtf(var) + eps))",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("sqrtf", "rsqrtf"))),
                               hasArgument(0, ignoringParenImpCasts(
                                                  binaryOperator(hasOperatorName("+")).bind("sum"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* sum = m.node<BinaryOperator>("sum");
         const Expr* keep = non_eps_term(sum);
         if (keep == nullptr) return std::nullopt;
         const Expr* eps = keep == sum->getLHS() ? sum->getRHS() : sum->getLHS();
         const auto k = m.text(keep);
         const auto e = m.operand_text(eps);
         if (!k || !e) return std::nullopt;
         const std::string root = "sqrtf(" + *k + ") + " + *e;
         const auto* call = m.node<CallExpr>("site");
         if (callee_name(call) == "rsqrtf") return m.replace(call, "(1.0f / (" + root + "))");
         return m.replace(call, "(" + root + ")");
       }},
      {"prec-erf-to-tanh-approx", Family::Precision, kScopeDevice,
       "erff(z) -> tanhf(1.1283792f * z * (1.0f + 0.08943f * z * z)) (exact erf-GELU computed as "
       "the tanh approximation)",
       [] {
         return match(callExpr(callee(functionDecl(hasName("erff"))), argumentCountIs(1))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         // erf(z) ~ tanh(2/sqrt(pi) * (z + 0.044715 * 2 * z^3)): the tanh-GELU with x = sqrt(2) z.
         const auto z = pure_operand(m, m.node<CallExpr>("site")->getArg(0));
         if (!z) return std::nullopt;
         return m.replace(m.node<CallExpr>("site"), "tanhf(1.1283792f * " + *z +
                                                        " * (1.0f + 0.08943f * " + *z + " * " +
                                                        *z + "))");
       }},
      {"prec-truncate-constant", Family::Precision, kScopeDevice | kScopeLaunch,
       "long floating constant rounded to 3 significant digits: 0.7071067811865475f -> 0.707f",
       [] { return match(floatLiteral().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* lit = m.node<FloatingLiteral>("site");
         const auto t = m.text(lit);
         const double v = lit->getValueAsApproximateDouble();
         // Written-out constants (sqrt(2/pi), log2(e), ...), not sentinels such as -FLT_MAX.
         if (!t || !is_number_token(*t) || significant_digits(*t) < 5 || !(std::fabs(v) >= 1e-3) ||
             std::fabs(v) >= 1e4) {
           return std::nullopt;
         }
         char buf[32];
         std::snprintf(buf, sizeof buf, "%.3g", v);
         std::string digits = buf;
         if (std::strtod(buf, nullptr) == v) return std::nullopt;
         if (digits.find_first_of(".e") == std::string::npos) digits += ".0";
         return m.replace(lit, respell_float_literal(*t, digits));
       }},
      {"prec-double-literal-to-float", Family::Precision, kScopeDevice,
       "double constant written with an f suffix: 0.7071067811865475244 -> "
       "0.7071067811865475244f (rounded to float precision)",
       [] {
         return match(floatLiteral(hasType(qualType(hasCanonicalType(asString("double")))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* lit = m.node<FloatingLiteral>("site");
         const auto t = m.text(lit);
         if (!t || !is_number_token(*t) || std::isalpha(static_cast<unsigned char>(t->back()))) {
           return std::nullopt;
         }
         // Only constants that float cannot hold exactly (0.5 and 1.0 stay the same value).
         const double v = lit->getValueAsApproximateDouble();
         if (static_cast<double>(static_cast<float>(v)) == v) return std::nullopt;
         return m.replace(lit, *t + "f");
       }},
      {"prec-int-division", Family::Precision, kScopeDevice | kScopeLaunch,
       "ratio meant in floating point computed in integer arithmetic: 1.0f / (float)n -> "
       "(float)(1 / n), (float)a / b -> (float)(a / b)",
       [] {
         return match(binaryOperator(hasOperatorName("/"), floating_expr()).bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         bool cast = false;
         const auto a = integer_meaning(m, op->getLHS(), cast);
         const auto b = integer_meaning(m, op->getRHS(), cast);
         if (!a || !b || !cast) return std::nullopt;  // at least one int -> float conversion
         const char* type = is_float32(op) ? "float" : "double";
         return m.replace(op, std::string("(") + type + ")(" + *a + " / " + *b + ")");
       }},
      {"prec-exp-via-exp2", Family::Precision, kScopeDevice,
       "expf(x) -> exp2f(x * 1.442695f) (base-2 rewrite: the rounding of x * log2(e) is amplified "
       "by |x|)",
       [] {
         return match(callExpr(callee(functionDecl(hasName("expf"))), argumentCountIs(1))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto x = m.operand_text(m.node<CallExpr>("site")->getArg(0));
         if (!x) return std::nullopt;
         return m.replace(m.node<CallExpr>("site"), "exp2f(" + *x + " * 1.442695f)");
       }},
      {"prec-half-round-to-zero", Family::Precision, kScopeDevice,
       "fp16 conversion truncates: __float2half_rn(v) -> __float2half_rz(v) (biased toward zero)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("__float2half_rn", "__float2half"))))
                          .bind("site"));
       },
       [](const MatchContext& m) {
         return rename_callee(m, m.node<CallExpr>("site"), "__float2half_rz");
       }},
      {"prec-unfuse-fma", Family::Precision, kScopeDevice,
       "fused multiply-add split: fmaf(a, b, c) -> __fadd_rn(__fmul_rn(a, b), c) (two roundings)",
       [] {
         return match(callExpr(callee(functionDecl(hasName("fmaf"))), argumentCountIs(3))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const auto a = m.text(call->getArg(0));
         const auto b = m.text(call->getArg(1));
         const auto c = m.text(call->getArg(2));
         if (!a || !b || !c) return std::nullopt;
         return m.replace(call, "__fadd_rn(__fmul_rn(" + *a + ", " + *b + "), " + *c + ")");
       }},
      {"prec-div-to-recip-mul", Family::Precision, kScopeDevice,
       "float division by multiplication with the reciprocal: a / b -> a * (1.0f / b) (two "
       "roundings)",
       [] { return match(binaryOperator(hasOperatorName("/")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_float32(op->getLHS()) || !is_float32(op->getRHS())) return std::nullopt;
         // 1.0f / b is already the reciprocal.
         if (const auto* lit = dyn_cast<FloatingLiteral>(op->getLHS()->IgnoreParenImpCasts())) {
           if (lit->getValueAsApproximateDouble() == 1.0) return std::nullopt;
         }
         const auto a = m.operand_text(op->getLHS());
         const auto b = m.operand_text(op->getRHS());
         if (!a || !b) return std::nullopt;
         return m.replace(op, *a + " * (1.0f / " + *b + ")");
       }},
      {"prec-sigmoid-unstable", Family::Precision, kScopeDevice,
       "sigmoid in the overflowing form: a / (1.0f + expf(-x)) -> a * expf(x) / (1.0f + expf(x)) "
       "(inf / inf = NaN for x > 88)",
       [] {
         return match(
             binaryOperator(
                 hasOperatorName("/"),
                 hasRHS(ignoringParenImpCasts(binaryOperator(
                     hasOperatorName("+"),
                     hasLHS(ignoringParenImpCasts(floatLiteral(equals(1.0)).bind("one"))),
                     hasRHS(ignoringParenImpCasts(
                         callExpr(callee(functionDecl(hasAnyName("expf", "__expf")).bind("exp")),
                                  hasArgument(0, ignoringParenImpCasts(unaryOperator(
                                                     hasOperatorName("-"),
                                                     hasUnaryOperand(expr().bind("x"))))))))))))
                 .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_float32(op)) return std::nullopt;
         const auto x = pure_operand(m, m.node<Expr>("x"));
         const auto one = m.text(m.node<FloatingLiteral>("one"));
         if (!x || !one) return std::nullopt;
         const std::string e = m.node<FunctionDecl>("exp")->getNameAsString() + "(" + *x + ")";
         std::string num = e;
         const Expr* a = op->getLHS()->IgnoreParenImpCasts();
         const auto* lit = dyn_cast<FloatingLiteral>(a);
         if (lit == nullptr || lit->getValueAsApproximateDouble() != 1.0) {
           const auto at = m.operand_text(op->getLHS());
           if (!at) return std::nullopt;
           num = *at + " * " + e;
         }
         return m.replace(op, num + " / (" + *one + " + " + e + ")");
       }},
      {"prec-tanh-to-intrinsic", Family::Precision, kScopeDevice,
       "tanhf -> __tanhf (fast approximate hyperbolic tangent, as in tanh-GELU and Mish)",
       [] { return match(callExpr(callee(functionDecl(hasName("tanhf")))).bind("site")); },
       [](const MatchContext& m) { return rename_callee(m, m.node<CallExpr>("site"), "__tanhf"); }},
      {"prec-log1p-expanded", Family::Precision, kScopeDevice,
       "log1pf(x) -> logf(1.0f + x), expm1f(x) -> (expf(x) - 1.0f) (cancellation for small x, as "
       "in softplus)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("log1pf", "expm1f"))),
                               argumentCountIs(1))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const auto x = m.text(call->getArg(0));
         if (!x) return std::nullopt;
         if (callee_name(call) == "log1pf") return m.replace(call, "logf(1.0f + " + *x + ")");
         return m.replace(call, "(expf(" + *x + ") - 1.0f)");
       }},
  };
}

}  // namespace kaudit::mutators::detail
