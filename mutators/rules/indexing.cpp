// Indexing family: thread/block coordinates, warp width, strides and axes.
// (Reference study: threadIdx.x->threadIdx.y, blockIdx.x->blockIdx.y, blockDim->gridDim,
// warpSize 32->16, stride/axis swap.)
#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

// The `threadIdx` of `threadIdx.x` (the base is wrapped in an OpaqueValueExpr).
const DeclRefExpr* builtin_base(const MSPropertyRefExpr* p) {
  const Expr* base = p->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto* ove = dyn_cast<OpaqueValueExpr>(base)) base = ove->getSourceExpr();
  return base == nullptr ? nullptr : dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
}

// For a `threadIdx.x`-style MSPropertyRefExpr: the builtin's name and the property name.
std::optional<std::pair<std::string, std::string>> builtin_member(const MSPropertyRefExpr* p) {
  if (p == nullptr) return std::nullopt;
  const auto* base = builtin_base(p);
  if (base == nullptr || p->getPropertyDecl() == nullptr) return std::nullopt;
  return std::make_pair(base->getDecl()->getNameAsString(),
                        p->getPropertyDecl()->getNameAsString());
}

std::optional<Edit> swap_axis(const MatchContext& m, const char* builtin) {
  const auto* p = m.node<MSPropertyRefExpr>("site");
  const auto bm = builtin_member(p);
  if (!bm || bm->first != builtin) return std::nullopt;
  const std::string& axis = bm->second;
  const std::string to = axis == "x" ? "y" : "x";  // x -> y, y -> x, z -> x
  return m.replace_token(p->getMemberLoc(), axis, to);
}

std::optional<Edit> rename_builtin(const MatchContext& m, const char* from, const char* to) {
  const auto* p = m.node<MSPropertyRefExpr>("site");
  const auto bm = builtin_member(p);
  if (!bm || bm->first != from) return std::nullopt;
  return m.replace_token(builtin_base(p)->getLocation(), from, to);
}

}  // namespace

std::vector<RuleDef> indexing_rules() {
  return {
      {"index-threadidx-axis-swap", Family::Indexing, kScopeDevice,
       "threadIdx.x -> threadIdx.y (y -> x, z -> x)",
       [] { return match(msPropertyRefExpr().bind("site")); },
       [](const MatchContext& m) { return swap_axis(m, "threadIdx"); }},
      {"index-blockidx-axis-swap", Family::Indexing, kScopeDevice,
       "blockIdx.x -> blockIdx.y (y -> x, z -> x)",
       [] { return match(msPropertyRefExpr().bind("site")); },
       [](const MatchContext& m) { return swap_axis(m, "blockIdx"); }},
      {"index-blockdim-to-griddim", Family::Indexing, kScopeDevice,
       "blockDim.<axis> -> gridDim.<axis>",
       [] { return match(msPropertyRefExpr().bind("site")); },
       [](const MatchContext& m) { return rename_builtin(m, "blockDim", "gridDim"); }},
      {"index-griddim-to-blockdim", Family::Indexing, kScopeDevice,
       "gridDim.<axis> -> blockDim.<axis> (grid-stride loops stride by one block)",
       [] { return match(msPropertyRefExpr().bind("site")); },
       [](const MatchContext& m) { return rename_builtin(m, "gridDim", "blockDim"); }},
      {"index-warpsize-to-16", Family::Indexing, kScopeDevice,
       "warpSize -> 16 (lane/warp arithmetic and shuffle offsets assume a half warp)",
       [] { return match(declRefExpr(to(varDecl(hasName("warpSize")))).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* ref = m.node<DeclRefExpr>("site");
         return m.replace_token(ref->getLocation(), "warpSize", "16");
       }},
      {"index-shuffle-offset-halved", Family::Indexing, kScopeDevice,
       "shuffle-reduction loop start `offset = 16` -> `offset = 16 / 2` (half the lanes fold)",
       [] {
         const auto var_ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsBoundNode("var")))));
         return match(
             forStmt(hasLoopInit(declStmt(hasSingleDecl(
                         varDecl(hasInitializer(expr().bind("init"))).bind("var")))),
                     hasIncrement(binaryOperator(hasAnyOperatorName(">>=", "/="),
                                                 hasLHS(var_ref))),
                     hasBody(hasDescendant(callExpr(
                         callee(functionDecl(hasAnyName("__shfl_down_sync", "__shfl_xor_sync",
                                                        "__shfl_up_sync"))),
                         hasArgument(2, var_ref)))))
                 .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* init = m.node<Expr>("init");
         const auto t = m.operand_text(init);
         if (!t) return std::nullopt;
         return m.replace(init, *t + " / 2");
       }},
      {"index-transpose-row-col", Family::Indexing, kScopeDevice,
       "subscript a[row * stride + col] -> a[col * stride + row]",
       [] {
         return match(arraySubscriptExpr(hasIndex(ignoringParenImpCasts(
             binaryOperator(hasOperatorName("+"),
                            hasLHS(ignoringParenImpCasts(binaryOperator(
                                hasOperatorName("*"), hasLHS(expr().bind("row")),
                                hasRHS(expr().bind("stride"))))),
                            hasRHS(expr().bind("col")))
                 .bind("site")))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* row = m.node<Expr>("row");
         const auto* col = m.node<Expr>("col");
         const auto* stride = m.node<Expr>("stride");
         if (!is_integer(row) || !is_integer(col) || !is_integer(stride)) return std::nullopt;
         if (isa<IntegerLiteral>(row->IgnoreParenImpCasts()) ||
             isa<IntegerLiteral>(col->IgnoreParenImpCasts())) {
           return std::nullopt;
         }
         const auto r = m.operand_text(row);
         const auto c = m.operand_text(col);
         const auto s = m.text(stride);
         if (!r || !c || !s || *r == *c) return std::nullopt;
         return m.replace(m.node<BinaryOperator>("site"), *c + " * " + *s + " + " + *r);
       }},
      {"index-swap-2d-subscript", Family::Indexing, kScopeDevice,
       "two-dimensional subscript a[i][j] -> a[j][i]",
       [] {
         return match(arraySubscriptExpr(hasBase(ignoringParenImpCasts(arraySubscriptExpr(
                                             hasIndex(expr().bind("inner"))))),
                                         hasIndex(expr().bind("outer")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* inner = m.node<Expr>("inner");
         const auto* outer = m.node<Expr>("outer");
         const auto ir = m.file_range(inner);
         const auto orr = m.file_range(outer);
         const auto it = m.text(ir);
         const auto ot = m.text(orr);
         const auto between = m.text_between(ir, orr);
         if (!it || !ot || !between || *it == *ot) return std::nullopt;
         // Only "][" (with optional spaces) may separate them.
         std::string sep;
         for (char c : *between) {
           if (c != ' ') sep += c;
         }
         if (sep != "][") return std::nullopt;
         return m.replace(clang::CharSourceRange::getCharRange(ir.getBegin(), orr.getEnd()),
                          *ot + *between + *it);
       }},
  };
}

}  // namespace kaudit::mutators::detail
