// Synchronization family: barriers (removed, moved, made divergent, skipped on the last step),
// warp masks, shuffle directions, memory fences and atomics.
// (Reference study: remove __syncthreads, __syncthreads -> __syncwarp, move barrier before store.)
#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

// Swaps the barrier statement "site" (a direct child of compound "block") with its next (+1) or
// previous (-1) sibling statement, keeping the text between them.
std::optional<Edit> swap_with_neighbour(const MatchContext& m, int direction) {
  const auto* block = m.node<CompoundStmt>("block");
  const auto* barrier = m.node<Stmt>("site");
  if (block == nullptr || barrier == nullptr) return std::nullopt;
  std::vector<const Stmt*> body(block->body_begin(), block->body_end());
  size_t i = 0;
  while (i < body.size() && body[i] != barrier) ++i;
  if (i == body.size()) return std::nullopt;
  const long j = static_cast<long>(i) + direction;
  if (j < 0 || j >= static_cast<long>(body.size())) return std::nullopt;
  const Stmt* other = body[static_cast<size_t>(j)];
  if (isa<NullStmt>(other)) return std::nullopt;
  // Moving a barrier below a jump makes it dead code (a removal, which has its own rule).
  if (direction > 0 && isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(other)) {
    return std::nullopt;
  }
  if (const auto* call = dyn_cast<CallExpr>(other)) {
    if (callee_name(call) == "__syncthreads") return std::nullopt;  // nothing to reorder
  }
  const Stmt* first = direction > 0 ? barrier : other;
  const Stmt* second = direction > 0 ? other : barrier;
  const CharSourceRange r1 = m.statement_range(first);
  const CharSourceRange r2 = m.statement_range(second);
  const auto t1 = m.text(r1);
  const auto t2 = m.text(r2);
  const auto between = m.text_between(r1, r2);
  if (!t1 || !t2 || !between) return std::nullopt;
  return m.replace(CharSourceRange::getCharRange(r1.getBegin(), r2.getEnd()),
                   *t2 + *between + *t1);
}

auto barrier_in_block() {
  return compoundStmt(forEach(callExpr(callee(functionDecl(hasName("__syncthreads")))).bind("site")))
      .bind("block");
}


// Moves the barrier "site" (a direct child of compound "block") into the then-branch of the
// `if` just before it: `if (c) { S } __syncthreads();` -> `if (c) { S __syncthreads(); }`.
std::optional<Edit> barrier_into_preceding_if(const MatchContext& m) {
  const auto* block = m.node<CompoundStmt>("block");
  const auto* barrier = m.node<Stmt>("site");
  const Stmt* prev = nullptr;
  for (const Stmt* s : block->body()) {
    if (s == barrier) break;
    prev = s;
  }
  const auto* ifs = dyn_cast_or_null<IfStmt>(prev);
  // Only a thread-dependent condition makes the barrier divergent (a uniform `if (VEC)` does not).
  if (ifs == nullptr || ifs->getElse() != nullptr || ifs->isConstexpr() ||
      !depends_on_thread_index(ifs->getCond())) {
    return std::nullopt;
  }
  const CharSourceRange whole = m.statement_range(ifs);
  const CharSourceRange bar = m.statement_range(barrier);
  const auto if_text = m.text(whole);
  const auto bar_text = m.text(bar);
  if (!if_text || !bar_text || whole.isInvalid() || bar.isInvalid()) return std::nullopt;
  // A barrier after a jump would be dead code: that is a removal, which has its own rule.
  const Stmt* last = ifs->getThen();
  if (const auto* c = dyn_cast<CompoundStmt>(last)) last = c->body_empty() ? nullptr : c->body_back();
  if (isa_and_nonnull<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(last)) return std::nullopt;
  std::string moved;
  if (const auto* block_then = dyn_cast<CompoundStmt>(ifs->getThen())) {
    // Everything up to the closing brace of the then-block, the barrier, then the brace.
    const CharSourceRange upto =
        CharSourceRange::getCharRange(whole.getBegin(), block_then->getRBracLoc());
    const auto head = m.text(upto);
    if (!head) return std::nullopt;
    moved = *head + *bar_text + " }";
  } else {
    const CharSourceRange then = m.statement_range(ifs->getThen());
    const auto head = m.text(CharSourceRange::getCharRange(whole.getBegin(), then.getBegin()));
    const auto body = m.text(then);
    if (!head || !body) return std::nullopt;
    moved = *head + "{ " + *body + " " + *bar_text + " }";
  }
  return m.replace(CharSourceRange::getCharRange(whole.getBegin(), bar.getEnd()), moved);
}

}  // namespace

