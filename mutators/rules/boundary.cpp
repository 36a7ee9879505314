// Boundary family: off-by-one and dropped edges, in device code and in the launch arithmetic.
// (Reference study: ceil-div grid -> floor-div, drop `if (i < n)` guard, loop bound -1, drop the
// last K tile.)
#include <algorithm>

#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

// The jump-only then-branch of an "exit guard" (`if (i >= n) return;`).
bool is_exit_branch(const Stmt* s) {
  if (const auto* c = dyn_cast_or_null<CompoundStmt>(s)) {
    if (c->size() != 1) return false;
    s = c->body_front();
  }
  return s != nullptr && isa<ReturnStmt, BreakStmt, ContinueStmt>(s);
}

// Integer comparisons reachable from `cond` through parentheses and `chain` (&& or ||).
void chain_comparisons(const Expr* cond, BinaryOperatorKind chain,
                       std::vector<const BinaryOperator*>& out) {
  if (cond == nullptr) return;
  const auto* op = dyn_cast<BinaryOperator>(cond->IgnoreParenImpCasts());
  if (op == nullptr) return;
  if (op->getOpcode() == chain) {
    chain_comparisons(op->getLHS(), chain, out);
    chain_comparisons(op->getRHS(), chain, out);
    return;
  }
  if (op->isRelationalOp() && is_integer(op->getLHS()) && is_integer(op->getRHS())) {
    out.push_back(op);
  }
}

enum class Guard { Work, Exit };

// Is the bound "site" comparison a conjunct of the guard bound as "guard" (an if without else
// or a ?:)? Work guards (`if (i < n) {...}`, `i < n ? a[i] : 0`) are && chains; exit guards
// (`if (i >= n) return;`) are || chains.
std::optional<Guard> guard_of(const MatchContext& m) {
  const auto* op = m.node<BinaryOperator>("site");
  const Expr* cond = nullptr;
  Guard kind = Guard::Work;
  if (const auto* ifs = m.node<IfStmt>("guard")) {
    if (ifs->getElse() != nullptr || ifs->isConstexpr()) return std::nullopt;
    cond = ifs->getCond();
    if (is_exit_branch(ifs->getThen())) kind = Guard::Exit;
  } else if (const auto* c = m.node<ConditionalOperator>("guard")) {
    cond = c->getCond();
  }
  std::vector<const BinaryOperator*> members;
  chain_comparisons(cond, kind == Guard::Work ? BO_LAnd : BO_LOr, members);
  if (std::find(members.begin(), members.end(), op) == members.end()) return std::nullopt;
  return kind;
}

bool reads_memory(const Stmt* s) {
  if (s == nullptr) return false;
  if (isa<ArraySubscriptExpr>(s)) return true;
  if (const auto* u = dyn_cast<UnaryOperator>(s); u != nullptr && u->getOpcode() == UO_Deref) {
    return true;
  }
  for (const Stmt* c : s->children()) {
    if (reads_memory(c)) return true;
  }
  return false;
}

auto relational() {
  return binaryOperator(hasAnyOperatorName("<", "<=", ">", ">="), hasLHS(integer_expr()),
                        hasRHS(integer_expr()));
}

auto var_ref(const char* bound) {
  return ignoringParenImpCasts(declRefExpr(to(varDecl(equalsBoundNode(bound)))));
}

}  // namespace

