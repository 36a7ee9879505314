// Boundary family: off-by-one and dropped edges, in device code and in the launch arithmetic.
// (Reference study: ceil-div grid -> floor-div, drop `if (i < n)` guard, loop bound -1, drop the
// last K tile.)
#include <algorithm>

#include <clang/AST/ParentMapContext.h>

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

// Leaves of `cond` under parentheses and `chain` (&& or ||): the conjuncts or disjuncts.
void chain_leaves(const Expr* cond, BinaryOperatorKind chain, std::vector<const Expr*>& out) {
  if (cond == nullptr) return;
  const Expr* e = cond->IgnoreParenImpCasts();
  if (const auto* op = dyn_cast<BinaryOperator>(e); op != nullptr && op->getOpcode() == chain) {
    chain_leaves(op->getLHS(), chain, out);
    chain_leaves(op->getRHS(), chain, out);
    return;
  }
  out.push_back(e);
}

// Integer comparisons reachable from `cond` through parentheses and `chain` (&& or ||).
void chain_comparisons(const Expr* cond, BinaryOperatorKind chain,
                       std::vector<const BinaryOperator*>& out) {
  std::vector<const Expr*> leaves;
  chain_leaves(cond, chain, leaves);
  for (const Expr* e : leaves) {
    const auto* op = dyn_cast<BinaryOperator>(e);
    if (op != nullptr && op->isRelationalOp() && is_integer(op->getLHS()) &&
        is_integer(op->getRHS())) {
      out.push_back(op);
    }
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

// minus_one() that also takes a size spelled as a macro constant (`TILE` -> `TILE - 1`), which
// minus_one() cannot respell as a literal.
std::optional<std::string> size_minus_one(const MatchContext& m, const Expr* e) {
  if (const auto t = minus_one(m, e)) return t;
  const auto* lit = dyn_cast<IntegerLiteral>(e->IgnoreParenImpCasts());
  const auto t = m.text(e);
  if (lit == nullptr || lit->getValue() == 0 || !t || is_number_token(*t)) return std::nullopt;
  return *t + " - 1";
}

// `e` minus one as an operand (parenthesised unless it is a number): for splicing into a larger
// expression, e.g. `threads * sizeof(float)` -> `(threads - 1) * sizeof(float)`.
std::optional<std::string> minus_one_operand(const MatchContext& m, const Expr* e) {
  const auto t = size_minus_one(m, e);
  if (!t) return std::nullopt;
  if (is_number_token(*t)) return t;
  return "(" + *t + ")";
}

// The nearest parent of `e` that is not a parenthesis or an implicit node.
const Stmt* parent_skipping_parens(const MatchContext& m, const Expr* e) {
  const Stmt* cur = e;
  for (;;) {
    const auto parents = m.ast().getParents(*cur);
    if (parents.empty()) return nullptr;
    const auto* p = parents[0].get<Stmt>();
    if (p == nullptr) return nullptr;
    if (!isa<ParenExpr, ImplicitCastExpr>(p)) return p;
    cur = p;
  }
}

// A constant of the program (literal, constexpr, template parameter, macro constant): tree and
// tile sizes, not data-dependent counts.
bool is_constant(const MatchContext& m, const Expr* e) {
  return e->isValueDependent() || e->isIntegerConstantExpr(m.ast());
}

// `for (...; v > 0; v >>= 1)` / `v /= 2`: a halving (tree or butterfly) loop over `v`.
auto halving_loop() {
  return forStmt(hasCondition(ignoringParenImpCasts(
                     binaryOperator(hasOperatorName(">"),
                                    hasLHS(ignoringParenImpCasts(
                                        declRefExpr(to(varDecl().bind("var"))))),
                                    hasRHS(ignoringParenImpCasts(integerLiteral(equals(0)).bind("zero"))))
                         .bind("cond"))),
                 hasIncrement(binaryOperator(hasAnyOperatorName(">>=", "/="),
                                             hasLHS(ignoringParenImpCasts(declRefExpr(
                                                 to(varDecl(equalsBoundNode("var")))))))));
}

bool calls_shuffle(const Stmt* s) {
  if (s == nullptr) return false;
  if (const auto* call = dyn_cast<CallExpr>(s)) {
    if (llvm::StringRef(callee_name(call)).starts_with("__shfl")) return true;
  }
  for (const Stmt* c : s->children()) {
    if (calls_shuffle(c)) return true;
  }
  return false;
}

// The loop itself when `s` is `for` (possibly under `#pragma unroll`), else null.
const ForStmt* as_for(const Stmt* s) {
  if (const auto* a = dyn_cast_or_null<AttributedStmt>(s)) s = a->getSubStmt();
  return dyn_cast_or_null<ForStmt>(s);
}

// Is `tail` the remainder loop of `main` (its direct predecessor)? Either it continues main's
// induction variable without an init (`for (; i < n; i += step)` after an unrolled loop over i),
// or its start is computed from main's bound (`for (i = 4 * n4 + t; i < n; ...)` after a float4
// loop bounded by n4).
bool is_tail_loop(const ForStmt* main, const ForStmt* tail) {
  const auto* main_cond = dyn_cast_or_null<BinaryOperator>(
      main->getCond() == nullptr ? nullptr : main->getCond()->IgnoreParenImpCasts());
  const auto* tail_cond = dyn_cast_or_null<BinaryOperator>(
      tail->getCond() == nullptr ? nullptr : tail->getCond()->IgnoreParenImpCasts());
  if (main_cond == nullptr || tail_cond == nullptr || !main_cond->isRelationalOp() ||
      !tail_cond->isRelationalOp()) {
    return false;
  }
  if (tail->getInit() == nullptr) {
    const VarDecl* v = referenced_var(tail_cond->getLHS());
    return v != nullptr && references(main_cond->getLHS(), v) && references(main->getInc(), v);
  }
  const auto* decl = dyn_cast<DeclStmt>(tail->getInit());
  const VarDecl* main_bound = referenced_var(main_cond->getRHS());
  if (decl == nullptr || !decl->isSingleDecl() || main_bound == nullptr) return false;
  const auto* v = dyn_cast<VarDecl>(decl->getSingleDecl());
  return v != nullptr && v->getInit() != nullptr && references(v->getInit(), main_bound);
}

// Bit width of an integer expression's type as written (before implicit conversions).
uint64_t int_width(const MatchContext& m, const Expr* e) {
  const Expr* s = e->IgnoreParenImpCasts();
  if (!is_integer(s)) return 0;
  return m.ast().getTypeSize(s->getType());
}

// Does `s` subscript a local (register) array with `var`? Index -1 of such an array is undefined
// behaviour the compiler may delete outright (an equivalent mutant), not a read of the element
// before the tile.
bool indexes_local_array(const Stmt* s, const VarDecl* var) {
  if (s == nullptr) return false;
  const auto* sub = dyn_cast<ArraySubscriptExpr>(s);
  if (sub != nullptr && references(sub->getIdx(), var)) {
    const Expr* base = sub->getBase()->IgnoreParenImpCasts();
    while (const auto* inner = dyn_cast<ArraySubscriptExpr>(base)) {
      base = inner->getBase()->IgnoreParenImpCasts();
    }
    const VarDecl* array = referenced_var(base);
    if (array != nullptr && array->getType()->isArrayType() && array->hasLocalStorage() &&
        !array->hasAttr<CUDASharedAttr>()) {
      return true;
    }
  }
  for (const Stmt* c : s->children()) {
    if (indexes_local_array(c, var)) return true;
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
      {"bound-reduction-stop-early", Family::Boundary, kScopeDevice,
       "tree/butterfly loop stops one level early: for (s = B / 2; s > 0; s >>= 1) -> s > 1 (the "
       "last fold, s = 1, is lost)",
       [] { return match(halving_loop().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* zero = m.node<IntegerLiteral>("zero");
         const auto t = m.text(zero);
         if (!t) return std::nullopt;
         const auto one = respell_int_literal(*t, 1);
         if (!one) return std::nullopt;
         return m.replace(zero, *one);
       }},
      {"bound-reduction-start-halved", Family::Boundary, kScopeDevice,
       "shared-memory tree starts at half its size: for (s = B / 2; s > 0; s >>= 1) -> "
       "s = (B / 2) / 2 (the upper half of the buffer is never folded in)",
       [] {
         // Shuffle butterflies are index-shuffle-offset-halved's; this is the shared-memory tree.
         return match(forStmt(halving_loop(), hasLoopInit(declStmt(hasSingleDecl(varDecl(
                                                  equalsBoundNode("var"),
                                                  hasInitializer(expr().bind("init")))))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         if (calls_shuffle(m.node<ForStmt>("site")->getBody())) return std::nullopt;
         const auto* init = m.node<Expr>("init");
         const auto t = m.operand_text(init);
         if (!t) return std::nullopt;
         return m.replace(init, *t + " / 2");
       }},
      {"bound-vec-count-round-up", Family::Boundary, kScopeDevice | kScopeLaunch,
       "vector count rounded up: n / 4 -> (n + 3) / 4 (also / 2, / 8; the last vector reads and "
       "writes past the end)",
       [] {
         return match(binaryOperator(hasOperatorName("/"), hasLHS(integer_expr().bind("n")),
                                     hasRHS(ignoringParenImpCasts(
                                         integerLiteral(anyOf(equals(2), equals(4), equals(8)))
                                             .bind("w"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* n = m.node<Expr>("n");
         const auto* w = m.node<IntegerLiteral>("w");
         // Counts of data elements only: not tree/tile sizes (constants, blockDim, warpSize) and
         // not an already rounded numerator.
         const Expr* bare = n->IgnoreParenImpCasts();
         if (is_constant(m, n) || isa<PseudoObjectExpr, MSPropertyRefExpr, BinaryOperator>(bare)) {
           return std::nullopt;
         }
         const auto nt = m.operand_text(n);
         const auto wt = m.text(w);
         if (!nt || !wt) return std::nullopt;
         const auto round = respell_int_literal(*wt, w->getValue().getLimitedValue() - 1);
         if (!round) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"),
                          "(" + *nt + " + " + *round + ") / " + *wt);
       }},
      {"bound-loop-start-minus-one", Family::Boundary, kScopeDevice,
       "loop start minus one: for (i = s; i < n; ...) -> for (i = s - 1; ...) (reads index -1 / "
       "the element before the tile)",
       [] {
         return match(forStmt(
             hasLoopInit(declStmt(hasSingleDecl(
                 varDecl(hasInitializer(integer_expr().bind("site"))).bind("var")))),
             hasCondition(ignoringParenImpCasts(
                 binaryOperator(hasAnyOperatorName("<", "<="), hasLHS(var_ref("var"))))),
             hasIncrement(anyOf(unaryOperator(hasAnyOperatorName("++"), hasUnaryOperand(var_ref("var"))),
                                binaryOperator(hasOperatorName("+="), hasLHS(var_ref("var"))))))
                          .bind("loop"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         // Signed induction variables only: an unsigned one would wrap instead of reading -1.
         const auto* var = m.node<VarDecl>("var");
         if (!var->getType()->isSignedIntegerType()) return std::nullopt;
         if (indexes_local_array(m.node<ForStmt>("loop")->getBody(), var)) return std::nullopt;
         const auto* init = m.node<Expr>("site");
         if (const auto* lit = dyn_cast<IntegerLiteral>(init->IgnoreParenImpCasts())) {
           if (lit->getValue() == 0) return m.replace(lit, "-1");
         }
         const auto t = minus_one(m, init);
         if (!t) return std::nullopt;
         return m.replace(init, *t);
       }},
      {"bound-smem-array-minus-one", Family::Boundary, kScopeDevice,
       "static shared array one element (row) short: __shared__ float s[N] -> s[N - 1]",
       [] {
         return match(
             varDecl(hasAttr(attr::CUDAShared), unless(isInstantiated())).bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* var = m.node<VarDecl>("site");
         const TypeSourceInfo* tsi = var->getTypeSourceInfo();
         if (tsi == nullptr) return std::nullopt;
         const auto array = tsi->getTypeLoc().getUnqualifiedLoc().getAs<ArrayTypeLoc>();
         if (array.isNull() || array.getSizeExpr() == nullptr) return std::nullopt;  // extern []
         const auto t = size_minus_one(m, array.getSizeExpr());
         if (!t) return std::nullopt;
         return m.replace(array.getSizeExpr(), *t);
       }},
      {"bound-smem-bytes-minus-one", Family::Boundary, kScopeLaunch,
       "dynamic shared-memory size one element short: n * sizeof(T) -> (n - 1) * sizeof(T)",
       [] {
         const auto size_of = ignoringParenImpCasts(unaryExprOrTypeTraitExpr(ofKind(UETT_SizeOf)));
         return match(binaryOperator(hasOperatorName("*"),
                                     anyOf(allOf(hasLHS(integer_expr().bind("n")), hasRHS(size_of)),
                                           allOf(hasLHS(size_of), hasRHS(integer_expr().bind("n")))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* n = m.node<Expr>("n");
         const auto t = minus_one_operand(m, n);
         if (!t) return std::nullopt;
         return m.replace(n, *t);
       }},
      {"bound-last-index-off-by-one", Family::Boundary, kScopeDevice,
       "last-index arithmetic off by one: a[n - 1] -> a[n], min(i, n - 1) -> min(i, n) (one past "
       "the last element)",
       [] {
         const auto last = ignoringParenImpCasts(
             binaryOperator(hasOperatorName("-"), hasLHS(integer_expr()),
                            hasRHS(ignoringParenImpCasts(integerLiteral(equals(1)))))
                 .bind("site"));
         return match(stmt(anyOf(arraySubscriptExpr(hasIndex(last)),
                                 callExpr(callee(functionDecl(hasName("min"))),
                                          hasAnyArgument(last)))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         const auto t = m.text(op->getLHS());
         if (!t) return std::nullopt;
         return m.replace(op, *t);
       }},
      {"bound-drop-empty-check", Family::Boundary, kScopeHost,
       "empty-input early return dropped: if (n == 0) return out; -> if (false) return out; (per "
       "disjunct: a zero-size grid is launched)",
       [] {
         return match(binaryOperator(hasOperatorName("=="),
                                     hasEitherOperand(ignoringParenImpCasts(integerLiteral(equals(0)))),
                                     hasEitherOperand(integer_expr()),
                                     hasAncestor(ifStmt(unless(hasElse(stmt()))).bind("guard")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* ifs = m.node<IfStmt>("guard");
         if (!isa<ReturnStmt>(ifs->getThen()) && !is_exit_branch(ifs->getThen())) {
           return std::nullopt;
         }
         std::vector<const Expr*> leaves;
         chain_leaves(ifs->getCond(), BO_LOr, leaves);
         const auto* op = m.node<BinaryOperator>("site");
         if (std::find(leaves.begin(), leaves.end(), op) == leaves.end()) return std::nullopt;
         return m.replace(op, "false");
       }},
      {"bound-drop-tail-loop", Family::Boundary, kScopeDevice,
       "remainder loop after a vectorised/unrolled loop never runs: for (i = 4 * n4 + t; i < n; "
       "...) -> for (...; false; ...) (sizes that are not a multiple of the vector width)",
       [] {
         return match(forStmt(hasCondition(expr().bind("cond")),
                              hasParent(compoundStmt().bind("block")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* tail = m.node<ForStmt>("site");
         const auto* block = m.node<CompoundStmt>("block");
         const Stmt* prev = nullptr;
         for (const Stmt* s : block->body()) {
           if (s == tail) break;
           prev = s;
         }
         const ForStmt* main = as_for(prev);
         if (main == nullptr || !is_tail_loop(main, tail)) return std::nullopt;
         return m.replace(m.node<Expr>("cond"), "false");
       }},
      {"bound-out-size-drop-plus-one", Family::Boundary, kScopeDevice | kScopeLaunch,
       "output extent of a window off by one: (H + 2 * p - K) / s + 1 -> (H + 2 * p - K) / s (the "
       "last output row/column is lost)",
       [] {
         return match(binaryOperator(
                          hasOperatorName("+"),
                          hasLHS(ignoringParenImpCasts(
                              binaryOperator(hasOperatorName("/"),
                                             hasLHS(ignoringParenImpCasts(
                                                 binaryOperator(hasOperatorName("-")))))
                                  .bind("div"))),
                          hasRHS(ignoringParenImpCasts(integerLiteral(equals(1)))),
                          hasType(qualType(hasCanonicalType(isInteger()))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto t = m.text(m.node<Expr>("div"));
         if (!t) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"), *t);
       }},
      {"bound-loop-ge-to-gt", Family::Boundary, kScopeDevice,
       "descending loop stops one early: for (i = n - 1; i >= 0; --i) -> i > 0 (the first "
       "element is lost)",
       [] {
         return match(forStmt(hasCondition(ignoringParenImpCasts(
             binaryOperator(hasOperatorName(">="), hasLHS(integer_expr()),
                            hasRHS(integer_expr()))
                 .bind("site")))));
       },
       [](const MatchContext& m) { return swap_operator(m, m.node<BinaryOperator>("site"), ">"); }},
      {"bound-halo-short", Family::Boundary, kScopeDevice | kScopeLaunch,
       "window/halo extent one short: TILE + K - 1 -> TILE + K - 2 (the last halo row/column is "
       "not staged; ceil-division numerators excluded)",
       [] {
         return match(binaryOperator(hasOperatorName("-"),
                                     hasLHS(ignoringParenImpCasts(binaryOperator(hasOperatorName("+")))),
                                     hasRHS(ignoringParenImpCasts(integerLiteral(equals(1)).bind("one"))),
                                     hasType(qualType(hasCanonicalType(isInteger()))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (const auto* p = dyn_cast_or_null<BinaryOperator>(parent_skipping_parens(m, op))) {
           if (p->getOpcode() == BO_Div && p->getLHS()->IgnoreParenImpCasts() == op) {
             return std::nullopt;  // (n + b - 1) / b is bound-ceil-div-to-floor's
           }
         }
         const auto* one = m.node<IntegerLiteral>("one");
         const auto t = m.text(one);
         if (!t) return std::nullopt;
         const auto two = respell_int_literal(*t, 2);
         if (!two) return std::nullopt;
         return m.replace(one, *two);
       }},
      {"bound-grid-y-minus-one", Family::Boundary, kScopeHost,
       "2-D/3-D launch grid one block short in y: dim3 grid(gx, gy) -> dim3 grid(gx, gy - 1) (the "
       "last row of tiles is lost)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr* grid = launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 0);
         if (grid == nullptr || !is_dim3(grid)) return std::nullopt;
         // A named grid: its construction, `dim3 grid(gx, gy)`.
         if (const VarDecl* var = referenced_var(grid); var != nullptr && var->hasInit()) {
           grid = var->getInit();
         }
         const auto* ctor = dyn_cast<CXXConstructExpr>(grid->IgnoreImplicit());
         if (ctor == nullptr || ctor->getNumArgs() < 2 || isa<CXXDefaultArgExpr>(ctor->getArg(1))) {
           return std::nullopt;
         }
         const Expr* gy = ctor->getArg(1);
         const auto t = size_minus_one(m, gy);
         if (!t) return std::nullopt;
         return m.replace(gy, *t);
       }},
      {"bound-launch-block-minus-warp", Family::Boundary, kScopeHost,
       "launch block one warp short: <<<g, 256>>> -> <<<g, 256 - 32>>> (not a power of two: tree "
       "reductions and fixed-size tiles lose threads; scalar blocks above one warp)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr* block = launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 1);
         if (block == nullptr || is_dim3(block)) return std::nullopt;
         if (const auto* lit = dyn_cast<IntegerLiteral>(block->IgnoreParenImpCasts())) {
           if (lit->getValue().ule(32)) return std::nullopt;
         }
         return rewrite_config_x(m, block, " - 32");
       }},
      {"bound-index-widening-dropped", Family::Boundary, kScopeDevice,
       "64-bit index widening dropped: (size_t)row * D -> row * D (32-bit overflow past 2^31 "
       "elements)",
       [] {
         return match(binaryOperator(hasOperatorName("*"),
                                     hasLHS(ignoringParens(explicitCastExpr().bind("cast"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         const auto* cast = m.node<ExplicitCastExpr>("cast");
         if (!is_integer(cast) || m.ast().getTypeSize(cast->getType()) < 64) return std::nullopt;
         // Both factors 32-bit: without the cast the product is computed in 32 bits.
         const uint64_t from = int_width(m, cast->getSubExpr());
         const uint64_t other = int_width(m, op->getRHS());
         if (from == 0 || from > 32 || other == 0 || other > 32) return std::nullopt;
         const auto t = m.operand_text(cast->getSubExpr()->IgnoreParenImpCasts());
         if (!t) return std::nullopt;
         return m.replace(op->getLHS(), *t);
       }},
  };
}

}  // namespace kaudit::mutators::detail
