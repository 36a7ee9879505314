// Helpers shared by the rule families (see rule.h).
#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;

const ast_matchers::internal::VariadicDynCastAllOfMatcher<Stmt, MSPropertyRefExpr>
    msPropertyRefExpr;

const Expr* launch_config_arg(const CUDAKernelCallExpr* launch, unsigned index) {
  if (launch == nullptr) return nullptr;
  const CallExpr* config = launch->getConfig();
  if (config == nullptr || index >= config->getNumArgs()) return nullptr;
  const Expr* arg = config->getArg(index);
  if (isa<CXXDefaultArgExpr>(arg)) return nullptr;
  return strip(arg);
}

bool is_dim3(const Expr* e) {
  if (e == nullptr) return false;
  const CXXRecordDecl* record = e->getType()->getAsCXXRecordDecl();
  return record != nullptr && record->getName() == "dim3";
}

namespace {
bool accumulates(const Stmt* s, const VarDecl* var) {
  if (s == nullptr) return false;
  if (const auto* op = dyn_cast<BinaryOperator>(s)) {
    if (referenced_var(op->getLHS()) == var) {
      if (op->isCompoundAssignmentOp()) return true;
      if (op->getOpcode() == BO_Assign && references(op->getRHS(), var)) return true;
    }
  }
  for (const Stmt* child : s->children()) {
    if (accumulates(child, var)) return true;
  }
  return false;
}
}  // namespace

bool is_accumulator(const VarDecl* var, const Stmt* body) { return accumulates(body, var); }

}  // namespace kaudit::mutators::detail

namespace kaudit::mutators::detail {

using namespace clang;

bool is_arithmetic(const Expr* e) {
  if (e == nullptr) return false;
  const QualType t = e->getType();
  return !t.isNull() && !t->isDependentType() && t->isArithmeticType();
}

bool is_integer(const Expr* e) {
  if (e == nullptr) return false;
  const QualType t = e->getType();
  return !t.isNull() && !t->isDependentType() && t->isIntegerType() && !t->isBooleanType();
}

bool is_floating(const Expr* e) {
  if (e == nullptr) return false;
  const QualType t = e->getType();
  return !t.isNull() && !t->isDependentType() && t->isRealFloatingType();
}

bool is_float32(const Expr* e) {
  if (e == nullptr) return false;
  const QualType t = e->getType();
  if (t.isNull() || t->isDependentType()) return false;
  const auto* b = t.getCanonicalType()->getAs<BuiltinType>();
  return b != nullptr && b->getKind() == BuiltinType::Float;
}

bool is_pointer(const Expr* e) {
  if (e == nullptr) return false;
  const QualType t = e->getType();
  return !t.isNull() && !t->isDependentType() && t->isPointerType();
}

std::optional<Edit> swap_operator(const MatchContext& m, const BinaryOperator* op,
                                  std::string to) {
  if (op == nullptr) return std::nullopt;
  return m.replace_token(op->getOperatorLoc(), op->getOpcodeStr().str(), std::move(to));
}

std::optional<std::string> minus_one(const MatchContext& m, const Expr* e) {
  if (e == nullptr) return std::nullopt;
  const Expr* s = e->IgnoreParenImpCasts();
  if (const auto* lit = dyn_cast<IntegerLiteral>(s)) {
    const auto t = m.text(lit);
    const uint64_t v = lit->getValue().getLimitedValue();
    if (!t || v == 0 || !is_number_token(*t)) return std::nullopt;
    return respell_int_literal(*t, v - 1);
  }
  const auto t = m.operand_text(e);
  if (!t) return std::nullopt;
  return *t + " - 1";
}

std::optional<Edit> rewrite_config_x(const MatchContext& m, const Expr* arg,
                                     const std::string& op_suffix) {
  if (arg == nullptr) return std::nullopt;
  const auto t = m.text(arg);
  if (!t) return std::nullopt;
  if (is_dim3(arg)) {
    const std::string g = "(" + *t + ")";
    return m.replace(arg, "dim3(" + g + ".x" + op_suffix + ", " + g + ".y, " + g + ".z)");
  }
  const auto operand = m.operand_text(arg);
  if (!operand) return std::nullopt;
  return m.replace(arg, *operand + op_suffix);
}

}  // namespace kaudit::mutators::detail

