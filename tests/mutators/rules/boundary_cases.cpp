// Rule cases of the boundary family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> boundary_cases() {
  std::vector<RuleCase> c;
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
  return c;
}

}  // namespace kaudit::mutators::testing_cases
