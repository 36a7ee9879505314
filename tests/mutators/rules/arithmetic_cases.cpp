// Rule cases of the arithmetic family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> arithmetic_cases() {
  std::vector<RuleCase> c;
  c.push_back({"arith-add-to-sub", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float* p = x + 1;
    const float* q = 1 + x;
    y[i] = x[i] + 2.0f + p[0] + q[0];
}
torch::Tensor launch(torch::Tensor x) {
    int n = x.numel();
    int unused = n + 1;
    TORCH_CHECK(n + 1 > 0, "host checks are not launch arithmetic");
    k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), x.data_ptr<float>(), n);
    return x;
}
)cu",
               {{"+", "-"}, {"+", "-"}, {"+", "-"}, {"+", "-"}, {"+", "-"}, {"+", "-"}}});
  c.push_back({"arith-sub-to-add", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = n - 1;
    const float* p = x + n;
    long d = p - x;
    y[i] = x[i] - 0.5f + d;
}
)cu",
               {{"-", "+"}, {"-", "+"}}});
  c.push_back({"arith-mul-to-div", R"cu(
__global__ void k(float* y, const float* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    *y = x[i] * 2.0f;
}
void host(int n) { int m = n * 2; (void)m; }
)cu",
               {{"*", "/"}, {"*", "/"}}});
  c.push_back({"arith-div-to-mul", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int h = n / 2;
    y[h] = x[h] / 3.0f;
}
void host(int n) { int m = n / 2; (void)m; }
)cu",
               {{"/", "*"}, {"/", "*"}}});
  c.push_back({"arith-compound-swap", R"cu(
__global__ void k(float* y, const float* x, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; i += 2) {
        acc += x[i];
        acc *= 0.5f;
    }
    y[0] -= acc;
    y[1] /= 2.0f;
}
)cu",
               {{"+=", "-="}, {"*=", "/="}, {"-=", "+="}, {"/=", "*="}}});
  c.push_back({"arith-int-const-inc", R"cu(
__global__ void k(int* y, int n) {
    int a = 7;
    unsigned m = 0x1fu;
    int big = 0x7fffffff;
    y[a] = m + big + n;
}
void host() { int q = 3; (void)q; }
)cu",
               {{"7", "8"}, {"0x1fu", "0x20u"}}});
  c.push_back({"arith-int-const-dec", R"cu(
__global__ void k(int* y, int n) {
    int a = 7;
    int z = 0;
    unsigned m = 0x10u;
    int big = 0x7fffffff;
    y[a] = m + big + n + z;
}
)cu",
               {{"7", "6"}, {"0x10u", "0xfu"}}});
  c.push_back({"arith-negate-store", R"cu(
__global__ void k(float* y, const float* x, float4* v) {
    y[0] = x[0] * 2.0f;
    y[1] = 0.0f;
    float t = x[1];
    t = x[2];
    *y = t;
    v[0].x = t;
}
)cu",
               {{"x[0] * 2.0f", "-(x[0] * 2.0f)"}, {"t", "-(t)"}, {"t", "-(t)"}}});
  c.push_back({"arith-swap-sub-operands", R"cu(
__global__ void k(float* y, const float* x, int n) {
    y[0] = x[0] - x[1];
    int d = n - 1;
    y[d] = x[0] - x[1] - x[2];
}
)cu",
               {{"x[0] - x[1]", "x[1] - x[0]"},
                {"x[0] - x[1]", "x[1] - x[0]"},
                {"x[0] - x[1] - x[2]", "x[2] - (x[0] - x[1])"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
