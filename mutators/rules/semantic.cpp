// Semantic family: the right operation on the right data, but the wrong meaning: flipped logic,
// mean vs sum, the wrong reduction combiner, overwritten accumulators, dropped log and bias.
// (Reference study: fmaxf->fminf, drop fmaxf(x, 0), argmax tie-break first->last, flag flips,
// const 0->1.)
#include <cctype>

#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

auto zero_literal() {
  return ignoringParenImpCasts(anyOf(floatLiteral(equals(0.0)), integerLiteral(equals(0))));
}

bool is_zero_literal(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (const auto* f = dyn_cast<FloatingLiteral>(e)) return f->getValue().isZero();
  if (const auto* i = dyn_cast<IntegerLiteral>(e)) return i->getValue() == 0;
  return false;
}

// `var` is a running maximum in `body`: assigned from fmaxf/fmax/max(.., var, ..), or assigned
// in the then-branch of an if whose condition reads var (`if (x > var) var = x;`).
bool assigns_var(const Stmt* s, const VarDecl* var) {
  if (s == nullptr) return false;
  if (const auto* op = dyn_cast<BinaryOperator>(s)) {
    if (op->getOpcode() == BO_Assign && referenced_var(op->getLHS()) == var) return true;
  }
  for (const Stmt* c : s->children()) {
    if (assigns_var(c, var)) return true;
  }
  return false;
}

bool is_running_max(const Stmt* s, const VarDecl* var) {
  if (s == nullptr) return false;
  if (const auto* op = dyn_cast<BinaryOperator>(s)) {
    if (op->getOpcode() == BO_Assign && referenced_var(op->getLHS()) == var) {
      if (const auto* call = dyn_cast<CallExpr>(op->getRHS()->IgnoreParenImpCasts())) {
        const std::string name = callee_name(call);
        if ((name == "fmaxf" || name == "fmax" || name == "max") && references(call, var)) {
          return true;
        }
      }
    }
  }
  if (const auto* ifs = dyn_cast<IfStmt>(s)) {
    if (references(ifs->getCond(), var) && assigns_var(ifs->getThen(), var)) return true;
  }
  for (const Stmt* c : s->children()) {
    if (is_running_max(c, var)) return true;
  }
  return false;
}


// A floating division by a count: `sum / n`, `m2 / (float)D` (the divisor is an integer
// expression, possibly converted). Returns the integer count, else null.
const Expr* count_divisor(const BinaryOperator* op) {
  if (op == nullptr || op->getOpcode() != BO_Div || !is_floating(op) ||
      !is_floating(op->getLHS())) {
    return nullptr;
  }
  const Expr* count = op->getRHS()->IgnoreParenCasts();
  return is_integer(count) ? count : nullptr;
}

auto count_division() {
  return binaryOperator(hasOperatorName("/"), floating_expr(),
                        hasRHS(ignoringParenCasts(integer_expr())));
}

// An operand that brings another thread's partial result: a warp shuffle, a local initialised by
// one (`const float o = __shfl_xor_sync(...)`), or an element of a __shared__ array.
bool is_partner_value(const Expr* e) {
  e = strip(e);
  if (const auto* call = dyn_cast<CallExpr>(e)) {
    return llvm::StringRef(callee_name(call)).starts_with("__shfl");
  }
  if (const auto* sub = dyn_cast<ArraySubscriptExpr>(e)) {
    const Expr* base = sub->getBase();
    while (const auto* inner = dyn_cast<ArraySubscriptExpr>(base->IgnoreParenImpCasts())) {
      base = inner->getBase();
    }
    const VarDecl* v = referenced_var(base);
    return v != nullptr && v->hasAttr<CUDASharedAttr>();
  }
  const VarDecl* v = referenced_var(e);
  if (v == nullptr || !v->isLocalVarDecl() || !v->hasInit()) return false;
  const auto* call = dyn_cast<CallExpr>(strip(v->getInit()));
  return call != nullptr && llvm::StringRef(callee_name(call)).starts_with("__shfl");
}

// A parameter holding an additive bias/shift (bias, b_bias, beta), by name.
bool is_bias_param(const Expr* e) {
  const auto* sub = dyn_cast<ArraySubscriptExpr>(strip(e));
  if (sub == nullptr) return false;
  const auto* p = dyn_cast_or_null<ParmVarDecl>(referenced_var(sub->getBase()));
  if (p == nullptr) return false;
  std::string name = p->getNameAsString();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name.find("bias") != std::string::npos || name.find("beta") != std::string::npos;
}
}  // namespace

