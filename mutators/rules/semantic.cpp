// Semantic family: the right operation on the right data, but the wrong meaning.
// (Reference study: fmaxf->fminf, drop fmaxf(x, 0), argmax tie-break first->last, flag flips,
// const 0->1.)
#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

std::optional<Edit> rename_callee(const MatchContext& m, const CallExpr* call,
                                  const std::string& to) {
  if (call == nullptr) return std::nullopt;
  const auto* ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (ref == nullptr) return std::nullopt;
  const std::string name = ref->getDecl()->getNameAsString();
  return m.replace_token(ref->getLocation(), name, to);
}

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
         return rename_callee(m, call, to);
       }},
      {"sem-fminf-to-fmaxf", Family::Semantic, kScopeDevice,
       "fminf -> fmaxf (fmin -> fmax, min -> max)",
       [] { return match(callExpr(callee(functionDecl(hasAnyName("fminf", "fmin", "min")))).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const std::string name = callee_name(call);
         const std::string to = name == "fminf" ? "fmaxf" : name == "fmin" ? "fmax" : "max";
         return rename_callee(m, call, to);
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
  };
}

}  // namespace kaudit::mutators::detail
