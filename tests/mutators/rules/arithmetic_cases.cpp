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
  c.push_back({"arith-mul-to-add", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i] * 2.0f + x[i] * n;
}
)cu",
               {{"*", "+"}, {"*", "+"}}});
  c.push_back({"arith-add-to-mul", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = n + 1;
    const float* p = x + i;
    y[i] = p[0] + 1.0f;
}
)cu",
               {{"+", "*"}}});
  c.push_back({"arith-drop-factor", R"cu(
__global__ void k(float* y, const float* x, const float* w, float inv, int n) {
    int i = n * 2;
    y[0] = x[0] * inv;
    y[1] = x[1] * 1.0f;
    y[2] = x[2] * x[2];
    y[i] = 0.5f * x[3] * (1.0f + w[3]);
}
)cu",
               {{"x[0] * inv", "x[0]"},
                {"0.5f * x[3]", "0.5f"},
                {"0.5f * x[3] * (1.0f + w[3])", "0.5f * x[3]"}}});
  c.push_back({"arith-square-to-value", R"cu(
__global__ void k(float* y, const float* x, int n) {
    const float d = x[0] - x[1];
    y[0] = d * d;
    y[1] = x[0] * x[1];
    int sq = n * n;
    y[sq] = (d + 1.0f) * (d + 1.0f);
}
)cu",
               {{"d * d", "d"}, {"(d + 1.0f) * (d + 1.0f)", "(d + 1.0f)"}}});
  c.push_back({"arith-drop-unary-minus", R"cu(
__device__ float sig(float v) { return 1.0f / (1.0f + expf(-v)); }
__global__ void k(float* y, const float* x, int n) {
    float lo = -3.4e38f;
    int j = -n;
    y[0] = -x[0] + sig(lo) + j - 1;
}
)cu",
               {{"-v", "v"}, {"-n", "n"}, {"-x[0]", "x[0]"}}});
  const std::string constants = std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, double* z, float s) {
    y[0] = 0.5f * x[0] + 0.0f;
    y[1] = x[1] + 1e-5f;
    y[2] = fmaxf(x[2], -3.402823466e+38f) * s;
    z[0] = 0.7071067811865475 * z[1];
}
torch::Tensor f(torch::Tensor t) {
    float unused = 3.0f;
    k<<<1, 32>>>(t.data_ptr<float>(), t.data_ptr<float>(), t.data_ptr<double>(), 1.5f);
    return t;
}
)cu";
  c.push_back({"arith-float-const-double", constants,
               {{"0.5f", "1.0f"}, {"0.7071067811865475", "1.4142135623730949"}, {"1.5f", "3.0f"}}});
  c.push_back({"arith-float-const-halve", constants,
               {{"0.5f", "0.25f"}, {"0.7071067811865475", "0.35355339059327373"}, {"1.5f", "0.75f"}}});
  c.push_back({"arith-mod-to-div", R"cu(
__global__ void k(float* y, int n, int W) {
    const int tid = threadIdx.x;
    int lane = tid % 32;
    int ow = n % W;
    int w = threadIdx.x % warpSize;
    y[ow] = lane + w + (n % 4);
}
)cu",
               {{"%", "/"}, {"%", "/"}}});
  c.push_back({"arith-drop-sqrt", R"cu(
__global__ void k(float* y, const float* x, double* z) {
    y[0] = 1.0f / sqrtf(x[0] + 1e-5f);
    y[1] = rsqrtf(x[1]);
    z[0] = sqrt(z[1]);
    y[2] = expf(x[2]);
}
)cu",
               {{"sqrtf(x[0] + 1e-5f)", "(x[0] + 1e-5f)"},
                {"rsqrtf(x[1])", "(1.0f / x[1])"},
                {"sqrt(z[1])", "z[1]"}}});
  c.push_back({"arith-drop-reciprocal", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, float inv) {
    int n = 4;
    y[0] = 1.0f / (1.0f + x[0]);
    y[1] = 2.0f / x[1];
    int q = 1 / n;
    y[2] = 1.0f / x[2] + q * inv;
}
torch::Tensor f(torch::Tensor t) {
    const int B = t.size(0);
    k<<<1, 32>>>(t.data_ptr<float>(), t.data_ptr<float>(), 1.0f / (float)B);
    return t;
}
)cu",
               {{"1.0f / (1.0f + x[0])", "(1.0f + x[0])"},
                {"1.0f / x[2]", "x[2]"},
                {"1.0f / (float)B", "(float)B"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
