// The textual lowering of CUDA launch syntax and dynamic shared memory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/cpu/compile.h"
#include "runtime/cpu/lower.h"

using kaudit::cpu::lower_for_cpu;

namespace {

TEST(Lowering, RewritesLaunchesKeepingLineNumbers) {
  const std::string src = "void f() {\n  k<<<grid,\n     block, 0, stream>>>(a,\n  b);\n  int x = 1;\n}\n";
  auto out = lower_for_cpu(src, "k.cu", "");
  ASSERT_TRUE(out.errors.empty());
  EXPECT_EQ(out.launches, 1);
  EXPECT_NE(out.text.find("::kaudit::launch_kernel(\"k\", [&](auto&&... kaudit_a) { k(kaudit_a...); }, "
                          "::kaudit::LaunchConfig(grid,\n     block, 0, stream), a,\n  b)"),
            std::string::npos)
      << out.text;
  // Everything after the #line directive keeps its line: `int x = 1;` is still on line 5.
  const auto body = out.text.substr(out.text.find("#line 1"));
  const auto pos = body.find("int x = 1;");
  EXPECT_EQ(std::count(body.begin(), body.begin() + pos, '\n'), 5);
}

TEST(Lowering, HandlesTemplateAndQualifiedCallees) {
  auto out = lower_for_cpu("void f(){ ns::kern<float, (4 > 2)><<<1, 32>>>(p); }", "k.cu", "");
  ASSERT_TRUE(out.errors.empty());
  EXPECT_NE(out.text.find("\"ns::kern<float, (4 > 2)>\""), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("{ ns::kern<float, (4 > 2)>(kaudit_a...); }"), std::string::npos) << out.text;
}

TEST(Lowering, IgnoresLaunchSyntaxInCommentsAndStrings) {
  auto out = lower_for_cpu("// k<<<1,1>>>(x);\nconst char* s = \"k<<<1,1>>>(x)\";\n", "k.cu", "");
  EXPECT_EQ(out.launches, 0);
  EXPECT_FALSE(out.needs_fibers);
}

TEST(Lowering, DetectsBarriersAndWarpCollectives) {
  EXPECT_TRUE(lower_for_cpu("void k(){ __syncthreads(); }", "k.cu", "").needs_fibers);
  EXPECT_TRUE(lower_for_cpu("void k(){ x = __shfl_down_sync(m, v, 1); }", "k.cu", "").needs_fibers);
  EXPECT_FALSE(lower_for_cpu("void k(){ /* __syncthreads(); */ }", "k.cu", "").needs_fibers);
}

TEST(Lowering, ExternSharedBecomesTheBlocksDynamicBuffer) {
  auto in_kernel = lower_for_cpu("__global__ void k() {\n  extern __shared__ __align__(16) float smem[];\n}\n", "k.cu", "");
  EXPECT_NE(in_kernel.text.find("float* const smem = reinterpret_cast<float*>(::kaudit::dynamic_shared_memory());"),
            std::string::npos)
      << in_kernel.text;
  auto at_file_scope = lower_for_cpu("extern __shared__ unsigned char raw[];\n__global__ void k() {}\n", "k.cu", "");
  EXPECT_NE(at_file_scope.text.find("#define raw (reinterpret_cast<unsigned char*>(::kaudit::dynamic_shared_memory()))"),
            std::string::npos)
      << at_file_scope.text;
}

TEST(Lowering, SaysWhichSharedMemoryTheKernelCanReach) {
  const auto none = lower_for_cpu("__global__ void k(float* x) { x[0] = 1.f; /* __shared__ */ }\n", "k.cu", "");
  EXPECT_FALSE(none.uses_static_smem);
  EXPECT_FALSE(none.uses_dynamic_smem);
  EXPECT_NE(none.text.find("static bool tu_uses_static_smem() { return false; }"), std::string::npos) << none.text;
  EXPECT_NE(none.text.find("static bool tu_uses_dynamic_smem() { return false; }"), std::string::npos) << none.text;
  const auto statics = lower_for_cpu("__global__ void k() { static __shared__ float t[32]; }\n", "k.cu", "");
  EXPECT_TRUE(statics.uses_static_smem);
  EXPECT_FALSE(statics.uses_dynamic_smem);
  EXPECT_NE(statics.text.find("static bool tu_uses_static_smem() { return true; }"), std::string::npos) << statics.text;
  // A macro that spells it counts: the expansion is a static __shared__ too.
  EXPECT_TRUE(lower_for_cpu("#define SMEM __shared__\n__global__ void k() { SMEM int s; }\n", "k.cu", "").uses_static_smem);
  EXPECT_FALSE(lower_for_cpu("__global__ void k() { int my__shared__x = 0; }\n", "k.cu", "").uses_static_smem);
  const auto dynamic = lower_for_cpu("__global__ void k() { extern __shared__ float s[]; s[0] = 0.f; }\n", "k.cu", "");
  EXPECT_FALSE(dynamic.uses_static_smem);
  EXPECT_TRUE(dynamic.uses_dynamic_smem);
  EXPECT_NE(dynamic.text.find("static bool tu_uses_dynamic_smem() { return true; }"), std::string::npos) << dynamic.text;
  const auto file_scope = lower_for_cpu("extern __shared__ float s[];\n__global__ void k() { s[0] = 0.f; }\n", "k.cu", "");
  EXPECT_FALSE(file_scope.uses_static_smem);
  EXPECT_TRUE(file_scope.uses_dynamic_smem);
}

// The flags above come from the kernel's own text: shared memory declared inside a stub header
// (cuda_runtime.h, torch, ...) would go unseen, and its blocks would not be poisoned.
TEST(Lowering, NoStubHeaderDeclaresSharedMemory) {
  const auto stubs = kaudit::cpu::default_prelude_dir() / "stubs";
  ASSERT_TRUE(std::filesystem::is_directory(stubs)) << stubs;
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(stubs)) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const auto lowered = lower_for_cpu(text.str(), e.path().string(), "");
    EXPECT_FALSE(lowered.uses_static_smem) << e.path();
    EXPECT_FALSE(lowered.uses_dynamic_smem) << e.path();
  }
  EXPECT_GT(files, 0);
}

