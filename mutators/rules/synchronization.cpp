// Synchronization family: barriers, warp masks and atomics.
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
  };
}

}  // namespace kaudit::mutators::detail
