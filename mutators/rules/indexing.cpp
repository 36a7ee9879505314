// Indexing family: thread/block coordinates, warp width, strides, axes, row offsets and the
// sizes the host wrapper reads.
// (Reference study: threadIdx.x->threadIdx.y, blockIdx.x->blockIdx.y, blockDim->gridDim,
// warpSize 32->16, stride/axis swap.)
#include <map>

#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

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


// `blockIdx.* * S + t` (either operand order, casts allowed): the block-offset term of a global
// index. Returns {the product, its blockIdx operand, the other addend}.
struct BlockOffset {
  const BinaryOperator* product;
  const Expr* block;
  const Expr* rest;
};

bool is_block_idx(const Expr* e) {
  const auto bm = builtin_member(builtin_property(e));
  return bm && bm->first == "blockIdx";
}

std::optional<BlockOffset> block_offset(const BinaryOperator* add) {
  if (add == nullptr || !is_integer(add)) return std::nullopt;
  for (const auto& [term, rest] : {std::pair{add->getLHS(), add->getRHS()},
                                   std::pair{add->getRHS(), add->getLHS()}}) {
    const auto* mul = dyn_cast<BinaryOperator>(term->IgnoreParenImpCasts());
    if (mul == nullptr || mul->getOpcode() != BO_Mul) continue;
    if (is_block_idx(mul->getLHS())) return BlockOffset{mul, mul->getLHS(), rest};
    if (is_block_idx(mul->getRHS())) return BlockOffset{mul, mul->getRHS(), rest};
  }
  return std::nullopt;
}

// Record types of the CUDA vector builtins (float4, int2, double2, ...).
bool is_cuda_vector(QualType t) {
  const CXXRecordDecl* r = t->getAsCXXRecordDecl();
  if (r == nullptr || r->getIdentifier() == nullptr) return false;
  const llvm::StringRef name = r->getName();
  if (name.empty() || name.back() < '1' || name.back() > '4') return false;
  const llvm::StringRef base = name.drop_back();
  return base == "float" || base == "double" || base == "int" || base == "uint" ||
         base == "long" || base == "longlong" || base == "short" || base == "char";
}

// The integer parameter that a row-stride parameter is confused with: the one declared just
// before it, or just after it when it is the first integer parameter.
const ParmVarDecl* neighbouring_int_param(const ParmVarDecl* p) {
  const auto* fn = dyn_cast_or_null<FunctionDecl>(p->getDeclContext());
  if (fn == nullptr) return nullptr;
  std::vector<const ParmVarDecl*> ints;
  for (const ParmVarDecl* q : fn->parameters()) {
    const QualType t = q->getType();
    if (!t->isDependentType() && t->isIntegerType() && !t->isBooleanType() &&
        !q->getName().empty()) {
      ints.push_back(q);
    }
  }
  for (size_t i = 0; i < ints.size(); ++i) {
    if (ints[i] != p) continue;
    if (i > 0) return ints[i - 1];
    if (i + 1 < ints.size()) return ints[i + 1];
  }
  return nullptr;
}

// `t.size(d)` with a literal d: {t's variable, d}.
std::optional<std::pair<const VarDecl*, uint64_t>> size_call(const Expr* e) {
  const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(e == nullptr ? nullptr : strip(e));
  if (call == nullptr || call->getMethodDecl() == nullptr ||
      call->getMethodDecl()->getName() != "size" || call->getNumArgs() != 1) {
    return std::nullopt;
  }
  const auto* lit = dyn_cast<IntegerLiteral>(call->getArg(0)->IgnoreParenImpCasts());
  const VarDecl* v = referenced_var(call->getImplicitObjectArgument());
  if (lit == nullptr || v == nullptr) return std::nullopt;
  return std::make_pair(v, lit->getValue().getLimitedValue());
}