std::vector<RuleDef> boundary_rules() {
  return {
      {"bound-ceil-div-to-floor", Family::Boundary, kScopeDevice | kScopeLaunch,
       "ceil-div (n + b - 1) / b -> n / b (the last partial block/tile is dropped)",
       [] {
         return match(
             binaryOperator(
                 hasOperatorName("/"),
                 hasLHS(ignoringParenImpCasts(binaryOperator(
                     hasOperatorName("-"),
                     hasLHS(ignoringParenImpCasts(binaryOperator(hasOperatorName("+"),
                                                                 hasLHS(expr().bind("n")),
                                                                 hasRHS(expr().bind("b1"))))),
                     hasRHS(ignoringParenImpCasts(integerLiteral(equals(1))))))),
                 hasRHS(expr().bind("b2")))
                 .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto b1 = m.text(m.node<Expr>("b1"));
         const auto b2 = m.text(m.node<Expr>("b2"));
         const auto n = m.operand_text(m.node<Expr>("n"));
         const auto d = m.operand_text(m.node<Expr>("b2"));
         if (!b1 || !b2 || !n || !d) return std::nullopt;
         const auto squeeze = [](std::string s) {
           s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
           if (s.size() > 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
           return s;
         };
         if (squeeze(*b1) != squeeze(*b2)) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"), *n + " / " + *d);
       }},
      {"bound-drop-guard", Family::Boundary, kScopeDevice,
       "bounds guard dropped: if (i < n) {...} -> if (true) {...}; if (i >= n) return; -> "
       "if (false) return; (per conjunct)",
       [] {
         return match(binaryOperator(relational(),
                                     hasAncestor(ifStmt(unless(hasElse(stmt()))).bind("guard")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto kind = guard_of(m);
         if (!kind) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"), *kind == Guard::Work ? "true" : "false");
       }},
      {"bound-drop-ternary-guard", Family::Boundary, kScopeDevice,
       "guarded load dropped: (i < n) ? a[i] : 0 -> (true) ? a[i] : 0 (per conjunct)",
       [] {
         return match(binaryOperator(relational(),
                                     hasAncestor(conditionalOperator().bind("guard")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         if (!guard_of(m)) return std::nullopt;
         // Only guards that protect a memory access in the selected branch.
         const auto* c = m.node<ConditionalOperator>("guard");
         if (c == nullptr || !reads_memory(c->getTrueExpr())) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"), "true");
       }},
      {"bound-guard-lt-to-le", Family::Boundary, kScopeDevice,
       "off-by-one guard: < <-> <=, > <-> >= in an if/?: bounds check",
       [] {
         return match(binaryOperator(relational(),
                                     hasAncestor(stmt(anyOf(ifStmt(unless(hasElse(stmt()))),
                                                            conditionalOperator()))
                                                     .bind("guard")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         if (!guard_of(m)) return std::nullopt;
         const auto* op = m.node<BinaryOperator>("site");
         switch (op->getOpcode()) {
           case BO_LT: return swap_operator(m, op, "<=");
           case BO_LE: return swap_operator(m, op, "<");
           case BO_GT: return swap_operator(m, op, ">=");
           case BO_GE: return swap_operator(m, op, ">");
           default: return std::nullopt;
         }
       }},
      {"bound-guard-bound-minus-one", Family::Boundary, kScopeDevice,
       "guard bound minus one: i < n -> i < n - 1, i >= n -> i >= n - 1 (last element lost)",
       [] {
         return match(binaryOperator(relational(),
                                     hasAncestor(stmt(anyOf(ifStmt(unless(hasElse(stmt()))),
                                                            conditionalOperator()))
                                                     .bind("guard")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         if (!guard_of(m)) return std::nullopt;
         const auto* op = m.node<BinaryOperator>("site");
         const auto t = minus_one(m, op->getRHS());
         if (!t) return std::nullopt;
         return m.replace(op->getRHS(), *t);
       }},
      {"bound-loop-lt-to-le", Family::Boundary, kScopeDevice,
       "loop condition i < n -> i <= n (one iteration past the end)",
       [] {
         return match(forStmt(hasCondition(ignoringParenImpCasts(
             binaryOperator(hasOperatorName("<"), hasLHS(integer_expr()),
                            hasRHS(integer_expr()))
                 .bind("site")))));
       },
       [](const MatchContext& m) { return swap_operator(m, m.node<BinaryOperator>("site"), "<="); }},
      {"bound-loop-bound-minus-one", Family::Boundary, kScopeDevice,
       "loop bound minus one: i < n -> i < n - 1 (the last iteration is lost)",
       [] {
         return match(forStmt(hasCondition(ignoringParenImpCasts(
             binaryOperator(hasAnyOperatorName("<", "<="), hasLHS(integer_expr()),
                            hasRHS(integer_expr()))
                 .bind("site")))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         const auto t = minus_one(m, op->getRHS());
         if (!t) return std::nullopt;
         return m.replace(op->getRHS(), *t);
       }},
      {"bound-drop-last-tile", Family::Boundary, kScopeDevice,
       "strided/tiled loop `i < n; i += S` -> `i + S < n` (the last tile or stride step is lost)",
       [] {
         return match(forStmt(
             hasCondition(ignoringParenImpCasts(
                 binaryOperator(hasOperatorName("<"),
                                hasLHS(ignoringParenImpCasts(
                                    declRefExpr(to(varDecl().bind("var"))))),
                                hasRHS(integer_expr()))
                     .bind("site"))),
             hasIncrement(binaryOperator(hasOperatorName("+="), hasLHS(var_ref("var")),
                                         hasRHS(expr().bind("step"))))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         const auto* step = m.node<Expr>("step");
         if (const auto* lit = dyn_cast<IntegerLiteral>(step->IgnoreParenImpCasts())) {
           if (lit->getValue() == 1) return std::nullopt;
         }
         const auto var = m.text(op->getLHS());
         const auto s = m.operand_text(step);
         const auto bound = m.text(op->getRHS());
         if (!var || !s || !bound) return std::nullopt;
         return m.replace(op, *var + " + " + *s + " < " + *bound);
       }},
      {"bound-loop-start-plus-one", Family::Boundary, kScopeDevice,
       "loop start plus one: for (i = s; i < n; ...) -> for (i = s + 1; ...) (first element lost)",
       [] {
         return match(forStmt(
             hasLoopInit(declStmt(hasSingleDecl(
                 varDecl(hasInitializer(integer_expr().bind("site"))).bind("var")))),
             hasCondition(ignoringParenImpCasts(
                 binaryOperator(hasAnyOperatorName("<", "<="), hasLHS(var_ref("var"))))),
             hasIncrement(anyOf(unaryOperator(hasAnyOperatorName("++"), hasUnaryOperand(var_ref("var"))),
                                binaryOperator(hasOperatorName("+="), hasLHS(var_ref("var")))))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* init = m.node<Expr>("site");
         if (const auto* lit = dyn_cast<IntegerLiteral>(init->IgnoreParenImpCasts())) {
           const auto t = m.text(lit);
           if (!t) return std::nullopt;
           const auto r = respell_int_literal(*t, lit->getValue().getLimitedValue() + 1);
           if (!r) return std::nullopt;
           return m.replace(lit, *r);
         }
         const auto t = m.operand_text(init);
         if (!t) return std::nullopt;
         return m.replace(init, *t + " + 1");
       }},
      {"bound-launch-block-halved", Family::Boundary, kScopeHost,
       "launch block size halved: <<<g, b>>> -> <<<g, b / 2>>> (dim3: x halved)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) {
         return rewrite_config_x(m, launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 1),
                                 " / 2");
       }},
      {"bound-smem-halved", Family::Boundary, kScopeHost,
       "dynamic shared memory halved: <<<g, b, smem>>> -> <<<g, b, smem / 2>>>",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr* smem = launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 2);
         if (smem == nullptr) return std::nullopt;
         if (const auto* lit = dyn_cast<IntegerLiteral>(smem->IgnoreParenImpCasts())) {
           if (lit->getValue() == 0) return std::nullopt;
         }
         const auto t = m.operand_text(smem);
         if (!t) return std::nullopt;
         return m.replace(smem, *t + " / 2");
       }},
      {"bound-grid-minus-one", Family::Boundary, kScopeHost,
       "launch grid minus one block: <<<g, b>>> -> <<<g - 1, b>>> (dim3: x minus one)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) {
         return rewrite_config_x(m, launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 0),
                                 " - 1");
       }},
  };
}

}  // namespace kaudit::mutators::detail
