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
  return c;
}

}  // namespace kaudit::mutators::testing_cases
