// One test per catalog rule: on a small kernel holding places where the rule must fire and
// places where it must not, the rule finds exactly the expected sites, in order, with the exact
// original and replacement text; and every mutant it makes still parses.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mutators/mutators.h"

namespace {

using kaudit::mutators::find_sites;
using kaudit::mutators::KernelSourceInfo;
using kaudit::mutators::rule_catalog;
using kaudit::mutators::SiteOptions;

struct Expect {
  std::string original;
  std::string replacement;
  bool operator==(const Expect&) const = default;
};

void PrintTo(const Expect& e, std::ostream* os) {
  *os << "[" << e.original << "] -> [" << e.replacement << "]";
}

struct RuleCase {
  std::string rule;
  std::string code;
  std::vector<Expect> sites;
};

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.rule; }

// A host wrapper launching `k` (used by the launch-scope cases).
const char* const kHostPrefix = "#include <torch/extension.h>\n#include <cuda_runtime.h>\n";

std::vector<RuleCase> cases() {
  std::vector<RuleCase> c;

  // ---- arithmetic ------------------------------------------------------------------------------
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

  // ---- indexing --------------------------------------------------------------------------------
  c.push_back({"index-threadidx-axis-swap", R"cu(
__global__ void k(float* y) {
    int i = threadIdx.x + threadIdx.y * 2 + threadIdx.z + blockIdx.x;
    y[i] = 0.0f;
}
)cu",
               {{"x", "y"}, {"y", "x"}, {"z", "x"}}});
  c.push_back({"index-blockidx-axis-swap", R"cu(
__global__ void k(float* y) {
    int b = blockIdx.x + blockIdx.y + threadIdx.x;
    y[b] = 0.0f;
}
)cu",
               {{"x", "y"}, {"y", "x"}}});
  c.push_back({"index-blockdim-to-griddim", R"cu(
__global__ void k(float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = blockDim.y * gridDim.x;
    y[i] = s;
}
)cu",
               {{"blockDim", "gridDim"}, {"blockDim", "gridDim"}}});
  c.push_back({"index-griddim-to-blockdim", R"cu(
__global__ void k(float* y) {
    int s = blockDim.x * gridDim.x;
    int t = gridDim.y;
    y[s] = t;
}
)cu",
               {{"gridDim", "blockDim"}, {"gridDim", "blockDim"}}});
  c.push_back({"index-warpsize-to-16", R"cu(
__global__ void k(float* y) {
    int lane = threadIdx.x % warpSize;
    int w = threadIdx.x / 32;
    y[lane] = w;
}
)cu",
               {{"warpSize", "16"}}});
  c.push_back({"index-shuffle-offset-halved", R"cu(
__device__ float reduce(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    for (int off = 1; off < 32; off <<= 1) v += __shfl_up_sync(0xffffffff, v, off);
    for (int s = 16; s > 0; s >>= 1) v += 1.0f;
    return v;
}
)cu",
               {{"16", "16 / 2"}, {"warpSize / 2", "(warpSize / 2) / 2"}}});
  c.push_back({"index-transpose-row-col", R"cu(
__global__ void k(float* c, const float* a, int N) {
    int row = blockIdx.y, col = threadIdx.x;
    c[row * N + col] = a[(size_t)row * N + col];
    c[row * N + 1] = 0.0f;
    c[row + col] = 0.0f;
}
)cu",
               {{"row * N + col", "col * N + row"},
                {"(size_t)row * N + col", "col * N + (size_t)row"}}});
  c.push_back({"index-swap-2d-subscript", R"cu(
__global__ void k(float* y) {
    __shared__ float t[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    t[ty][tx] = y[tx];
    y[ty] = t[tx][tx];
    float u[4];
    u[tx] = 1.0f;
    y[0] = u[ty];
}
)cu",
               {{"ty][tx", "tx][ty"}}});

  // ---- semantic --------------------------------------------------------------------------------
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

  // ---- boundary --------------------------------------------------------------------------------
  c.push_back({"bound-ceil-div-to-floor", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, int N) {
    const int tiles = (N + 16 - 1) / 16;
    int bad = (N + 16 - 1) / 32;
    y[0] = tiles + bad;
}
torch::Tensor f(torch::Tensor x) {
    const int threads = 256;
    const long long n = x.numel();
    long long blocks = (n + threads - 1) / threads;
    long long host_only = (n + threads - 1) / threads;
    TORCH_CHECK(host_only > 0, "not launch arithmetic");
    k<<<(unsigned int)blocks, threads>>>(x.data_ptr<float>(), (int)n);
    return x;
}
)cu",
               {{"(N + 16 - 1) / 16", "N / 16"}, {"(n + threads - 1) / threads", "n / threads"}}});
  c.push_back({"bound-drop-guard", R"cu(
__global__ void k(float* y, int n, int m) {
    int i = threadIdx.x;
    if (i >= n) return;
    if (i < m && i > 2) y[i] = 1.0f;
    if (i < 4) y[0] = 1.0f; else y[1] = 2.0f;
    if (y[0] > 0.5f) y[2] = 0.0f;
    if (i == 0) y[3] = 0.0f;
    for (int j = 0; j < n; ++j) {
        if (j >= m) break;
        if (j < 2 || j > 5) y[j] = 0.0f;
    }
}
)cu",
               {{"i >= n", "false"}, {"i < m", "true"}, {"i > 2", "true"}, {"j >= m", "false"}}});
  c.push_back({"bound-drop-ternary-guard", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = threadIdx.x;
    y[0] = (i < n) ? x[i] : 0.0f;
    y[1] = (i >= 0 && i < n) ? x[i] : 0.0f;
    y[2] = i < n ? 1.0f : 2.0f;
}
)cu",
               {{"i < n", "true"}, {"i >= 0", "true"}, {"i < n", "true"}}});
  c.push_back({"bound-guard-lt-to-le", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    if (i < n) y[i] = 1.0f;
    y[0] = (i <= 3) ? x[i] : 0.0f;
    for (int j = 0; j < n; ++j) y[j] = 0.0f;
}
)cu",
               {{">=", ">"}, {"<", "<="}, {"<=", "<"}}});
  c.push_back({"bound-guard-bound-minus-one", R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    if (i < 8) y[i] = 1.0f;
    if (i < 0) y[0] = 0.0f;
    y[1] = (i < n + 2) ? x[i] : 0.0f;
}
)cu",
               {{"n", "n - 1"}, {"8", "7"}, {"n + 2", "(n + 2) - 1"}}});
  c.push_back({"bound-loop-lt-to-le", R"cu(
__global__ void k(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int s = 16; s > 0; s >>= 1) y[s] = 0.0f;
    for (int j = 0; j <= n; ++j) y[j] = 0.0f;
    if (n < 3) y[0] = 1.0f;
}
)cu",
               {{"<", "<="}}});
  c.push_back({"bound-loop-bound-minus-one", R"cu(
__global__ void k(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int j = 0; j <= 7; ++j) y[j] = 0.0f;
    for (int k2 = 0; k2 < n * 2; ++k2) y[k2] = 0.0f;
    for (int s = 16; s > 0; s >>= 1) y[s] = 0.0f;
}
)cu",
               {{"n", "n - 1"}, {"7", "6"}, {"n * 2", "(n * 2) - 1"}}});
  c.push_back({"bound-drop-last-tile", R"cu(
__global__ void k(float* y, int K, int n) {
    for (int k0 = 0; k0 < K; k0 += 16) y[k0] = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = 0.0f;
    for (int j = 0; j < n; j += 1) y[j] = 0.0f;
    for (int j = 0; j < n; ++j) y[j] = 0.0f;
}
)cu",
               {{"k0 < K", "k0 + 16 < K"}, {"i < n", "i + blockDim.x < n"}}});
  c.push_back({"bound-loop-start-plus-one", R"cu(
__global__ void k(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) y[j] = 0.0f;
    for (int s = 16; s > 0; s >>= 1) y[s] = 0.0f;
    for (int t = n - 1; t >= 0; --t) y[t] = 0.0f;
}
)cu",
               {{"0", "1"}, {"threadIdx.x", "threadIdx.x + 1"}}});
  c.push_back({"bound-launch-block-halved", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[threadIdx.x] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    const int threads = 128;
    dim3 block(16, 16);
    k<<<4, threads>>>(x.data_ptr<float>());
    k<<<4, block>>>(x.data_ptr<float>());
    k<<<dim3(4), 64 + 64>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"threads", "threads / 2"},
                {"block", "dim3((block).x / 2, (block).y, (block).z)"},
                {"64 + 64", "(64 + 64) / 2"}}});
  c.push_back({"bound-smem-halved", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { extern __shared__ float s[]; s[0] = 0.0f; y[0] = s[0]; }
torch::Tensor f(torch::Tensor x) {
    k<<<4, 64, 64 * sizeof(float)>>>(x.data_ptr<float>());
    k<<<4, 64, 0>>>(x.data_ptr<float>());
    k<<<4, 64>>>(x.data_ptr<float>());
    size_t smem = 256;
    k<<<1, 32, smem, 0>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"64 * sizeof(float)", "(64 * sizeof(float)) / 2"}, {"smem", "smem / 2"}}});
  c.push_back({"bound-grid-minus-one", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[blockIdx.x] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    int n = x.numel();
    int blocks = 8;
    k<<<blocks, 256>>>(x.data_ptr<float>());
    dim3 grid(4, 2);
    k<<<grid, 256>>>(x.data_ptr<float>());
    k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"blocks", "blocks - 1"},
                {"grid", "dim3((grid).x - 1, (grid).y, (grid).z)"},
                {"(n + 255) / 256", "((n + 255) / 256) - 1"}}});

  // ---- synchronization -------------------------------------------------------------------------
  c.push_back({"sync-remove-syncthreads", R"cu(
__global__ void k(float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = y[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = s[63 - threadIdx.x];
    __syncwarp();
    if (threadIdx.x < 32) __syncthreads();
}
)cu",
               {{"__syncthreads()", "(void)0"}, {"__syncthreads()", "(void)0"}}});
  c.push_back({"sync-syncthreads-to-syncwarp", R"cu(
__global__ void k(float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = y[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = s[63 - threadIdx.x];
    __syncwarp();
}
)cu",
               {{"__syncthreads", "__syncwarp"}}});
  const std::string barriers = R"cu(
