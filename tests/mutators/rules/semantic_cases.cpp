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
  return c;
}

}  // namespace kaudit::mutators::testing_cases
