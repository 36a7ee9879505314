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
