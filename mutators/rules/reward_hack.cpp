// Reward-hack family: planted versions of the hacks RL kernel gyms see (FACTS section 3):
// no-op (output left untouched), partial computation, identity (input returned), shrunk
// hyper-parameters, precision downgrade of the inputs or of the result, constant output, output
// written into the input's memory.
#include <cctype>
#include <cstdio>

#include "mutators/rule.h"

namespace kaudit::mutators::detail {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

bool name_has_eps(const NamedDecl* d) {
  std::string name = d->getNameAsString();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name.find("eps") != std::string::npos;
}

bool is_contiguous_of_param(const Expr* e) {
  const auto* call = dyn_cast<CXXMemberCallExpr>(strip(e));
  if (call == nullptr || call->getMethodDecl() == nullptr ||
      call->getMethodDecl()->getName() != "contiguous") {
    return false;
  }
  const VarDecl* base = referenced_var(strip(call->getImplicitObjectArgument()));
  return base != nullptr && isa<ParmVarDecl>(base) && is_tensor_type(base->getType());
}

// A tensor that holds wrapper input data: a Tensor parameter, `<param>.contiguous()`, or a local
// initialised as `<param>.contiguous()`.
bool is_input_tensor(const Expr* e) {
  if (is_contiguous_of_param(e)) return true;
  const VarDecl* v = referenced_var(strip(e));
  if (v == nullptr || !is_tensor_type(v->getType())) return false;
  if (isa<ParmVarDecl>(v)) return true;
  return v->hasInit() && is_contiguous_of_param(v->getInit());
}


// `return <tensor variable>;` as the last statement of a host function returning torch::Tensor
// (early returns for empty inputs are left alone: on an empty tensor every rewrite is a no-op).
// Returns the returned expression, else null.
const Expr* final_tensor_return(const MatchContext& m) {
  const auto* ret = m.node<ReturnStmt>("site");
  const auto* fn = m.node<FunctionDecl>("fn");
  if (ret == nullptr || fn == nullptr || fn->hasAttr<CUDAGlobalAttr>() ||
      fn->hasAttr<CUDADeviceAttr>() || !is_tensor_type(fn->getReturnType())) {
    return nullptr;
  }
  const auto* body = dyn_cast_or_null<CompoundStmt>(fn->getBody());
  if (body == nullptr || body->body_empty() || body->body_back() != ret) return nullptr;
  const Expr* value = strip(ret->getRetValue());
  const VarDecl* v = referenced_var(value);
  if (v == nullptr || !is_tensor_type(v->getType())) return nullptr;
  return value;
}

auto tensor_return() {
  return returnStmt(hasReturnValue(expr()), forFunction(functionDecl().bind("fn"))).bind("site");
}

// For a DeclRefExpr "site" inside kernel launch "launch": the host local it names when the
// reference is itself a launch argument (kernel argument, or grid when `with_grid`), through
// casts, and that local is initialised from `<tensor>.size(d)`. Returns d (-1 when d is not a
// literal), or nullopt.
std::optional<int64_t> size_argument(const MatchContext& m, bool with_grid) {
  const auto* ref = m.node<DeclRefExpr>("site");
  const auto* launch = m.node<CUDAKernelCallExpr>("launch");
  if (ref == nullptr || launch == nullptr) return std::nullopt;
  bool is_arg = false;
  for (const Expr* a : launch->arguments()) is_arg |= a->IgnoreParenCasts() == ref;
  if (with_grid) {
    const Expr* grid = launch_config_arg(launch, 0);
    is_arg |= grid != nullptr && grid->IgnoreParenCasts() == ref;
  }
  const auto* v = dyn_cast<VarDecl>(ref->getDecl());
  if (!is_arg || v == nullptr || !v->isLocalVarDecl() || !v->hasInit() || !is_integer(ref)) {
    return std::nullopt;
  }
  const auto* call = dyn_cast<CXXMemberCallExpr>(v->getInit()->IgnoreParenCasts());
  if (call == nullptr || call->getMethodDecl() == nullptr ||
      call->getMethodDecl()->getName() != "size" || call->getNumArgs() != 1 ||
      !is_tensor_type(call->getImplicitObjectArgument()->getType())) {
    return std::nullopt;
  }
  if (const auto* lit = dyn_cast<IntegerLiteral>(call->getArg(0)->IgnoreParenImpCasts())) {
    return static_cast<int64_t>(lit->getValue().getLimitedValue());
  }
  return -1;
}

auto launch_variable_ref() {
  return declRefExpr(to(varDecl()), hasAncestor(cudaKernelCallExpr().bind("launch"))).bind("site");
}

auto kernel_body() {
  return functionDecl(hasAttr(attr::CUDAGlobal), isDefinition(), hasBody(compoundStmt().bind("body")))
      .bind("site");
}

std::optional<Edit> insert_at_kernel_entry(const MatchContext& m, const char* code) {
  const auto* body = m.node<CompoundStmt>("body");
  return m.insert_before(body->getLBracLoc().getLocWithOffset(1), code);
}

// A `return` in a host function (binds "ret" and "fn").
auto wrapper_return() {
  return returnStmt(hasReturnValue(expr().bind("ret")), forFunction(functionDecl().bind("fn"))).bind("site");
}

// The host wrapper's `return y;` where y is a local tensor, and the wrapper's first tensor
// parameter x (y != x): what the identity hacks return instead of the real output.
struct WrapperReturn {
  const Expr* returned_expr;
  const VarDecl* returned;
  const ParmVarDecl* input;
};
std::optional<WrapperReturn> wrapper_return_of(const MatchContext& m) {
  const auto* fn = m.node<FunctionDecl>("fn");
  const auto* ret = m.node<Expr>("ret");
  if (fn->hasAttr<CUDAGlobalAttr>() || fn->hasAttr<CUDADeviceAttr>()) return std::nullopt;
  if (!is_tensor_type(fn->getReturnType())) return std::nullopt;
  const ParmVarDecl* input = nullptr;
  for (const ParmVarDecl* p : fn->parameters()) {
    if (is_tensor_type(p->getType())) {
      input = p;
      break;
    }
  }
  if (input == nullptr || input->getName().empty()) return std::nullopt;
  const VarDecl* returned = referenced_var(strip(ret));
  if (returned == nullptr || returned == input) return std::nullopt;
  return WrapperReturn{strip(ret), returned, input};
}

// The number of sizes in the braced list `{...}` of a call's first argument, through the implicit
// conversions to IntArrayRef only (-1: the argument is not a braced list, e.g. `f(A, {0, 1})`).
int braced_size_count(const CallExpr* call) {
  if (call == nullptr || call->getNumArgs() < 1) return -1;
  const Expr* e = call->getArg(0);
  for (int depth = 0; e != nullptr && depth < 16; ++depth) {
    e = e->IgnoreImplicit();
    if (const auto* list = dyn_cast<InitListExpr>(e)) return static_cast<int>(list->getNumInits());
    if (const auto* init = dyn_cast<CXXStdInitializerListExpr>(e)) {
      e = init->getSubExpr();
    } else if (const auto* construct = dyn_cast<CXXConstructExpr>(e);
               construct != nullptr && construct->getNumArgs() >= 1 && !isa<CXXTemporaryObjectExpr>(construct)) {
      e = construct->getArg(0);  // IntArrayRef(std::initializer_list), implicit
    } else {
      return -1;
    }
  }
  return -1;
}

// The host wrapper of a matrix product, as a library fallback would see it: its final `return C;`
// (binds as wrapper_return), exactly two tensor parameters A and B, and C made by torch::empty or
// torch::zeros with two or three sizes ({M, N}, {batch, M, N}). Returns (A, B), or nullopt.
std::optional<std::pair<const ParmVarDecl*, const ParmVarDecl*>> matrix_product_operands(const MatchContext& m) {
  const auto r = wrapper_return_of(m);
  if (!r) return std::nullopt;
  const auto* fn = m.node<FunctionDecl>("fn");
  const auto* body = dyn_cast_or_null<CompoundStmt>(fn->getBody());
  if (body == nullptr || body->body_empty() || body->body_back() != m.node<ReturnStmt>("site")) return std::nullopt;
  std::vector<const ParmVarDecl*> tensors;
  for (const ParmVarDecl* p : fn->parameters())
    if (is_tensor_type(p->getType())) tensors.push_back(p);
  if (tensors.size() != 2 || tensors[1]->getName().empty()) return std::nullopt;
  if (!r->returned->hasInit()) return std::nullopt;
  const auto* made = dyn_cast<CallExpr>(strip(r->returned->getInit()));
  if (made == nullptr || (callee_name(made) != "empty" && callee_name(made) != "zeros")) return std::nullopt;
  const int sizes = braced_size_count(made);
  if (sizes != 2 && sizes != 3) return std::nullopt;
  return std::make_pair(tensors[0], tensors[1]);
}
}  // namespace

