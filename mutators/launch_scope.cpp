// Scope classification (see mutators.h, enum Scope).
//
// Launch arithmetic is found by a small def-use walk: start from every <<<grid, block, smem>>>
// argument (the stream is left alone) and every kernel argument of every launch, then add the
// initialiser and every assigned value of each local variable those expressions read, until no
// new variable appears. For
//     const int threads = 256;
//     long long blocks = (n + threads - 1) / threads;
//     if (blocks > 4096) blocks = 4096;
//     k<<<(unsigned)blocks, threads>>>(x, y, n);
// the launch scope is `(unsigned)blocks`, `threads`, `x`, `y`, `n`, `256`,
// `(n + threads - 1) / threads`, `4096` and the initialisers of x, y and n -- but not the
// condition `blocks > 4096` nor TORCH_CHECK conditions.
#include "mutators/launch_scope.h"

#include <map>
#include <optional>
#include <set>

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "mutators/ast_util.h"
#include "mutators/mutators.h"

namespace kaudit::mutators::detail {

using namespace clang;

namespace {

std::optional<OffsetRange> main_offsets(const ASTContext& ctx, SourceRange range) {
  if (range.isInvalid()) return std::nullopt;
  const SourceManager& sm = ctx.getSourceManager();
  CharSourceRange cr = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(range), sm,
                                                ctx.getLangOpts());
  if (cr.isInvalid()) return std::nullopt;
  const FileID main = sm.getMainFileID();
  if (sm.getFileID(cr.getBegin()) != main || sm.getFileID(cr.getEnd()) != main) {
    return std::nullopt;
  }
  const size_t b = sm.getFileOffset(cr.getBegin());
  const size_t e = sm.getFileOffset(cr.getEnd());
  if (b > e) return std::nullopt;
  return OffsetRange{b, e};
}

class Collector : public RecursiveASTVisitor<Collector> {
 public:
  explicit Collector(const ASTContext& ctx, ScopeMap& out) : ctx_(ctx), out_(out) {}

  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (!fd->doesThisDeclarationHaveABody()) return true;
    const auto r = main_offsets(ctx_, fd->getSourceRange());
    if (!r) return true;
    const bool device = fd->hasAttr<CUDAGlobalAttr>() || fd->hasAttr<CUDADeviceAttr>();
    const bool host = !device || fd->hasAttr<CUDAHostAttr>();
    if (device) out_.device.push_back(*r);
    if (host) out_.host.push_back(*r);
    return true;
  }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* e) {
    launches.push_back(e);
    return true;
  }
  bool VisitVarDecl(VarDecl* v) {
    if (v->hasInit()) values[v].push_back(v->getInit());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator* op) {
    if (op->isAssignmentOp()) {
      if (const VarDecl* v = referenced_var(op->getLHS())) values[v].push_back(op->getRHS());
    }
    return true;
  }

  std::vector<const CUDAKernelCallExpr*> launches;
  std::map<const VarDecl*, std::vector<const Expr*>> values;

 private:
  const ASTContext& ctx_;
  ScopeMap& out_;
};

void collect_vars(const Stmt* s, std::vector<const VarDecl*>& vars) {
  if (s == nullptr) return;
  if (const auto* dre = dyn_cast<DeclRefExpr>(s)) {
    if (const auto* v = dyn_cast<VarDecl>(dre->getDecl())) {
      if (v->isLocalVarDecl() && !isa<ParmVarDecl>(v)) vars.push_back(v);
    }
  }
  for (const Stmt* child : s->children()) collect_vars(child, vars);
}

}  // namespace

bool ScopeMap::allows(unsigned scopes, size_t begin, size_t end) const {
  const auto inside = [&](const std::vector<OffsetRange>& ranges) {
    for (const auto& [b, e] : ranges) {
      if (begin >= b && end <= e) return true;
    }
    return false;
  };
  return ((scopes & kScopeDevice) != 0 && inside(device)) ||
         ((scopes & kScopeLaunch) != 0 && inside(launch)) ||
         ((scopes & kScopeHost) != 0 && inside(host));
}

ScopeMap compute_scopes(ASTContext& context) {
  ScopeMap out;
  Collector collector(context, out);
  collector.TraverseDecl(context.getTranslationUnitDecl());

  std::set<const VarDecl*> seen;
  std::vector<const Expr*> work;
  for (const CUDAKernelCallExpr* launch : collector.launches) {
    if (const CallExpr* config = launch->getConfig()) {
      for (unsigned i = 0; i < config->getNumArgs() && i < 3; ++i) {
        if (!isa<CXXDefaultArgExpr>(config->getArg(i))) work.push_back(config->getArg(i));
      }
    }
    for (const Expr* arg : launch->arguments()) work.push_back(arg);
  }
  while (!work.empty()) {
    const Expr* e = work.back();
    work.pop_back();
    if (const auto r = main_offsets(context, e->getSourceRange())) out.launch.push_back(*r);
    std::vector<const VarDecl*> vars;
    collect_vars(e, vars);
    for (const VarDecl* v : vars) {
      if (!seen.insert(v).second) continue;
      const auto it = collector.values.find(v);
      if (it == collector.values.end()) continue;
      for (const Expr* value : it->second) work.push_back(value);
    }
  }
  return out;
}

}  // namespace kaudit::mutators::detail