std::vector<RuleDef> synchronization_rules() {
  return {
      {"sync-remove-syncthreads", Family::Synchronization, kScopeDevice,
       "__syncthreads() removed (replaced by (void)0)",
       [] { return match(callExpr(callee(functionDecl(hasName("__syncthreads")))).bind("site")); },
       [](const MatchContext& m) { return m.replace(m.node<CallExpr>("site"), "(void)0"); }},
      {"sync-syncthreads-to-syncwarp", Family::Synchronization, kScopeDevice,
       "__syncthreads() -> __syncwarp() (only the warp waits)",
       [] { return match(callExpr(callee(functionDecl(hasName("__syncthreads")))).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const auto* ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
         if (ref == nullptr) return std::nullopt;
         return m.replace_token(ref->getLocation(), "__syncthreads", "__syncwarp");
       }},
      {"sync-move-barrier-down", Family::Synchronization, kScopeDevice,
       "barrier moved after the next statement: __syncthreads(); S; -> S; __syncthreads();",
       [] { return match(barrier_in_block()); },
       [](const MatchContext& m) { return swap_with_neighbour(m, +1); }},
      {"sync-move-barrier-up", Family::Synchronization, kScopeDevice,
       "barrier moved before the previous statement (e.g. the shared-memory store): "
       "S; __syncthreads(); -> __syncthreads(); S;",
       [] { return match(barrier_in_block()); },
       [](const MatchContext& m) { return swap_with_neighbour(m, -1); }},
      {"sync-remove-syncwarp", Family::Synchronization, kScopeDevice,
       "__syncwarp(...) removed (replaced by (void)0)",
       [] { return match(callExpr(callee(functionDecl(hasName("__syncwarp")))).bind("site")); },
       [](const MatchContext& m) { return m.replace(m.node<CallExpr>("site"), "(void)0"); }},
      {"sync-warp-mask-half", Family::Synchronization, kScopeDevice,
       "full warp mask 0xffffffff -> 0x0000ffff in __shfl*_sync/__ballot_sync/__any_sync/"
       "__all_sync/__syncwarp",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName(
                                   "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                   "__shfl_xor_sync", "__ballot_sync", "__any_sync",
                                   "__all_sync", "__syncwarp"))),
                               hasArgument(0, expr(unless(cxxDefaultArgExpr())).bind("mask")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* mask = m.node<Expr>("mask");
         const Expr* written = mask->IgnoreParenImpCasts();
         Expr::EvalResult value;
         if (written->isValueDependent() || !written->EvaluateAsInt(value, m.ast())) {
           return std::nullopt;
         }
         if (value.Val.getInt().getZExtValue() != 0xffffffffu) return std::nullopt;
         return m.replace(written, "0x0000ffffu");
       }},
      {"sync-atomic-to-plain", Family::Synchronization, kScopeDevice,
       "atomicAdd(p, v) as a statement -> *p += v (a data race between threads/blocks)",
       [] {
         return match(callExpr(callee(functionDecl(hasName("atomicAdd"))), argumentCountIs(2),
                               hasParent(stmt(unless(expr()))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         const auto p = m.operand_text(call->getArg(0));
         const auto v = m.text(call->getArg(1));
         if (!p || !v) return std::nullopt;
         return m.replace(call, "*" + *p + " += " + *v);
       }},
      {"sync-shfl-direction-swap", Family::Synchronization, kScopeDevice,
       "shuffle direction swapped: __shfl_down_sync <-> __shfl_up_sync",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("__shfl_down_sync", "__shfl_up_sync"))))
                          .bind("site"));
       },
       [](const MatchContext& m) {
         const auto* call = m.node<CallExpr>("site");
         return rename_called_function(
             m, call, callee_name(call) == "__shfl_down_sync" ? "__shfl_up_sync" : "__shfl_down_sync");
       }},
      {"sync-shfl-xor-to-down", Family::Synchronization, kScopeDevice,
       "butterfly all-reduce becomes a tree reduce: __shfl_xor_sync -> __shfl_down_sync (only "
       "lane 0 ends with the total)",
       [] { return match(call_to("__shfl_xor_sync").bind("site")); },
       [](const MatchContext& m) {
         return rename_called_function(m, m.node<CallExpr>("site"), "__shfl_down_sync");
       }},
      {"sync-atomic-add-to-exch", Family::Synchronization, kScopeDevice,
       "atomicAdd(p, v) -> atomicExch(p, v) (the last writer wins; float/int/unsigned targets)",
       [] { return match(call_to("atomicAdd").bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CallExpr>("site");
         if (call->getNumArgs() != 2 || !is_pointer(call->getArg(0))) return std::nullopt;
         // atomicExch has no double overload.
         const QualType t = call->getArg(0)->getType()->getPointeeType().getCanonicalType();
         if (!t->isSpecificBuiltinType(BuiltinType::Float) &&
             !t->isSpecificBuiltinType(BuiltinType::Int) &&
             !t->isSpecificBuiltinType(BuiltinType::UInt) &&
             !t->isSpecificBuiltinType(BuiltinType::ULongLong)) {
           return std::nullopt;
         }
         return rename_called_function(m, call, "atomicExch");
       }},
      {"sync-barrier-into-branch", Family::Synchronization, kScopeDevice,
       "barrier moved into the preceding thread-dependent if: if (tid < s) {...} "
       "__syncthreads(); -> if (tid < s) {... __syncthreads(); } (divergent barrier)",
       [] { return match(compoundStmt(forEach(call_to("__syncthreads").bind("site"))).bind("block")); },
       [](const MatchContext& m) { return barrier_into_preceding_if(m); }},
      {"sync-skip-last-reduction-barrier", Family::Synchronization, kScopeDevice,
       "tree-reduction barrier skipped on the last step: for (s = ...; s > 0; s >>= 1) "
       "{... __syncthreads();} -> if (s > 1) __syncthreads() (when every thread reads the "
       "result next)",
       [] {
         const auto var_ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsBoundNode("var")))));
         return match(forStmt(
             hasLoopInit(declStmt(hasSingleDecl(varDecl().bind("var")))),
             hasCondition(binaryOperator(hasOperatorName(">"), hasLHS(var_ref),
                                         hasRHS(ignoringParenImpCasts(integerLiteral(equals(0)))))),
             hasIncrement(binaryOperator(hasAnyOperatorName(">>=", "/="), hasLHS(var_ref))),
             hasBody(compoundStmt(forEach(call_to("__syncthreads").bind("site")))),
             hasParent(compoundStmt().bind("block"))).bind("loop"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         // The missing last barrier only races when other threads read the result right after the
         // loop; `if (tid == 0) out = red[0];` reads what thread 0 itself wrote (an equivalent
         // mutant), and so does a loop at the end of its block.
         const auto* block = m.node<CompoundStmt>("block");
         const Stmt* next = nullptr;
         for (auto it = block->body_begin(); it != block->body_end(); ++it) {
           if (*it == m.node<Stmt>("loop") && it + 1 != block->body_end()) next = *(it + 1);
         }
         const auto* guard = dyn_cast_or_null<IfStmt>(next);
         if (next == nullptr || (guard != nullptr && depends_on_thread_index(guard->getCond()))) {
           return std::nullopt;
         }
         const auto* var = m.node<VarDecl>("var");
         const auto* call = m.node<CallExpr>("site");
         const auto t = m.text(call);
         if (!t || var->getName().empty()) return std::nullopt;
         return m.replace(call, "if (" + var->getNameAsString() + " > 1) " + *t);
       }},
      {"sync-remove-threadfence", Family::Synchronization, kScopeDevice,
       "memory fence removed: __threadfence() / __threadfence_block() -> (void)0",
       [] {
         return match(callExpr(callee(functionDecl(hasAnyName("__threadfence", "__threadfence_block"))))
                          .bind("site"));
       },
       [](const MatchContext& m) { return m.replace(m.node<CallExpr>("site"), "(void)0"); }},
  };
}

}  // namespace kaudit::mutators::detail