__global__ void k(float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = y[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = s[63 - threadIdx.x];
    __syncthreads();
    __syncthreads();
    return;
}
)cu";
  c.push_back({"sync-move-barrier-down", barriers,
               {{"__syncthreads();\n    y[threadIdx.x] = s[63 - threadIdx.x];",
                 "y[threadIdx.x] = s[63 - threadIdx.x];\n    __syncthreads();"}}});
  c.push_back({"sync-move-barrier-up", barriers,
               {{"s[threadIdx.x] = y[threadIdx.x];\n    __syncthreads();",
                 "__syncthreads();\n    s[threadIdx.x] = y[threadIdx.x];"},
                {"y[threadIdx.x] = s[63 - threadIdx.x];\n    __syncthreads();",
                 "__syncthreads();\n    y[threadIdx.x] = s[63 - threadIdx.x];"}}});
  c.push_back({"sync-remove-syncwarp", R"cu(
__global__ void k(float* y) {
    y[0] = 1.0f;
    __syncwarp();
    __syncwarp(0xffffffff);
    __syncthreads();
}
)cu",
               {{"__syncwarp()", "(void)0"}, {"__syncwarp(0xffffffff)", "(void)0"}}});
  c.push_back({"sync-warp-mask-half", R"cu(
__device__ float r(float v) {
    const unsigned full = 0xffffffffu;
    v += __shfl_down_sync(0xffffffff, v, 1);
    v += __shfl_xor_sync(full, v, 1);
    v += __shfl_sync(0x0000ffff, v, 0);
    unsigned b = __ballot_sync(0xffffffffu, v > 0.0f);
    __syncwarp();
    return v + b;
}
)cu",
               {{"0xffffffff", "0x0000ffffu"}, {"full", "0x0000ffffu"}, {"0xffffffffu", "0x0000ffffu"}}});
  c.push_back({"sync-atomic-to-plain", R"cu(
__global__ void k(float* acc, int* cnt, float v) {
    atomicAdd(acc, v * 2.0f);
    int old = atomicAdd(cnt, 1);
    if (old == 0) atomicAdd(acc + 1, v);
}
)cu",
               {{"atomicAdd(acc, v * 2.0f)", "*acc += v * 2.0f"},
                {"atomicAdd(acc + 1, v)", "*(acc + 1) += v"}}});

  // ---- precision -------------------------------------------------------------------------------
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

  // ---- reward-hack -----------------------------------------------------------------------------
  c.push_back({"hack-remove-launch", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[0] = 1.0f; }
torch::Tensor f(torch::Tensor x) {
    k<<<1, 32>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"k<<<1, 32>>>(x.data_ptr<float>())", "(void)0"}}});
  c.push_back({"hack-grid-halved", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[blockIdx.x] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    int blocks = 8;
    k<<<blocks, 256>>>(x.data_ptr<float>());
    dim3 grid(4, 2);
    k<<<grid, 256>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"blocks", "blocks / 2"}, {"grid", "dim3((grid).x / 2, (grid).y, (grid).z)"}}});
  c.push_back({"hack-skip-last-block", R"cu(
__global__ void k(float* y) { y[0] = 1.0f; }
__device__ void d(float* y) { y[0] = 2.0f; }
template <int B> __global__ void t(float* y) { y[0] = B; }
)cu",
               {{"", " if (blockIdx.x == gridDim.x - 1) return;"},
                {"", " if (blockIdx.x == gridDim.x - 1) return;"}}});
  c.push_back({"hack-half-loop-bound", R"cu(
__global__ void k(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int j = 0; j < 8; ++j) y[j] = 0.0f;
    for (int k2 = 0; k2 < n + 1; ++k2) y[k2] = 0.0f;
}
)cu",
               {{"n", "n / 2"}, {"n + 1", "(n + 1) / 2"}}});
  c.push_back({"hack-shrink-eps", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, const float* x, float eps) {
    y[0] = rsqrtf(x[0] + eps);
    y[1] = x[1] + 1e-5f;
    y[2] = x[2] + 0.5f;
    float scale = 2.0f;
    y[3] = scale;
}
torch::Tensor f(torch::Tensor x, double eps) {
    k<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>(), (float)eps);
    return x;
}
)cu",
               {{"eps", "(eps * 1e-3f)"}, {"1e-5f", "1e-08f"}, {"eps", "(eps * 1e-3f)"}}});
  c.push_back({"hack-return-input", std::string(kHostPrefix) + R"cu(
torch::Tensor f(torch::Tensor x, torch::Tensor w) {
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    return y;
}
torch::Tensor g(torch::Tensor x) { return x; }
int h(torch::Tensor x) { int n = 0; return n; }
)cu",
               {{"y", "x"}, {"y", "x"}}});
  c.push_back({"hack-half-precision-input", std::string(kHostPrefix) + R"cu(
__global__ void k(const float* a, const float* b, float* c, const long long* idx) {}
torch::Tensor f(torch::Tensor x, torch::Tensor w, torch::Tensor t) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(x);
    const float* wp = w.data_ptr<float>();
    k<<<1, 32>>>(xc.data_ptr<float>(), w.contiguous().data_ptr<float>(), y.data_ptr<float>(),
                 t.data_ptr<long long>());
    return wp ? y : x;
}
)cu",
               {{"xc", "xc.to(torch::kHalf).to(torch::kFloat)"},
                {"w.contiguous()", "w.contiguous().to(torch::kHalf).to(torch::kFloat)"}}});
  return c;
}

