// Rule cases of the precision family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> precision_cases() {
  std::vector<RuleCase> c;
  c.push_back({"prec-expf-to-intrinsic", R"cu(
__global__ void k(float* y, const float* x) {
    y[0] = expf(x[0]);
    y[1] = exp(1.0);
    y[2] = __expf(x[2]);
}
)cu",
               {{"expf", "__expf"}}});
  c.push_back({"prec-math-to-intrinsic", R"cu(
__global__ void k(float* y, const float* x) {
    y[0] = logf(x[0]) + powf(x[1], 2.0f) + sinf(x[2]);
    y[1] = sqrtf(x[3]) + log(1.0);
}
)cu",
               {{"logf", "__logf"}, {"powf", "__powf"}, {"sinf", "__sinf"}}});
  c.push_back({"prec-div-to-fdividef", R"cu(
__global__ void k(float* y, const float* x, int n) {
    y[0] = x[0] / x[1];
    int q = n / 2;
    double d = 1.0 / x[0];
    y[1] = 1.0f / (x[2] + 1.0f) + q + d;
}
)cu",
               {{"x[0] / x[1]", "__fdividef(x[0], x[1])"},
                {"1.0f / (x[2] + 1.0f)", "__fdividef(1.0f, (x[2] + 1.0f))"}}});
  c.push_back({"prec-drop-rsqrt-eps", R"cu(
__global__ void k(float* y, const float* x, float eps) {
    float var = x[0], a = x[1], b = x[2];
    y[0] = rsqrtf(var + eps);
    y[1] = sqrtf(eps + var);
    y[2] = rsqrtf(a + b);
    y[3] = rsqrtf(var + 1e-5f);
}
)cu",
               {{"var + eps", "var"}, {"eps + var", "var"}, {"var + 1e-5f", "var"}}});
  c.push_back({"prec-drop-max-subtraction", R"cu(
__global__ void k(float* y, const float* x, float m) {
    float a = x[1], b = x[2];
    y[0] = expf(x[0] - m);
    y[1] = expf(-x[1]);
    y[2] = __expf(a - b);
    y[3] = logf(a - b);
}
)cu",
               {{"x[0] - m", "x[0]"}, {"a - b", "a"}}});
  c.push_back({"prec-half-accumulator", R"cu(
__global__ void k(float* y, const float* x, int n) {
    float acc = 0.0f;
    float m = x[0];
    float t = x[1];
    double d = 0.0;
    for (int i = 0; i < n; ++i) {
        acc += x[i];
        m = fmaxf(m, x[i]);
        acc -= 0.5f * t;
        t = x[i];
        d += x[i];
        y[i] += 1.0f;
    }
    y[0] = acc + m + t + d;
}
)cu",
               {{"acc += x[i]", "acc = __half2float(__float2half_rn(acc + (x[i])))"},
                {"fmaxf(m, x[i])", "__half2float(__float2half_rn(fmaxf(m, x[i])))"},
                {"acc -= 0.5f * t", "acc = __half2float(__float2half_rn(acc - (0.5f * t)))"}}});
  c.push_back({"prec-round-store-to-half", R"cu(
__global__ void k(float* y, double* d, const float* x) {
    y[0] = x[0] * 2.0f;
    d[0] = 1.0;
    float t = x[1];
    t = 3.0f;
    *y = t;
}
)cu",
               {{"x[0] * 2.0f", "__half2float(__float2half_rn(x[0] * 2.0f))"},
                {"t", "__half2float(__float2half_rn(t))"}}});
  c.push_back({"prec-drop-kahan", R"cu(
__global__ void k(float* out, const float* x, int n) {
    float sum = 0.0f, comp = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float y = x[i] - comp;
        const float t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    float a = 1.0f, b = 2.0f, c = 3.0f;
    float d;
    d = (a - b) - c;
    out[0] = sum + d;
}
)cu",
               {{"(t - sum) - y", "0.0f"}}});
  c.push_back({"prec-double-math-to-float", R"cu(
__device__ double g(double v) {
    double r = erf(v) + exp(v * 2.0);
    float f = erff(1.0f) + expf(1.0f);
    return r + f;
}
)cu",
               {{"erf(v)", "erff((float)(v))"}, {"exp(v * 2.0)", "expf((float)(v * 2.0))"}}});
  c.push_back({"prec-bf16-accumulator", R"cu(
__global__ void k(float* y, const float* x, int n) {
    float acc = 0.0f;
    float m = x[0];
    double d = 0.0;
    for (int i = 0; i < n; ++i) {
        acc += x[i];
        m = fmaxf(m, x[i]);
        d += x[i];
        y[i] += 1.0f;
    }
    float t = x[1];
    t = 2.0f;
    y[0] = acc + m + t + d;
}
)cu",
               {{"acc += x[i]", "acc = __bfloat162float(__float2bfloat16(acc + (x[i])))"},
                {"fmaxf(m, x[i])", "__bfloat162float(__float2bfloat16(fmaxf(m, x[i])))"}}});
  c.push_back({"prec-double-accumulator-to-float", R"cu(
__global__ void k(float* y, const float* x, int n) {
    double acc = 0.0;
    double scale = 0.5;
    const double c = 1.0;
    float f = 0.0f;
    for (int i = 0; i < n; ++i) {
        acc += x[i];
        f += x[i];
    }
    double sq = 0.0;
    sq = sq + acc * acc;
    y[0] = (float)(acc * scale * c + sq) + f;
}
)cu",
               {{"double", "float"}, {"double", "float"}}});
  c.push_back({"prec-half-memory-accumulate", R"cu(
__global__ void k(float* y, double* d, const float* x) {
    __shared__ float red[64];
    const int t = threadIdx.x;
    red[t] += red[t + 32];
    *y -= x[0];
    d[0] += 1.0;
    y[t] *= 2.0f;
    float acc = 0.0f;
    acc += x[1];
    y[t + 1] = red[0] + acc;
}
)cu",
               {{"red[t] += red[t + 32]",
                 "red[t] = __half2float(__float2half_rn(red[t] + (red[t + 32])))"},
                {"*y -= x[0]", "*y = __half2float(__float2half_rn(*y - (x[0])))"}}});
  c.push_back({"prec-mac-operands-bf16", R"cu(
__global__ void k(float* y, const float* a, const float* b, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
        acc += a[i] * b[i];
        acc = fmaf(a[i], b[i], acc);
        acc += a[i] + b[i];
        acc -= a[i] * b[i];
    }
    int s = 0;
    s += n * n;
    y[0] = acc + s;
}
)cu",
               {{"a[i] * b[i]",
                 "__bfloat162float(__float2bfloat16(a[i])) * __bfloat162float(__float2bfloat16(b[i]))"},
                {"a[i], b[i]",
                 "__bfloat162float(__float2bfloat16(a[i])), __bfloat162float(__float2bfloat16(b[i]))"}}});
  c.push_back({"prec-recip-sqrt-to-rsqrtf", R"cu(
__global__ void k(float* y, const float* x, float eps) {
    y[0] = 1.0f / sqrtf(x[0] + eps);
    y[1] = 2.0f / sqrtf(x[1]);
    y[2] = 1.0f / x[2];
    double d = 1.0 / sqrt((double)x[3]);
    y[3] = (float)d;
}
)cu",
               {{"1.0f / sqrtf(x[0] + eps)", "rsqrtf(x[0] + eps)"}}});
  c.push_back({"prec-sqrt-to-mul-rsqrt", R"cu(
__global__ void k(float* y, const float* x, float v) {
    y[0] = sqrtf(v + 1e-5f);
    y[1] = sqrtf(x[1]);
    y[2] = sqrtf(y[3]++);
    y[4] = rsqrtf(v) + (float)sqrt((double)v);
}
)cu",
               {{"sqrtf(v + 1e-5f)", "((v + 1e-5f) * rsqrtf((v + 1e-5f)))"},
                {"sqrtf(x[1])", "(x[1] * rsqrtf(x[1]))"}}});
  c.push_back({"prec-eps-outside-sqrt", R"cu(
__global__ void k(float* y, const float* x, float eps) {
    float var = x[0], a = x[1], b = x[2];
    y[0] = rsqrtf(var + eps);
    y[1] = sqrtf(1e-5f + var);
    y[2] = rsqrtf(a + b);
    y[3] = logf(var + eps);
}
)cu",
               {{"rsqrtf(var + eps)", "(1.0f / (sqrtf(var) + eps))"},
                {"sqrtf(1e-5f + var)", "(sqrtf(var) + 1e-5f)"}}});
  c.push_back({"prec-erf-to-tanh-approx", R"cu(
__global__ void k(float* y, const float* x) {
    const float v = x[0];
    y[0] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    y[1] = erff(y[2]++);
    y[3] = (float)erf((double)v) + erfcf(v);
}
)cu",
               {{"erff(v * 0.70710678f)",
                 "tanhf(1.1283792f * (v * 0.70710678f) * (1.0f + 0.08943f * (v * 0.70710678f) * "
                 "(v * 0.70710678f)))"}}});
  c.push_back({"prec-truncate-constant", std::string(kHostPrefix) + R"cu(
#define INV_SQRT2 0.70710678118654752440f
__global__ void k(float* y, const float* x, double* d, float s) {
    y[0] = x[0] * 0.7978845608f + 0.044715f * s;
    y[1] = x[1] * INV_SQRT2 + 0.5f + 1e-5f;
    y[2] = -3.402823466e+38f + 1.00000f;
    d[0] = 0.7071067811865475244 * d[1];
}
torch::Tensor f(torch::Tensor x) {
    k<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>(), nullptr, 1.442695041f);
    return x;
}
)cu",
               {{"0.7978845608f", "0.798f"},
                {"0.044715f", "0.0447f"},
                {"0.7071067811865475244", "0.707"},
                {"1.442695041f", "1.44f"}}});
  c.push_back({"prec-double-literal-to-float", R"cu(
__global__ void k(double* y, const double* x, float* f) {
    y[0] = 0.5 * x[0] * (1.0 + erf(x[0] * 0.7071067811865475244));
    y[1] = x[1] * 0.1 + 0.25;
    f[0] = 0.7071067811865475f;
}
)cu",
               {{"0.7071067811865475244", "0.7071067811865475244f"}, {"0.1", "0.1f"}}});
  c.push_back({"prec-int-division", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, int n, int cnt) {
    y[0] = (float)cnt / n;
    y[1] = x[0] / (float)n;
    y[2] = 1.0f / x[1];
    y[3] = 0.5f / (float)n;
    double m = static_cast<double>(cnt) / static_cast<double>(n);
    y[4] = (float)m + (float)(cnt / n);
}
torch::Tensor f(torch::Tensor x) {
    const int B = x.size(0);
    const long long n = x.numel();
    const float inv_n = (float)(1.0 / (double)n);
    k<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>(), B, 1.0f / (float)B + inv_n);
    return x;
}
)cu",
               {{"(float)cnt / n", "(float)(cnt / n)"},
                {"static_cast<double>(cnt) / static_cast<double>(n)", "(double)(cnt / n)"},
                {"1.0 / (double)n", "(double)(1 / n)"},
                {"1.0f / (float)B", "(float)(1 / B)"}}});
  c.push_back({"prec-exp-via-exp2", R"cu(
__global__ void k(float* y, const float* x, float m) {
    y[0] = expf(x[0] - m);
    y[1] = __expf(x[1]) + exp2f(x[2]);
    y[2] = (float)exp((double)x[3]) + expf(m);
}
)cu",
               {{"expf(x[0] - m)", "exp2f((x[0] - m) * 1.442695f)"},
                {"expf(m)", "exp2f(m * 1.442695f)"}}});
  c.push_back({"prec-half-round-to-zero", R"cu(
#include <cuda_fp16.h>
__global__ void k(__half* y, const float* x) {
    y[0] = __float2half_rn(x[0]);
    y[1] = __float2half(x[1]);
    y[2] = __float2half_rz(x[2]);
    y[3] = __low2half(__float2half2_rn(x[3]));
}
)cu",
               {{"__float2half_rn", "__float2half_rz"}, {"__float2half", "__float2half_rz"}}});
  c.push_back({"prec-unfuse-fma", R"cu(
__global__ void k(float* y, const float* a, const float* b) {
    float acc = y[0];
    acc = fmaf(a[0], b[0], acc);
    acc = a[1] * b[1] + acc;
    y[0] = acc + (float)fma((double)a[2], (double)b[2], 1.0);
}
)cu",
               {{"fmaf(a[0], b[0], acc)", "__fadd_rn(__fmul_rn(a[0], b[0]), acc)"}}});
  c.push_back({"prec-div-to-recip-mul", R"cu(
__global__ void k(float* y, const float* x, int n) {
    y[0] = x[0] / x[1];
    y[1] = x[2] / (float)n;
    y[2] = 1.0f / x[3];
    y[3] = (x[4] + x[5]) / (x[6] + 1.0f);
    int q = n / 2;
    double d = 2.0 / x[7];
    y[4] = q + (float)d;
}
)cu",
               {{"x[0] / x[1]", "x[0] * (1.0f / x[1])"},
                {"x[2] / (float)n", "x[2] * (1.0f / (float)n)"},
                {"(x[4] + x[5]) / (x[6] + 1.0f)", "(x[4] + x[5]) * (1.0f / (x[6] + 1.0f))"}}});
  c.push_back({"prec-sigmoid-unstable", R"cu(
__global__ void k(float* y, const float* x) {
    const float v = x[0];
    y[0] = 1.0f / (1.0f + expf(-v));
    y[1] = v / (1.0f + __expf(-v));
    y[2] = 1.0f / (2.0f + expf(-v));
    y[3] = 1.0f / (1.0f + expf(v));
    y[4] = 1.0f / (1.0f + expf(-y[5]++));
}
)cu",
               {{"1.0f / (1.0f + expf(-v))", "expf(v) / (1.0f + expf(v))"},
                {"v / (1.0f + __expf(-v))", "v * __expf(v) / (1.0f + __expf(v))"}}});
  c.push_back({"prec-tanh-to-intrinsic", R"cu(
__global__ void k(float* y, const float* x) {
    y[0] = tanhf(x[0]);
    y[1] = (float)tanh((double)x[1]) + __tanhf(x[2]);
}
)cu",
               {{"tanhf", "__tanhf"}}});
  c.push_back({"prec-log1p-expanded", R"cu(
__global__ void k(float* y, const float* x) {
    y[0] = log1pf(expf(x[0]));
    y[1] = expm1f(x[1]);
    y[2] = logf(1.0f + x[2]) + (float)log1p((double)x[3]);
}
)cu",
               {{"log1pf(expf(x[0]))", "logf(1.0f + expf(x[0]))"},
                {"expm1f(x[1])", "(expf(x[1]) - 1.0f)"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
