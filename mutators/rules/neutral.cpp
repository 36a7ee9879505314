// Neutral rewrites: changes a correct kernel may legitimately differ by -- rounding order and block
// size -- that are never counted as mutants. The audit adds the variants they produce to a task's
// correct set, so an input on which a legitimate reordering leaves the witness tolerance is not
// legal (the reference study's legality gate: "rewrites that only change rounding order or block
// size"). A rewrite that breaks a kernel (a block size the kernel hard-codes elsewhere) is caught
// by the audit's sanity runs and that variant is dropped, never used as a member.
#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

// The integer literal that initialises the local variable a launch's block argument names
// (`const int threads = 256; k<<<g, threads>>>`): changing it moves the grid arithmetic along.
const IntegerLiteral* block_size_literal(const MatchContext& m) {
  const Expr* block = launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 1);
  if (block == nullptr || is_dim3(block)) return nullptr;
  const auto* ref = dyn_cast<DeclRefExpr>(block->IgnoreParenImpCasts());
  if (ref == nullptr) return nullptr;
  const auto* var = dyn_cast<VarDecl>(ref->getDecl());
  if (var == nullptr || !var->hasInit() || !var->isLocalVarDecl()) return nullptr;
  return dyn_cast<IntegerLiteral>(var->getInit()->IgnoreParenImpCasts());
}

std::optional<Edit> scale_block_size(const MatchContext& m, bool doubled) {
  const IntegerLiteral* lit = block_size_literal(m);
  if (lit == nullptr) return std::nullopt;
  const uint64_t v = lit->getValue().getZExtValue();
  // Powers of two from two warps up: tree reductions stay well formed; 1024 is the CUDA limit.
  if (v < 64 || (v & (v - 1)) != 0) return std::nullopt;
  const uint64_t to = doubled ? v * 2 : v / 2;
  if (to < 32 || to > 1024) return std::nullopt;
  return m.replace(lit, std::to_string(to));
}

}  // namespace

std::vector<RuleDef> neutral_rules() {
  return {
      {"neutral-fma-contract", Family::Neutral, kScopeDevice,
       "float a * b + c -> fmaf(a, b, c) (one rounding instead of two, as nvcc's default "
       "contraction does)",
       [] {
         return match(binaryOperator(hasOperatorName("+"),
                                     hasEitherOperand(ignoringParenImpCasts(
                                         binaryOperator(hasOperatorName("*")).bind("mul"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* add = m.node<BinaryOperator>("site");
         const auto* mul = m.node<BinaryOperator>("mul");
         if (!is_float32(add) || !is_float32(mul->getLHS()) || !is_float32(mul->getRHS()))
           return std::nullopt;
         const Expr* other = add->getLHS()->IgnoreParenImpCasts() == mul ? add->getRHS() : add->getLHS();
         if (!is_float32(other)) return std::nullopt;
         const auto a = m.text(mul->getLHS());
         const auto b = m.text(mul->getRHS());
         const auto c = m.text(other);
         if (!a || !b || !c) return std::nullopt;
         return m.replace(add, "fmaf(" + *a + ", " + *b + ", " + *c + ")");
       }},
      {"neutral-reassociate-add", Family::Neutral, kScopeDevice,
       "float (a + b) + c -> a + (b + c) (another summation order)",
       [] {
         return match(binaryOperator(hasOperatorName("+"),
                                     hasLHS(ignoringParenImpCasts(
                                         binaryOperator(hasOperatorName("+")).bind("inner"))))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* outer = m.node<BinaryOperator>("site");
         const auto* inner = m.node<BinaryOperator>("inner");
         if (!is_float32(outer) || !is_float32(inner->getLHS()) || !is_float32(inner->getRHS()) ||
             !is_float32(outer->getRHS()))
           return std::nullopt;
         const auto a = m.operand_text(inner->getLHS());
         const auto b = m.operand_text(inner->getRHS());
         const auto c = m.operand_text(outer->getRHS());
         if (!a || !b || !c) return std::nullopt;
         return m.replace(outer, "(" + *a + " + (" + *b + " + " + *c + "))");
       }},
      {"neutral-block-size-halved", Family::Neutral, kScopeHost,
       "const int threads = 256; k<<<g, threads>>> -> threads = 128 (the grid arithmetic follows)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) { return scale_block_size(m, false); }},
      {"neutral-block-size-doubled", Family::Neutral, kScopeHost,
       "const int threads = 256; k<<<g, threads>>> -> threads = 512 (the grid arithmetic follows)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) { return scale_block_size(m, true); }},
  };
}

}  // namespace kaudit::mutators::detail
