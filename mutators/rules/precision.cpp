// Precision family: fast intrinsics, dropped stabilisers, reduced-precision accumulation/stores.
// (Reference study: fp16 accumulator, fp16 store, expf->__expf, / -> __fdividef, drop softmax
// max-subtraction, drop rsqrt epsilon, drop Kahan compensation.)
#include <cctype>
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
         if (!is_floating(sum)) return std::nullopt;
         const bool eps_left = looks_like_epsilon(sum->getLHS());
         const bool eps_right = looks_like_epsilon(sum->getRHS());
         if (eps_left == eps_right) return std::nullopt;  // no (or no single) epsilon term
         const Expr* keep = eps_right ? sum->getLHS() : sum->getRHS();
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
       [] {
         return match(binaryOperator(hasAnyOperatorName("+=", "-=", "="),
                                     hasLHS(ignoringParenImpCasts(
                                         declRefExpr(to(varDecl(hasLocalStorage(),
                                                                unless(parmVarDecl())).bind("acc")))
                                             .bind("lhs"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         // Not a __half re-declaration: torch extension builds (and the NVRTC stage) define
         // __CUDA_NO_HALF_CONVERSIONS__/__CUDA_NO_HALF_OPERATORS__, so `__half acc = 0.0f;
         // acc += v;` would not compile. Rounding every update through fp16 keeps the running
         // value at fp16 precision, which is what an fp16 accumulator does.
         const auto* op = m.node<BinaryOperator>("site");
         const auto* var = m.node<VarDecl>("acc");
         if (!is_float32(op->getLHS())) return std::nullopt;
         const auto name = m.text(m.node<DeclRefExpr>("lhs"));
         if (!name) return std::nullopt;
         if (op->getOpcode() == BO_Assign) {
           // acc = f(..., acc, ...): an update only when the new value reads the old one.
           if (!references(op->getRHS(), var)) return std::nullopt;
           const auto rhs = m.text(op->getRHS());
           if (!rhs) return std::nullopt;
           return m.replace(op->getRHS(), "__half2float(__float2half_rn(" + *rhs + "))");
         }
         const auto rhs = m.text(op->getRHS());
         if (!rhs) return std::nullopt;
         const char* sign = op->getOpcode() == BO_AddAssign ? " + " : " - ";
         return m.replace(op, *name + " = __half2float(__float2half_rn(" + *name + sign + "(" +
                                  *rhs + ")))");
       }},
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
  };
}

}  // namespace kaudit::mutators::detail