std::vector<RuleDef> semantic_rules() {
  return {
      {"sem-fmaxf-to-fminf", Family::Semantic, kScopeDevice,
       "fmaxf -> fminf (fmax -> fmin, max -> min)",
       [] { return match(callExpr(callee(functionDecl(hasAnyName("fmaxf", "fmax", "max")))).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const std::string name = callee_name(call);
         const std::string to = name == "fmaxf" ? "fminf" : name == "fmax" ? "fmin" : "min";
         return rename_called_function(m, call, to);
       }},
      {"sem-fminf-to-fmaxf", Family::Semantic, kScopeDevice,
       "fminf -> fmaxf (fmin -> fmax, min -> max)",
       [] { return match(callExpr(callee(functionDecl(hasAnyName("fminf", "fmin", "min")))).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const std::string name = callee_name(call);
         const std::string to = name == "fminf" ? "fmaxf" : name == "fmin" ? "fmax" : "max";
         return rename_called_function(m, call, to);
       }},
      {"sem-drop-relu", Family::Semantic, kScopeDevice,
       "drop a ReLU/clamp at zero: fmaxf(x, 0.0f) -> x, `v > 0 ? v : 0` -> v",
       [] {
         const auto max_call = callExpr(callee(functionDecl(hasAnyName("fmaxf", "fmax", "max"))),
                                        argumentCountIs(2),
                                        hasAnyArgument(zero_literal()));
         const auto relu_ternary = conditionalOperator(
             hasCondition(ignoringParenImpCasts(binaryOperator(
                 hasAnyOperatorName(">", ">="),
                 hasLHS(ignoringParenImpCasts(declRefExpr(to(varDecl().bind("v"))))),
                 hasRHS(zero_literal())))),
             hasTrueExpression(ignoringParenImpCasts(declRefExpr(to(varDecl(equalsBoundNode("v")))))),
             hasFalseExpression(zero_literal()));
         return match(expr(anyOf(max_call, relu_ternary)).bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* site = m.node<Expr>("site");
         if (const auto* call = dyn_cast<CallExpr>(site)) {
           const Expr* a = call->getArg(0);
           const Expr* b = call->getArg(1);
           const Expr* keep = is_zero_literal(b) ? a : b;
           if (is_zero_literal(keep)) return std::nullopt;
           const auto t = m.operand_text(keep);
           if (!t) return std::nullopt;
           return m.replace(call, *t);
         }
         const auto* cond = dyn_cast<ConditionalOperator>(site);
         if (cond == nullptr) return std::nullopt;
         const auto t = m.operand_text(cond->getTrueExpr());
         if (!t) return std::nullopt;
         return m.replace(cond, *t);
       }},
      {"sem-argmax-tiebreak", Family::Semantic, kScopeDevice,
       "argmax update `if (v > best) {... idx = j;}`: strict -> non-strict (first -> last max)",
       [] {
         const auto cmp = binaryOperator(hasAnyOperatorName(">", "<"), hasLHS(floating_expr()),
                                         hasRHS(floating_expr()))
                              .bind("site");
         return match(ifStmt(hasCondition(expr(eachOf(cmp, forEachDescendant(cmp)))),
                             hasThen(hasDescendant(binaryOperator(hasOperatorName("="),
                                                                  hasLHS(integer_expr()))))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_floating(op->getLHS()) || !is_floating(op->getRHS())) return std::nullopt;
         return swap_operator(m, op, op->getOpcode() == BO_GT ? ">=" : "<=");
       }},
      {"sem-tiebreak-index-flip", Family::Semantic, kScopeDevice,
       "tie-break on index `(a == b && i < j)` -> `(a == b && i > j)` (first -> last)",
       [] {
         return match(binaryOperator(
             hasOperatorName("&&"),
             hasLHS(ignoringParenImpCasts(binaryOperator(hasOperatorName("=="),
                                                         hasLHS(floating_expr()),
                                                         hasRHS(floating_expr())))),
             hasRHS(ignoringParenImpCasts(
                 binaryOperator(hasAnyOperatorName("<", ">", "<=", ">="),
                                hasLHS(integer_expr()), hasRHS(integer_expr()))
                     .bind("site")))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         switch (op->getOpcode()) {
           case BO_LT: return swap_operator(m, op, ">");
           case BO_GT: return swap_operator(m, op, "<");
           case BO_LE: return swap_operator(m, op, ">=");
           case BO_GE: return swap_operator(m, op, "<=");
           default: return std::nullopt;
         }
       }},
      {"sem-accum-init-zero-to-one", Family::Semantic, kScopeDevice,
       "accumulator initialised to 0 -> 1 (float acc = 0.0f; ... acc += ...)",
       [] {
         return match(varDecl(hasType(qualType(hasCanonicalType(realFloatingPointType()))),
                              hasInitializer(ignoringParenImpCasts(
                                  expr(anyOf(floatLiteral(equals(0.0)), integerLiteral(equals(0))))
                                      .bind("lit"))),
                              hasAncestor(functionDecl().bind("fn")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* var = m.node<VarDecl>("site");
         const auto* fn = m.node<FunctionDecl>("fn");
         const auto* lit = m.node<Expr>("lit");
         if (!is_accumulator(var, fn->getBody())) return std::nullopt;
         const auto t = m.text(lit);
         if (!t || !is_number_token(*t)) return std::nullopt;
         if (isa<IntegerLiteral>(lit)) return m.replace(lit, "1");
         return m.replace(lit, respell_float_literal(*t, "1.0"));
       }},
      {"sem-max-init-to-zero", Family::Semantic, kScopeDevice,
       "running-max initial value (-FLT_MAX, x[0], ...) -> 0 (wrong for all-negative data)",
       [] {
         return match(varDecl(hasType(qualType(hasCanonicalType(realFloatingPointType()))),
                              hasInitializer(expr().bind("init")),
                              hasAncestor(functionDecl().bind("fn")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* var = m.node<VarDecl>("site");
         const auto* init = m.node<Expr>("init");
         const auto* fn = m.node<FunctionDecl>("fn");
         if (is_zero_literal(init) || !is_running_max(fn->getBody(), var)) return std::nullopt;
         const bool is_float = var->getType().getCanonicalType()->isSpecificBuiltinType(
             BuiltinType::Float);
         return m.replace(init, is_float ? "0.0f" : "0.0");
       }},
      {"sem-float-compare-flip", Family::Semantic, kScopeDevice,
       "floating comparison direction flipped: a > b -> a < b (>= <-> <=)",
       [] {
         return match(binaryOperator(hasAnyOperatorName("<", ">", "<=", ">="),
                                     hasLHS(floating_expr()), hasRHS(floating_expr()))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_floating(op->getLHS()) || !is_floating(op->getRHS())) return std::nullopt;
         switch (op->getOpcode()) {
           case BO_LT: return swap_operator(m, op, ">");
           case BO_GT: return swap_operator(m, op, "<");
           case BO_LE: return swap_operator(m, op, ">=");
           case BO_GE: return swap_operator(m, op, "<=");
           default: return std::nullopt;
         }
       }},
      {"sem-flag-flip", Family::Semantic, kScopeDevice,
       "boolean flag used as a condition negated: if (flag) -> if (!flag), flag ? a : b",
       [] {
         const auto flag = ignoringParenImpCasts(
             declRefExpr(to(decl(anyOf(varDecl(hasType(booleanType())),
                                       nonTypeTemplateParmDecl(hasType(booleanType()))))))
                 .bind("flag"));
         return match(stmt(anyOf(ifStmt(hasCondition(flag)),
                                 conditionalOperator(hasCondition(flag))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* flag = m.node<DeclRefExpr>("flag");
         const auto t = m.text(flag);
         if (!t) return std::nullopt;
         return m.replace(flag, "!" + *t);
       }},
      {"sem-and-or-swap", Family::Semantic, kScopeDevice,
       "logical connective swapped: a && b <-> a || b",
       [] { return match(binaryOperator(hasAnyOperatorName("&&", "||")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         return swap_operator(m, op, op->getOpcode() == BO_LAnd ? "||" : "&&");
       }},
      {"sem-eq-ne-swap", Family::Semantic, kScopeDevice,
       "equality test inverted: a == b <-> a != b",
       [] { return match(binaryOperator(hasAnyOperatorName("==", "!=")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_arithmetic(op->getLHS()) && !is_pointer(op->getLHS())) return std::nullopt;
         return swap_operator(m, op, op->getOpcode() == BO_EQ ? "!=" : "==");
       }},
      {"sem-mean-to-sum", Family::Semantic, kScopeDevice | kScopeLaunch,
       "mean becomes a sum: floating x / n -> x (n an integer count, possibly converted)",
       [] { return match(count_division().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (count_divisor(op) == nullptr) return std::nullopt;
         // The left operand of `/` binds at least as tightly as the quotient it replaces.
         const auto t = m.text(op->getLHS());
         if (!t) return std::nullopt;
         return m.replace(op, *t);
       }},
      {"sem-bessel-correction", Family::Semantic, kScopeDevice | kScopeLaunch,
       "biased <-> unbiased: floating x / n -> x / (n - 1) (n an integer count)",
       [] { return match(count_division().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr* count = count_divisor(m.node<BinaryOperator>("site"));
         // n - 1 of a literal 1 would divide by zero.
         const auto* lit = dyn_cast_or_null<IntegerLiteral>(count);
         if (count == nullptr || (lit != nullptr && lit->getValue() == 1)) {
           return std::nullopt;
         }
         const auto t = minus_one(m, count);
         if (!t) return std::nullopt;
         if (isa<IntegerLiteral>(count->IgnoreParenImpCasts())) return m.replace(count, *t);
         return m.replace(count, "(" + *t + ")");
       }},
      {"sem-max-combine-to-add", Family::Semantic, kScopeDevice,
       "max-reduction combiner replaced by a sum: fmaxf(v, <shuffle or shared partner>) -> "
       "(v + partner)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("fmaxf", "fmax", "max"))),
                               argumentCountIs(2))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         if (!is_partner_value(call->getArg(0)) && !is_partner_value(call->getArg(1))) {
           return std::nullopt;
         }
         const auto a = m.text(call->getArg(0));
         const auto b = m.text(call->getArg(1));
         if (!a || !b) return std::nullopt;
         return m.replace(call, "(" + *a + " + " + *b + ")");
       }},
      {"sem-accumulate-to-overwrite", Family::Semantic, kScopeDevice,
       "accumulation overwrites instead: acc += v -> acc = v (floating target)",
       [] {
         return match(binaryOperator(hasOperatorName("+="), hasLHS(floating_expr())).bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_floating(op->getLHS())) return std::nullopt;
         // Not a loop increment (`for (...; ...; x += step)`); a brace-less loop body is fine.
         for (const auto& parent : m.ast().getParents(*op)) {
           const auto* loop = parent.get<ForStmt>();
           if (loop != nullptr && loop->getInc() == op) return std::nullopt;
         }
         return swap_operator(m, op, "=");
       }},
      {"sem-ternary-swap", Family::Semantic, kScopeDevice,
       "conditional branches swapped: c ? a : b -> c ? b : a (not when c is an ==/!= test: "
       "sem-eq-ne-swap makes that program)",
       [] { return match(conditionalOperator().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* cond = m.node<ConditionalOperator>("site");
         if (const auto* test = dyn_cast<BinaryOperator>(cond->getCond()->IgnoreParenImpCasts());
             test != nullptr && test->isEqualityOp()) {
           return std::nullopt;
         }
         const CharSourceRange a = m.file_range(cond->getTrueExpr());
         const CharSourceRange b = m.file_range(cond->getFalseExpr());
         const auto ta = m.text(a);
         const auto tb = m.text(b);
         const auto between = m.text_between(a, b);
         if (!ta || !tb || !between || *ta == *tb) return std::nullopt;
         return m.replace(CharSourceRange::getCharRange(a.getBegin(), b.getEnd()),
                          *tb + *between + *ta);
       }},
      {"sem-drop-log", Family::Semantic, kScopeDevice,
       "log forgotten: logf(x) -> x (log, __logf likewise; log-sum-exp, log-softmax)",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("logf", "log", "__logf"))),
                               argumentCountIs(1))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         if (!is_floating(call->getArg(0))) return std::nullopt;
         const auto t = m.operand_text(call->getArg(0));
         if (!t) return std::nullopt;
         return m.replace(call, *t);
       }},
      {"sem-drop-bias", Family::Semantic, kScopeDevice,
       "bias/shift term dropped: acc + bias[i] -> acc (a parameter named *bias* or *beta*)",
       [] { return match(binaryOperator(hasOperatorName("+"), floating_expr()).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         const Expr* keep = is_bias_param(op->getRHS())   ? op->getLHS()
                            : is_bias_param(op->getLHS()) ? op->getRHS()
                                                          : nullptr;
         if (keep == nullptr || !is_floating(op)) return std::nullopt;
         const auto t = m.text(keep);
         if (!t) return std::nullopt;
         return m.replace(op, *t);
       }},
  };
}

}  // namespace kaudit::mutators::detail