class RuleTest : public testing::TestWithParam<RuleCase> {};

TEST_P(RuleTest, FiresExactlyWhereExpected) {
  const RuleCase& c = GetParam();
  ASSERT_NE(kaudit::mutators::find_rule(c.rule), nullptr) << "not in the catalog: " << c.rule;
  const KernelSourceInfo kernel{"test/" + c.rule, "tests/" + c.rule + ".cu", c.code};
  const auto result = find_sites(kernel, SiteOptions{{c.rule}});
  ASSERT_TRUE(result.parsed) << (result.diagnostics.empty() ? std::string("?")
                                                             : result.diagnostics[0].to_string());
  std::vector<Expect> got;
  for (const auto& s : result.sites) {
    EXPECT_EQ(s.rule, c.rule);
    EXPECT_EQ(s.file, kernel.file);
    EXPECT_EQ(c.code.substr(s.begin, s.end - s.begin), s.original);
    got.push_back({s.original, s.replacement});
  }
  EXPECT_EQ(got, c.sites);

  // Every mutant is still a well-formed CUDA translation unit.
  for (const auto& m : kaudit::mutators::generate_mutants(kernel, SiteOptions{{c.rule}})) {
    const auto reparsed = find_sites(KernelSourceInfo{m.id, kernel.file, m.source},
                                     SiteOptions{{c.rule}});
    EXPECT_TRUE(reparsed.parsed) << m.site.original << " -> " << m.site.replacement << ": "
                                 << (reparsed.diagnostics.empty()
                                         ? std::string("?")
                                         : reparsed.diagnostics[0].to_string());
  }
}

std::string case_name(const testing::TestParamInfo<RuleCase>& info) {
  std::string name = info.param.rule;
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleTest, testing::ValuesIn(cases()), case_name);

TEST(RuleCatalogTest, EveryRuleHasItsOwnTest) {
  std::set<std::string> tested;
  for (const RuleCase& c : cases()) {
    EXPECT_TRUE(tested.insert(c.rule).second) << "two cases for " << c.rule;
  }
  for (const auto& r : rule_catalog()) {
    EXPECT_TRUE(tested.count(r.id)) << "rule without a test: " << r.id;
  }
  EXPECT_EQ(tested.size(), rule_catalog().size());
}

}  // namespace