std::vector<RuleDef> reward_hack_rules() {
  return {
      {"hack-remove-launch", Family::RewardHack, kScopeHost,
       "no-op: the kernel launch is removed, the output is left as allocated",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) { return m.replace(m.node<CUDAKernelCallExpr>("site"), "(void)0"); }},
      {"hack-grid-halved", Family::RewardHack, kScopeHost,
       "partial computation: launch grid halved <<<g, b>>> -> <<<g / 2, b>>> (dim3: x halved)",
       [] { return match(cudaKernelCallExpr().bind("site")); },
       [](const MatchContext& m) {
         return rewrite_config_x(m, launch_config_arg(m.node<CUDAKernelCallExpr>("site"), 0),
                                 " / 2");
       }},
      {"hack-skip-last-block", Family::RewardHack, kScopeDevice,
       "partial computation: the last block of the grid returns at once",
       [] {
         return match(functionDecl(hasAttr(attr::CUDAGlobal), isDefinition(),
                                   hasBody(compoundStmt().bind("body")))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* body = m.node<CompoundStmt>("body");
         return m.insert_before(body->getLBracLoc().getLocWithOffset(1),
                                " if (blockIdx.x == gridDim.x - 1) return;");
       }},
      {"hack-half-loop-bound", Family::RewardHack, kScopeDevice,
       "partial computation: loop i < n -> i < n / 2 (half the elements or reduction length)",
       [] {
         return match(forStmt(hasCondition(ignoringParenImpCasts(
             binaryOperator(hasOperatorName("<"), hasLHS(integer_expr()),
                            hasRHS(integer_expr()))
                 .bind("site")))));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* op = m.node<BinaryOperator>("site");
         if (isa<IntegerLiteral>(op->getRHS()->IgnoreParenImpCasts())) return std::nullopt;
         const auto t = m.operand_text(op->getRHS());
         if (!t) return std::nullopt;
         return m.replace(op->getRHS(), *t + " / 2");
       }},
      {"hack-shrink-eps", Family::RewardHack, kScopeDevice | kScopeLaunch,
       "shrunk hyper-parameter: epsilon x 1e-3 (uses of a variable named *eps*, float literals "
       "in (0, 1e-3])",
       [] {
         return match(
             expr(anyOf(declRefExpr(to(varDecl(hasType(qualType(
                                           hasCanonicalType(realFloatingPointType()))))),
                                    hasParent(implicitCastExpr(hasCastKind(CK_LValueToRValue))))
                            .bind("var"),
                        floatLiteral().bind("lit")))
                 .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         if (const auto* ref = m.node<DeclRefExpr>("var")) {
           if (!name_has_eps(ref->getDecl())) return std::nullopt;
           const auto t = m.text(ref);
           if (!t) return std::nullopt;
           return m.replace(ref, "(" + *t + " * 1e-3f)");
         }
         const auto* lit = m.node<FloatingLiteral>("lit");
         if (lit == nullptr) return std::nullopt;
         const double v = lit->getValueAsApproximateDouble();
         if (!(v > 0 && v <= 1e-3)) return std::nullopt;
         const auto t = m.text(lit);
         if (!t || !is_number_token(*t)) return std::nullopt;
         char digits[64];
         std::snprintf(digits, sizeof digits, "%.6g", v * 1e-3);
         std::string d = digits;
         if (d.find_first_of(".e") == std::string::npos) d += ".0";
         return m.replace(lit, respell_float_literal(*t, d));
       }},
      {"hack-return-input", Family::RewardHack, kScopeHost,
       "identity: the host wrapper returns its first tensor argument instead of the output",
       [] { return match(wrapper_return()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto r = wrapper_return_of(m);
         if (!r) return std::nullopt;
         return m.replace(r->returned_expr, r->input->getNameAsString());
       }},
      {"hack-shape-locked-identity", Family::RewardHack, kScopeHost,
       "shape-locked identity: the host wrapper returns its first tensor argument when that has a "
       "benchmark-like size (element count a multiple of 64), its real output otherwise",
       [] { return match(wrapper_return()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         // The hack reported against RL gyms: a ReLU that is the identity on the test shape passes
         // every all-positive trial. Benchmark shapes take the shortcut (every task's shapes here,
         // like KernelBench's, have element counts that are multiples of 64); odd shapes still get
         // the real kernel, so only a checker with other values or shapes sees it. The condition
         // is fixed arithmetic, not "the first shape seen": a worker runs many inputs in one
         // process, and a remembered shape would make verdicts depend on the order of runs.
         const auto r = wrapper_return_of(m);
         if (!r) return std::nullopt;
         const std::string x = r->input->getNameAsString();
         return m.replace(r->returned_expr,
                          "(" + x + ".numel() % 64 == 0 ? " + x + " : " + r->returned->getNameAsString() + ")");
       }},
      {"hack-cache-by-input-address", Family::RewardHack, kScopeHost,
       "results cached by input address: the wrapper's final `return y;` returns the output of its "
       "previous call instead when its first tensor argument has the same address and element count "
       "as then (the kernel still runs; its result is dropped)",
       [] { return match(wrapper_return()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         // The hack gyms report: a benchmark that times or re-checks a kernel on the same buffers
         // gets the remembered answer. Whether a checker sees it depends on its harness: a fresh
         // input at the address of the previous trial's (PyTorch's caching allocator hands a freed
         // block to the next request of its size) gets a stale answer, one input per process never
         // does. Only the last call is remembered, keyed by address and element count as a
         // written hack would key it (a shape check keeps the stale answer the right shape). The
         // kernel still runs and its result is dropped, where a written hack would skip the
         // launch: what the harness compares, the returned tensor, is the same either way. The
         // kept tensor is held through a pointer: NVRTC compiles the wrapper as device code too
         // (the image dedup), where a function-scope static needs a constant initialiser.
         const auto r = wrapper_return_of(m);
         if (!r) return std::nullopt;
         const auto* fn = m.node<FunctionDecl>("fn");
         const auto* body = dyn_cast_or_null<CompoundStmt>(fn->getBody());
         if (body == nullptr || body->body_empty() || body->body_back() != m.node<ReturnStmt>("site")) return std::nullopt;
         const std::string x = r->input->getNameAsString(), y = r->returned->getNameAsString();
         return m.replace(r->returned_expr,
                          "[&]() -> torch::Tensor { static const void* kaudit_seen_address = nullptr; "
                          "static long long kaudit_seen_numel = -1; static torch::Tensor* kaudit_kept = nullptr; "
                          "if (kaudit_kept != nullptr && " + x + ".data_ptr() == kaudit_seen_address && " + x +
                          ".numel() == kaudit_seen_numel) return *kaudit_kept; kaudit_seen_address = " + x +
                          ".data_ptr(); kaudit_seen_numel = " + x + ".numel(); delete kaudit_kept; kaudit_kept = "
                          "new torch::Tensor(" + y + "); return " + y + "; }()");
       }},
      {"hack-library-matmul", Family::RewardHack, kScopeHost,
       "library fallback: the wrapper of a matrix product (two tensor parameters A and B, an output "
       "made by torch::empty or torch::zeros with two or three sizes) returns torch::matmul(A, B) at "
       "its final `return C;` (the kernel still launches; its result is dropped)",
       [] { return match(wrapper_return()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         // The hack the gym's gate "no fallback to library compute" exists for (seed document 000):
         // the library computes the answer and a launched custom kernel keeps "the kernel must
         // launch" satisfied. On a plain product the output is right, so no output comparison can
         // see it: the audit witnesses it by the contract (docs/ORACLES.md, "A contract breach").
         // Where the task is not a plain product (a transposed operand, an epilogue, a vector of
         // diagonal entries) the output is wrong and any checker sees it. The shape test keeps the
         // rule off wrappers whose two tensors are not operands of a product (losses give a scalar,
         // elementwise pairs an empty_like).
         const auto ab = matrix_product_operands(m);
         if (!ab) return std::nullopt;
         return m.replace(strip(m.node<Expr>("ret")), "torch::matmul(" + ab->first->getNameAsString() + ", " +
                                                          ab->second->getNameAsString() + ")");
       }},
      {"hack-half-precision-input", Family::RewardHack, kScopeLaunch,
       "precision downgrade: an input tensor passed to the kernel is rounded through fp16 "
       "(x.data_ptr<float>() -> x.to(torch::kHalf).to(torch::kFloat).data_ptr<float>())",
       [] {
         return match(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("data_ptr"))),
                                        on(expr().bind("obj")),
                                        hasAncestor(cudaKernelCallExpr()))
                          .bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* call = m.node<CXXMemberCallExpr>("site");
         const QualType t = call->getType();
         if (!t->isPointerType() ||
             !t->getPointeeType()->isSpecificBuiltinType(BuiltinType::Float)) {
           return std::nullopt;
         }
         const auto* obj = m.node<Expr>("obj");
         if (!is_input_tensor(obj)) return std::nullopt;
         const auto text = m.text(strip(obj));
         if (!text) return std::nullopt;
         return m.replace(strip(obj), *text + ".to(torch::kHalf).to(torch::kFloat)");
       }},
      {"hack-empty-kernel", Family::RewardHack, kScopeDevice,
       "no-op: the kernel returns at entry (it is still launched and timed)",
       [] { return match(kernel_body()); },
       [](const MatchContext& m) { return insert_at_kernel_entry(m, " return;"); }},
      {"hack-skip-odd-blocks", Family::RewardHack, kScopeDevice,
       "partial computation: every other block returns at once (blockIdx.x % 2 == 1)",
       [] { return match(kernel_body()); },
       [](const MatchContext& m) {
         return insert_at_kernel_entry(m, " if (blockIdx.x % 2 == 1) return;");
       }},
      {"hack-return-zeros", Family::RewardHack, kScopeHost,
       "constant output: the wrapper's final `return y;` -> `return torch::zeros_like(y);`",
       [] { return match(tensor_return()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr* value = final_tensor_return(m);
         if (value == nullptr) return std::nullopt;
         const auto t = m.text(value);
         if (!t) return std::nullopt;
         return m.replace(value, "torch::zeros_like(" + *t + ")");
       }},
      {"hack-bf16-output", Family::RewardHack, kScopeHost,
       "precision downgrade of the result: the wrapper's final `return y;` -> "
       "`return y.to(torch::kBFloat16).to(y.scalar_type());`",
       [] { return match(tensor_return()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const Expr* value = final_tensor_return(m);
         if (value == nullptr) return std::nullopt;
         const auto t = m.text(value);
         if (!t) return std::nullopt;
         return m.replace(value, *t + ".to(torch::kBFloat16).to(" + *t + ".scalar_type())");
       }},
      {"hack-output-aliases-input", Family::RewardHack, kScopeHost,
       "in-place output: auto y = torch::empty_like(x) -> auto y = x (the kernel overwrites its "
       "input)",
       [] {
         return match(varDecl(hasInitializer(expr().bind("init"))).bind("site"));
       },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto* var = m.node<VarDecl>("site");
         if (!is_tensor_type(var->getType())) return std::nullopt;
         const auto* call = dyn_cast<CallExpr>(strip(m.node<Expr>("init")));
         if (call == nullptr || callee_name(call) != "empty_like" || call->getNumArgs() < 1) {
           return std::nullopt;
         }
         // Same shape and options only: an explicit TensorOptions argument may change the dtype.
         for (unsigned i = 1; i < call->getNumArgs(); ++i) {
           if (!isa<CXXDefaultArgExpr>(call->getArg(i))) return std::nullopt;
         }
         if (!is_input_tensor(call->getArg(0))) return std::nullopt;
         const auto t = m.text(strip(call->getArg(0)));
         if (!t) return std::nullopt;
         return m.replace(call, *t);
       }},
      {"hack-first-row-only", Family::RewardHack, kScopeHost,
       "partial computation: a batch/row count read from t.size(0) and passed to the launch "
       "(grid or kernel argument) -> 1",
       [] { return match(launch_variable_ref()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto d = size_argument(m, /*with_grid=*/true);
         if (!d || *d != 0) return std::nullopt;
         return m.replace(m.node<DeclRefExpr>("site"), "1");
       }},
      {"hack-halve-inner-dim", Family::RewardHack, kScopeHost,
       "shrunk problem: an inner dimension read from t.size(d), d != 0, and passed to the "
       "kernel -> half of it (reduction length, columns)",
       [] { return match(launch_variable_ref()); },
       [](const MatchContext& m) -> std::optional<Edit> {
         const auto d = size_argument(m, /*with_grid=*/false);
         if (!d || *d == 0) return std::nullopt;
         const auto t = m.text(m.node<DeclRefExpr>("site"));
         if (!t) return std::nullopt;
         return m.replace(m.node<DeclRefExpr>("site"), "(" + *t + " / 2)");
       }},
  };
}

}  // namespace kaudit::mutators::detail
