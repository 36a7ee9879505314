// Rule cases of the semantic family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> semantic_cases() {
  std::vector<RuleCase> c;
  c.push_back({"sem-fmaxf-to-fminf", R"cu(
__global__ void k(float* y, const float* x) {
    float a = fmaxf(x[0], x[1]);
    double b = fmax(1.0, 2.0);
    int c = max(1, 2);
    float d = fminf(a, 1.0f);
    y[0] = a + b + c + d;
}
)cu",
               {{"fmaxf", "fminf"}, {"fmax", "fmin"}, {"max", "min"}}});
  c.push_back({"sem-fminf-to-fmaxf", R"cu(
__global__ void k(float* y, const float* x) {
    float a = fminf(x[0], x[1]);
    double b = fmin(1.0, 2.0);
    int c = min(1, 2);
    float d = fmaxf(a, 1.0f);
    y[0] = a + b + c + d;
}
)cu",
               {{"fminf", "fmaxf"}, {"fmin", "fmax"}, {"min", "max"}}});
  c.push_back({"sem-drop-relu", R"cu(
__device__ float relu(float v) { return v > 0.0f ? v : 0.0f; }
__global__ void k(float* y, const float* x) {
    y[0] = fmaxf(x[0], 0.0f);
    y[1] = fmaxf(0.0f, x[1] + 1.0f);
    y[2] = fmaxf(x[2], 1.0f);
    y[3] = x[3] > 0.0f ? 1.0f : 0.0f;
    y[4] = relu(x[4]);
}
)cu",
               {{"v > 0.0f ? v : 0.0f", "v"},
                {"fmaxf(x[0], 0.0f)", "x[0]"},
                {"fmaxf(0.0f, x[1] + 1.0f)", "(x[1] + 1.0f)"}}});
  c.push_back({"sem-argmax-tiebreak", R"cu(
__global__ void k(const float* x, int* out, int n) {
    float best = x[0];
    int idx = 0;
    for (int j = 1; j < n; ++j) {
        if (x[j] > best) { best = x[j]; idx = j; }
    }
    float m = x[0];
    for (int j = 1; j < n; ++j) {
        if (x[j] > m) m = x[j];
    }
    out[0] = idx;
    out[1] = (int)m;
}
)cu",
               {{">", ">="}}});
  c.push_back({"sem-tiebreak-index-flip", R"cu(
__global__ void k(const float* x, int* out, int a, int b) {
    float v = x[0], ov = x[1];
    int idx = 0, oi = 1;
    if (ov > v || (ov == v && oi < idx)) { v = ov; idx = oi; }
    if (a == b && a < idx) idx = a;
    out[0] = idx;
}
)cu",
               {{"<", ">"}}});
  c.push_back({"sem-accum-init-zero-to-one", R"cu(
__global__ void k(float* y, const float* x, int n) {
    float sum = 0.0f;
    double acc = 0;
    float unused = 0.0f;
    for (int i = 0; i < n; ++i) { sum += x[i]; acc = acc + x[i]; }
    int count = 0;
    count += 1;
    y[0] = sum + (float)acc + unused + count;
}
)cu",
               {{"0.0f", "1.0f"}, {"0", "1"}}});
  c.push_back({"sem-max-init-to-zero", R"cu(
__global__ void k(float* y, const float* x, int n) {
    float m = -3.402823466e+38f;
    float best = x[0];
    float s = 0.0f;
    float z = x[1];
    for (int i = 0; i < n; ++i) {
        m = fmaxf(m, x[i]);
        if (x[i] > best) best = x[i];
        s = fmaxf(s, x[i]);
    }
    y[0] = m + best + s + z;
}
)cu",
               {{"-3.402823466e+38f", "0.0f"}, {"x[0]", "0.0f"}}});
  c.push_back({"sem-float-compare-flip", R"cu(
__global__ void k(float* y, const float* x, int n) {
    bool a = x[0] > x[1];
    bool b = x[0] <= 1.0f;
    bool c = n < 3;
    y[0] = a + b + c;
}
)cu",
               {{">", "<"}, {"<=", ">="}}});
  c.push_back({"sem-flag-flip", R"cu(
template <bool VEC>
__global__ void k(float* y, bool flag, int n) {
    if (VEC) y[0] = 1.0f;
    y[1] = flag ? 1.0f : 2.0f;
    if (n > 0) y[2] = 0.0f;
    bool active = n > 3;
    if (active) y[3] = 0.0f;
}
)cu",
               {{"VEC", "!VEC"}, {"flag", "!flag"}, {"active", "!active"}}});
  c.push_back({"sem-and-or-swap", R"cu(
__global__ void k(float* y, int n, int m) {
    int i = threadIdx.x;
    if (i < n && i < m) y[i] = 0.0f;
    bool b = i == 0 || i == 1;
    y[0] = b ? 1.0f : 0.0f;
}
void h(int a) { bool c = a > 0 && a < 9; (void)c; }
)cu",
               {{"&&", "||"}, {"||", "&&"}}});
  c.push_back({"sem-eq-ne-swap", R"cu(
__global__ void k(float* y, const float* p, int n) {
    if (threadIdx.x == 0) y[0] = 1.0f;
    if (p != nullptr && n != 3) y[1] = 2.0f;
}
void h(int a) { bool c = a == 1; (void)c; }
)cu",
               {{"==", "!="}, {"!=", "=="}, {"!=", "=="}}});
  const std::string counts = std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, int D, float inv) {
    y[0] = x[0] / D;
    y[1] = x[1] / (float)D;
    y[2] = x[2] / 2.0f + x[3] / x[4] + inv;
    y[3] = x[3] / 4 + x[5] / 1;
    int h = D / 2;
    y[h] = 0.0f;
}
torch::Tensor f(torch::Tensor t) {
    const long long n = t.numel();
    const float inv = (float)(1.0 / (double)n);
    k<<<1, 32>>>(t.data_ptr<float>(), t.data_ptr<float>(), 4, inv);
    return t;
}
)cu";
  c.push_back({"sem-mean-to-sum", counts,
               {{"x[0] / D", "x[0]"},
                {"x[1] / (float)D", "x[1]"},
                {"x[3] / 4", "x[3]"},
                {"x[5] / 1", "x[5]"},
                {"1.0 / (double)n", "1.0"}}});
  c.push_back({"sem-bessel-correction", counts,
               {{"D", "(D - 1)"}, {"D", "(D - 1)"}, {"4", "3"}, {"n", "(n - 1)"}}});
  c.push_back({"sem-max-combine-to-add", R"cu(
__device__ float wmax(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    const float p = __shfl_down_sync(0xffffffff, v, 1);
    return fmaxf(v, p);
}
__global__ void k(float* y, const float* x) {
    __shared__ float red[64];
    red[threadIdx.x] = fmaxf(x[threadIdx.x], 0.0f);
    if (threadIdx.x < 32) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + 32]);
    y[0] = fmaxf(wmax(x[0]), x[1]);
}
)cu",
               {{"fmaxf(v, __shfl_xor_sync(0xffffffff, v, o))",
                 "(v + __shfl_xor_sync(0xffffffff, v, o))"},
                {"fmaxf(v, p)", "(v + p)"},
                {"fmaxf(red[threadIdx.x], red[threadIdx.x + 32])",
                 "(red[threadIdx.x] + red[threadIdx.x + 32])"}}});
  c.push_back({"sem-accumulate-to-overwrite", R"cu(
__global__ void k(float* y, const float* x, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; i += 1) acc += x[i];
    for (float t = 0.0f; t < 1.0f; t += 0.5f) acc += t;
    int c = 0;
    c += n;
    y[0] += acc;
    y[c] -= acc;
}
)cu",
               {{"+=", "="}, {"+=", "="}, {"+=", "="}}});
  c.push_back({"sem-ternary-swap", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = threadIdx.x;
    y[i] = (i < n) ? x[i] : 0.0f;
    y[0] = x[0] > 0.0f ? x[0] : 0.0f;
    y[1] = n ? 1.0f : 1.0f;
    y[2] = (n == 3) ? x[2] : 0.0f;
}
)cu",
               {{"x[i] : 0.0f", "0.0f : x[i]"}, {"x[0] : 0.0f", "0.0f : x[0]"}}});
  c.push_back({"sem-drop-log", R"cu(
__global__ void k(float* y, const float* x, double* z) {
    y[0] = logf(x[0]) + x[1];
    z[0] = log(z[1] + 1.0);
    y[1] = expf(x[1]);
}
)cu",
               {{"logf(x[0])", "x[0]"}, {"log(z[1] + 1.0)", "(z[1] + 1.0)"}}});
  c.push_back({"sem-drop-bias", R"cu(
__global__ void k(float* y, const float* x, const float* bias, const float* beta, const float* w) {
    int i = threadIdx.x;
    y[i] = x[i] * w[i] + bias[i];
    y[i] = beta[i] + x[i];
    y[i] = x[i] + w[i];
}
)cu",
               {{"x[i] * w[i] + bias[i]", "x[i] * w[i]"}, {"beta[i] + x[i]", "x[i]"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