// True if `s` compares `t.size(0) == t.size(1)` somewhere (a squareness check such as
// TORCH_CHECK(A.size(0) == A.size(1))): swapping those two sizes is then an equivalent mutant.
bool checks_square(const Stmt* s, const VarDecl* t) {
  if (s == nullptr) return false;
  if (const auto* op = dyn_cast<BinaryOperator>(s); op != nullptr && op->getOpcode() == BO_EQ) {
    const auto l = size_call(op->getLHS());
    const auto r = size_call(op->getRHS());
    if (l && r && l->first == t && r->first == t && l->second + r->second == 1) return true;
  }
  for (const Stmt* c : s->children()) {
    if (checks_square(c, t)) return true;
  }
  return false;
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
      {"index-lane-warp-swap", Family::Indexing, kScopeDevice,
       "lane id <-> warp id: tid % 32 <-> tid / 32 (warpSize likewise), tid & 31 <-> tid >> 5",
       [] { return match(binaryOperator(hasAnyOperatorName("%", "/", "&", ">>")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (!is_lane_warp_split(op)) return std::nullopt;
         const auto lhs = m.text(op->getLHS());
         if (!lhs) return std::nullopt;
         switch (op->getOpcode()) {
           case BO_Rem: return swap_operator(m, op, "/");
           case BO_Div: return swap_operator(m, op, "%");
           case BO_And: return m.replace(op, *lhs + " >> 5");
           // `&` binds more loosely than `>>`, hence the parentheses.
           case BO_Shr: return m.replace(op, "(" + *lhs + " & 31)");
           default: return std::nullopt;
         }
       }},
      {"index-drop-block-offset", Family::Indexing, kScopeDevice,
       "block offset dropped from a global index: blockIdx.x * blockDim.x + threadIdx.x -> "
       "threadIdx.x (every block works on the first block's elements)",
       [] { return match(binaryOperator(hasOperatorName("+")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* add = m.node<BinaryOperator>("site");
         const auto off = block_offset(add);
         if (!off) return std::nullopt;
         const auto t = m.text(off->rest);
         if (!t) return std::nullopt;
         return m.replace(add, *t);
       }},
      {"index-block-offset-unscaled", Family::Indexing, kScopeDevice,
       "block offset not scaled by the block/tile size: blockIdx.x * blockDim.x + t -> "
       "blockIdx.x + t",
       [] { return match(binaryOperator(hasOperatorName("+")).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto off = block_offset(m.node<BinaryOperator>("site"));
         if (!off) return std::nullopt;
         const auto t = m.text(off->block);
         if (!t) return std::nullopt;
         return m.replace(off->product, *t);
       }},
      {"index-drop-row-offset", Family::Indexing, kScopeDevice,
       "row/batch pointer offset dropped: const float* row = x + r * D -> x (all rows read row 0)",
       [] {
         return match(varDecl(hasType(pointerType()),
                              hasInitializer(ignoringParenImpCasts(
                                  binaryOperator(hasOperatorName("+")).bind("init"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         // Walk down `((x + a) + b)` to the base pointer x.
         const Expr* base = m.node<BinaryOperator>("init");
         while (const auto* add = dyn_cast<BinaryOperator>(base->IgnoreParenImpCasts())) {
           if (add->getOpcode() != BO_Add || !is_pointer(add->getLHS()) ||
               !is_integer(add->getRHS())) {
             break;
           }
           base = add->getLHS();
         }
         if (base == m.node<Expr>("init") || referenced_var(base) == nullptr) return std::nullopt;
         const auto t = m.text(base);
         if (!t) return std::nullopt;
         return m.replace(m.node<Expr>("init"), *t);
       }},
      {"index-subscript-drop-row", Family::Indexing, kScopeDevice,
       "row term dropped from a flat subscript: a[row * stride + col] -> a[col]",
       [] {
         return match(arraySubscriptExpr(hasIndex(ignoringParenImpCasts(
             binaryOperator(hasOperatorName("+"),
                            hasLHS(ignoringParenImpCasts(binaryOperator(hasOperatorName("*")))),
                            hasRHS(expr().bind("col")))
                 .bind("site")))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* add = m.node<BinaryOperator>("site");
         const auto* col = m.node<Expr>("col");
         if (!is_integer(add) || isa<IntegerLiteral>(col->IgnoreParenImpCasts())) {
           return std::nullopt;
         }
         const auto t = m.text(col);
         if (!t) return std::nullopt;
         return m.replace(add, *t);
       }},
      {"index-stride-wrong-dim", Family::Indexing, kScopeDevice,
       "row stride is the wrong dimension: a[r * W + c] -> a[r * H + c] (the stride parameter "
       "replaced by the integer parameter declared next to it)",
       [] {
         const auto mul = binaryOperator(
             hasOperatorName("*"),
             hasRHS(ignoringParenImpCasts(declRefExpr(to(parmVarDecl())).bind("stride"))));
         return match(arraySubscriptExpr(hasIndex(ignoringParenImpCasts(
             anyOf(mul, binaryOperator(hasOperatorName("+"),
                                       hasLHS(ignoringParenImpCasts(mul))))))).bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* ref = m.node<DeclRefExpr>("stride");
         const auto* p = dyn_cast<ParmVarDecl>(ref->getDecl());
         if (p == nullptr || !is_integer(ref)) return std::nullopt;
         const ParmVarDecl* other = neighbouring_int_param(p);
         if (other == nullptr) return std::nullopt;
         return m.replace_token(ref->getLocation(), p->getName(), other->getNameAsString());
       }},
      {"index-vector-lane-swap", Family::Indexing, kScopeDevice,
       "vector component mixed up: v.x <-> v.y, v.z <-> v.w (float4, float2, int4, ...)",
       [] { return match(memberExpr(member(fieldDecl(hasAnyName("x", "y", "z", "w")))).bind("site")); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* me = m.node<MemberExpr>("site");
         const QualType base = me->getBase()->getType();
         const QualType record = me->isArrow() ? base->getPointeeType() : base;
         if (record.isNull() || !is_cuda_vector(record)) return std::nullopt;
         const std::string name = me->getMemberDecl()->getNameAsString();
         static const std::map<std::string, std::string> swap = {
             {"x", "y"}, {"y", "x"}, {"z", "w"}, {"w", "z"}};
         // float3 has no w: z stays put there.
         const auto* rd = record->getAsCXXRecordDecl();
         const std::string to = swap.at(name);
         bool has_target = false;
         for (const FieldDecl* f : rd->fields()) has_target |= f->getName() == to;
         if (!has_target) return std::nullopt;
         return m.replace_token(me->getMemberLoc(), name, to);
       }},
      {"index-size-dim-swap", Family::Indexing, kScopeLaunch,
       "wrapper reads the wrong dimension for the launch: t.size(0) <-> t.size(1) (not when "
       "the wrapper checks t.size(0) == t.size(1))",
       [] {
         return match(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("size"))), argumentCountIs(1),
                                        hasArgument(0, ignoringParenImpCasts(
                                                           integerLiteral().bind("dim"))),
                                        forFunction(functionDecl().bind("fn")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CXXMemberCallExpr>("site");
         const auto* dim = m.node<IntegerLiteral>("dim");
         if (!is_tensor_type(call->getImplicitObjectArgument()->getType())) return std::nullopt;
         const uint64_t d = dim->getValue().getLimitedValue();
         const auto sc = size_call(call);
         if (d > 1 || !sc || checks_square(m.node<FunctionDecl>("fn")->getBody(), sc->first)) {
           return std::nullopt;
         }
         return m.replace_token(dim->getLocation(), d == 0 ? "0" : "1", d == 0 ? "1" : "0");
       }},
  };
}

}  // namespace kaudit::mutators::detail