namespace kaudit::mutators::detail {

using namespace clang;

std::optional<Edit> rename_called_function(const MatchContext& m, const CallExpr* call,
                                  const std::string& to) {
  if (call == nullptr) return std::nullopt;
  const auto* ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (ref == nullptr) return std::nullopt;
  return m.replace_token(ref->getLocation(), ref->getDecl()->getNameAsString(), to);
}

const DeclRefExpr* builtin_base(const MSPropertyRefExpr* p) {
  const Expr* base = p->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto* ove = dyn_cast<OpaqueValueExpr>(base)) base = ove->getSourceExpr();
  return base == nullptr ? nullptr : dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
}

std::optional<std::pair<std::string, std::string>> builtin_member(const MSPropertyRefExpr* p) {
  if (p == nullptr) return std::nullopt;
  const auto* base = builtin_base(p);
  if (base == nullptr || p->getPropertyDecl() == nullptr) return std::nullopt;
  return std::make_pair(base->getDecl()->getNameAsString(),
                        p->getPropertyDecl()->getNameAsString());
}

const MSPropertyRefExpr* builtin_property(const Expr* e) {
  while (e != nullptr) {
    e = e->IgnoreParenCasts();
    if (const auto* po = dyn_cast<PseudoObjectExpr>(e)) {
      e = po->getSyntacticForm();
      continue;
    }
    return dyn_cast<MSPropertyRefExpr>(e);
  }
  return nullptr;
}

namespace {
bool is_thread_idx_builtin(const Expr* e) {
  const auto bm = builtin_member(builtin_property(e));
  return bm && bm->first == "threadIdx";
}

bool reads_thread_index(const Stmt* s, int depth) {
  if (s == nullptr) return false;
  if (const auto* p = dyn_cast<MSPropertyRefExpr>(s)) {
    const auto bm = builtin_member(p);
    return bm && bm->first == "threadIdx";
  }
  if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
    const auto* v = dyn_cast<VarDecl>(ref->getDecl());
    return depth > 0 && v != nullptr && v->isLocalVarDecl() && v->hasInit() &&
           reads_thread_index(v->getInit(), depth - 1);
  }
  for (const Stmt* c : s->children()) {
    if (reads_thread_index(c, depth)) return true;
  }
  return false;
}

bool is_literal(const Expr* e, uint64_t value) {
  const auto* lit = dyn_cast<IntegerLiteral>(e->IgnoreParenImpCasts());
  return lit != nullptr && lit->getValue() == value;
}

bool is_warp_size(const Expr* e) {
  if (is_literal(e, 32)) return true;
  const auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref != nullptr && ref->getDecl()->getName() == "warpSize";
}
}  // namespace

bool is_thread_index(const Expr* e) {
  if (e == nullptr) return false;
  if (is_thread_idx_builtin(e)) return true;
  const auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenCasts());
  const auto* v = ref == nullptr ? nullptr : dyn_cast<VarDecl>(ref->getDecl());
  return v != nullptr && v->isLocalVarDecl() && v->hasInit() && is_thread_idx_builtin(v->getInit());
}

bool depends_on_thread_index(const Stmt* s) { return reads_thread_index(s, 3); }

bool is_lane_warp_split(const BinaryOperator* op) {
  if (op == nullptr || !is_thread_index(op->getLHS())) return false;
  switch (op->getOpcode()) {
    case BO_Rem:
    case BO_Div: return is_warp_size(op->getRHS());
    case BO_And: return is_literal(op->getRHS(), 31);
    case BO_Shr: return is_literal(op->getRHS(), 5);
    default: return false;
  }
}

bool is_tensor_type(QualType t) {
  t = t.getNonReferenceType();
  const CXXRecordDecl* r = t->getAsCXXRecordDecl();
  return r != nullptr && r->getName() == "Tensor";
}

}  // namespace kaudit::mutators::detail