TEST(Lowering, ReportsAnUnparsableLaunch) {
  auto out = lower_for_cpu("void f() {\n  k<<<1, 2(x);\n}\n", "k.cu", "");
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0].line, 2);
}

}  // namespace

namespace {

// The device code of `out` after the prelude's #line, with the step points shown as `@` (shared
// memory) and `$` (a global load).
std::string steps(const kaudit::cpu::LoweredSource& out) {
  std::string body = out.text.substr(out.text.find("#line 1"));
  body = body.substr(0, body.find("#line 1 \"<kaudit shared memory use>\""));
  for (std::size_t p; (p = body.find(" KAUDIT_STEP(0);")) != std::string::npos;) body.replace(p, 16, "@");
  for (std::size_t p; (p = body.find(" KAUDIT_STEP(1);")) != std::string::npos;) body.replace(p, 16, "$");
  return body;
}

TEST(Lowering, StepPointsFollowTheStatementsThatReachSharedMemory) {
  const std::string src =
      "#define N 4\n"
      "struct Acc { float a; float b; };\n"
      "__device__ constexpr int twice(int x) { int y = 2 * x; return y; }\n"
      "__device__ float table[2] = {1.0f, 2.0f};\n"
      "__device__ float sq(float v, float* w) { float r = v * v; w[0] = r; return r; }\n"
      "__global__ void k(float* y, int n) {\n"
      "  __shared__ float s[64], t[4];\n"
      "  extern __shared__ float dyn[];\n"
      "  struct P { int i; int j; } p = {1, 2};\n"
      "  for (int i = 0; i < n; ++i) { s[i] = y[i]; y[i] += 1; }\n"
      "  if (n > 1) t[0] = 1; else t[0] = 2;\n"
      "  do s[1] = 3; while (n < 0);\n"
      "  float* row = &s[n];\n"
      "  row[1] = dyn[0];\n"
      "  float v[2] = {sq(1.0f, s), 2};\n"
      "}\n"
      "void host(float* y) { int a = 1; y[0] = a; }\n";
  const auto out = lower_for_cpu(src, "k.cu", "");
  ASSERT_TRUE(out.needs_fibers);  // shared memory alone runs on fibers
  const std::string body = steps(out);
  EXPECT_NE(body.find("#define N 4\n"), std::string::npos) << body;
  EXPECT_NE(body.find("struct Acc { float a; float b; };\n"), std::string::npos) << body;
  EXPECT_NE(body.find("{ int y = 2 * x; return y; }"), std::string::npos) << body;  // constexpr: none
  EXPECT_NE(body.find("{1.0f, 2.0f};\n"), std::string::npos) << body;
  // No shared memory in sq's statements (w is a parameter): no step points.
  EXPECT_NE(body.find("{ float r = v * v; w[0] = r; return r; }"), std::string::npos) << body;
  EXPECT_NE(body.find("struct P { int i; int j; } p = {1, 2};\n"), std::string::npos) << body;
  // A write to shared memory has a step point on each side; a statement that loads from global
  // memory one before it, which also serves as the write's (`$`).
  EXPECT_NE(body.find("{$ s[i] = y[i];@$ y[i] += 1; }"), std::string::npos) << body;
  // Not before an else branch, nor after the statement the else follows.
  EXPECT_NE(body.find("if (n > 1) t[0] = 1; else t[0] = 2;@"), std::string::npos) << body;
  // A do-loop's single statement cannot be followed by a step point (its `while` must come next).
  EXPECT_NE(body.find("do s[1] = 3; while (n < 0);\n"), std::string::npos) << body;
  // Through an alias, and passed to a call; one turn between consecutive writes.
  EXPECT_NE(body.find("@ float* row = &s[n];@\n  row[1] = dyn[0];@\n  float v[2] = {sq(1.0f, s), 2};@"),
            std::string::npos) << body;
  EXPECT_NE(body.find("  __shared__ float s[64], t[4];\n"), std::string::npos) << body;  // declarations: none
  EXPECT_NE(body.find("{ int a = 1; y[0] = a; }"), std::string::npos) << body;  // host code: none
  // Lines are kept: the host function is still on line 17.
  EXPECT_EQ(std::count(body.begin(), body.begin() + body.find("void host"), '\n'), 17);
}

TEST(Lowering, ReadsOfSharedMemoryAndGlobalLoadsTakeATurnBefore) {
  const auto out = lower_for_cpu(
      "__global__ void k(float* y) {\n  __shared__ float a[16];\n  float acc = 0;\n"
      "  for (int k = 0; k < 16; ++k) acc += a[k] * a[15 - k];\n  float m = a[0] > acc ? a[0] : acc;\n"
      "  a[0] <<= 1; a[1] >>= 2;\n  y[0] = acc + m;\n  acc = fmaf(a[1], a[2], acc);\n  atomicAdd(&a[3], 1.0f);\n"
      "  float4 v = reinterpret_cast<const float4*>(y)[1];\n  const float* p = y + 4;\n"
      "  float w = *p + *(y + 1) + (y + 2)[0];\n  float q = 2 * *p;\n  acc = acc * m;\n}\n",
      "k.cu", "");
  const std::string body = steps(out);
  // A read of shared memory: a turn before it (an unbraced loop's body: before the loop).
  EXPECT_NE(body.find(" @ for (int k = 0; k < 16; ++k) acc += a[k] * a[15 - k];\n"), std::string::npos) << body;
  EXPECT_NE(body.find(" @ float m = a[0] > acc ? a[0] : acc;\n"), std::string::npos) << body;
  EXPECT_NE(body.find(" @ a[0] <<= 1;@ a[1] >>= 2;@\n"), std::string::npos) << body;  // one turn between two writes
  // A store to global memory takes no turn; neither does arithmetic on registers.
  EXPECT_NE(body.find("\n  y[0] = acc + m;\n"), std::string::npos) << body;
  EXPECT_NE(body.find("\n  acc = acc * m;\n"), std::string::npos) << body;
  // A math function reads its arguments (a read); an atomic may write through its pointer.
  EXPECT_NE(body.find(" @ acc = fmaf(a[1], a[2], acc);\n"), std::string::npos) << body;
  EXPECT_NE(body.find(" @ atomicAdd(&a[3], 1.0f);@\n"), std::string::npos) << body;
  // Loads through a parameter, a cast of it, an alias, a dereference: `$` before each; making the
  // alias loads nothing.
  EXPECT_NE(body.find(" $ float4 v = reinterpret_cast<const float4*>(y)[1];\n"), std::string::npos) << body;
  EXPECT_NE(body.find("\n  const float* p = y + 4;\n"), std::string::npos) << body;
  EXPECT_NE(body.find(" $ float w = *p + *(y + 1) + (y + 2)[0];\n"), std::string::npos) << body;
  EXPECT_NE(body.find(" $ float q = 2 * *p;\n"), std::string::npos) << body;
}

TEST(Lowering, NoStepPointsWithoutFibers) {
  const auto out = lower_for_cpu("__global__ void k(float* y) { y[0] = 1; }\n", "k.cu", "");
  EXPECT_FALSE(out.needs_fibers);
  EXPECT_EQ(out.text.find("KAUDIT_STEP"), std::string::npos);
}

}  // namespace
namespace {

TEST(Lowering, AShortIfBodyTakesItsTurnsAroundTheIf) {
  // A warp whose condition is false spends the time of a short guarded body too (docs/
  // ORACLES.md, "Races"): straight-line code that touches shared memory takes one turn before the
  // `if` and, when it writes, one after the body, braces or not, and none inside; a body with a
  // loop, a jump, a collective, a global load or statements that depend on each other through
  // shared memory keeps its turns inside, as does one an `else` follows.
  const auto show = [](const std::string& body) {
    const std::string src = "__global__ void k(const float* in, float* y, int n) {\n  __shared__ float s[256];\n"
                            "  const int t = threadIdx.x;\n" + body + "  y[t] = s[0];\n}\n";
    return steps(lower_for_cpu(src, "k.cu", ""));
  };
  const std::string unbraced = show("  if (t < n) s[t] += s[t + n];\n");
  EXPECT_NE(unbraced.find(" @ if (t < n) s[t] += s[t + n];@\n  y[t]"), std::string::npos) << unbraced;
  const std::string braced = show("  if (t < n) { s[t] += s[t + n]; }\n");
  EXPECT_NE(braced.find(" @ if (t < n) { s[t] += s[t + n]; }@\n  y[t]"), std::string::npos) << braced;
  // Two statements, and a schema's switch inside (kaudit mutate's schemata wrap a mutated statement so).
  const std::string two = show("  if (t < n) {\n    float v = s[t + n];\n    s[t] += v;\n  }\n");
  EXPECT_NE(two.find(" @ if (t < n) {\n    float v = s[t + n];\n    s[t] += v;\n  }@\n  y[t]"), std::string::npos) << two;
  const std::string schema = show("  if (t < n) {\n    { if (m == 1) { s[t] = s[t + n]; } else { s[t] += s[t + n]; } }\n  }\n");
  EXPECT_NE(schema.find(" @ if (t < n) {\n    { if (m == 1) { s[t] = s[t + n]; } else { s[t] += s[t + n]; } }\n  }@\n  y[t]"),
            std::string::npos) << schema;
  // A body that reads shared memory only: the turn before, none after.
  const std::string read = show("  float r = 0;\n  if (t < n) { r = s[t]; }\n");
  EXPECT_NE(read.find(" @ if (t < n) { r = s[t]; }\n @ y[t]"), std::string::npos) << read;
  // Branched round: a global load, a loop, a collective; and an else after the body.
  const std::string load = show("  if (t < n) {\n    s[t] = in[t];\n  }\n");
  EXPECT_NE(load.find("  if (t < n) {\n   $ s[t] = in[t];@\n  }\n @ y[t]"), std::string::npos) << load;
  const std::string loop = show("  if (t < n) { for (int k = 0; k < 2; ++k) s[t] += 1.0f; }\n");
  EXPECT_NE(loop.find("  if (t < n) {@ for (int k = 0; k < 2; ++k) s[t] += 1.0f;@ }\n @ y[t]"), std::string::npos) << loop;
  const std::string shfl = show("  if (t < 32) { s[t] = __shfl_down_sync(0xffffffffu, s[t], 1); }\n");
  EXPECT_NE(shfl.find("  if (t < 32) {@ s[t] = __shfl_down_sync(0xffffffffu, s[t], 1);@ }\n @ y[t]"), std::string::npos) << shfl;
  // Statements that depend on each other through shared memory keep their turns inside (a lane
  // would otherwise run both before the next lane ran the first); so does a body with a jump.
  const std::string dependent = show("  if (t < 16) { s[t] += s[t + 16]; s[t] += s[t + 8]; }\n");
  EXPECT_NE(dependent.find("  if (t < 16) {@ s[t] += s[t + 16];@ s[t] += s[t + 8];@ }\n @ y[t]"), std::string::npos)
      << dependent;
  const std::string jump = show("  for (int k = 0; k < n; ++k) { if (s[k] == 0) { s[k] = 1; break; } }\n");
  EXPECT_EQ(jump.find(" @ if (s[k] == 0)"), std::string::npos) << jump;
  // Braces after the condition that are a value or a lambda, not the body: nothing between them
  // and their statement's end (the lowered code must still compile).
  const std::string value = show("  struct P { float a; float b; } p;\n  if (t == 0) p = P{s[0], s[1]};\n");
  EXPECT_NE(value.find("  if (t == 0) p = P{s[0], s[1]};"), std::string::npos) << value;
  const std::string lambda = show("  if (t == 0) [&] { s[0] += 1.0f; }();\n");
  EXPECT_EQ(lambda.find("}@"), std::string::npos) << lambda;
  EXPECT_NE(lambda.find("}();"), std::string::npos) << lambda;
  const std::string with_else = show("  if (t < n) { s[t] = 1; } else { s[t] = 2; }\n");
  EXPECT_NE(with_else.find("  if (t < n) {@ s[t] = 1;@ } else {@ s[t] = 2;@ }\n @ y[t]"), std::string::npos) << with_else;
}

}  // namespace
