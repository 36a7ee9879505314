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
  c.push_back({"bound-reduction-stop-early", R"cu(
__global__ void k(float* y, int n) {
    __shared__ float s[64];
    for (int t = 32; t > 0; t >>= 1) s[t] += s[t + 1];
    for (int off = 16; off > 0; off /= 2) y[off] = __shfl_down_sync(0xffffffff, y[0], off);
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int j = n; j > 0; --j) y[j] = 0.0f;
    for (int u = 8; u > 1; u >>= 1) y[u] = 0.0f;
}
)cu",
               {{"0", "1"}, {"0", "1"}}});
  c.push_back({"bound-reduction-start-halved", R"cu(
template <int B>
__global__ void k(float* y) {
    __shared__ float s[B];
    for (int t = B / 2; t > 0; t >>= 1) s[threadIdx.x] += s[threadIdx.x + t];
    for (int t = blockDim.x >> 1; t > 0; t >>= 1) s[threadIdx.x] += s[threadIdx.x + t];
    float v = y[0];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);
    y[0] = v + s[0];
}
template __global__ void k<128>(float*);
)cu",
               {{"B / 2", "(B / 2) / 2"}, {"blockDim.x >> 1", "(blockDim.x >> 1) / 2"}}});
  c.push_back({"bound-vec-count-round-up", std::string(kHostPrefix) + R"cu(
template <int B>
__global__ void k(float* y, int D) {
    const int D4 = D / 4;
    const int half = B / 2;
    const int w = blockDim.x / 2;
    const int q = (D + 3) / 4;
    const int r = D / 3;
    y[0] = D4 + half + w + q + r + warpSize / 2;
}
torch::Tensor f(torch::Tensor x) {
    const long long n = x.numel();
    const long long n2 = n / 2;
    k<256><<<1, 256>>>(x.data_ptr<float>(), (int)n2);
    return x;
}
)cu",
               {{"D / 4", "(D + 3) / 4"}, {"n / 2", "(n + 1) / 2"}}});
  c.push_back({"bound-loop-start-minus-one", R"cu(
__global__ void k(float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) y[j] = 0.0f;
    for (int c = 2; c <= n; ++c) y[c] = 0.0f;
    for (unsigned u = 0; u < 4u; ++u) y[u] = 0.0f;
    for (int s = 16; s > 0; s >>= 1) y[s] = 0.0f;
    float r[4][4];
    for (int q = 0; q < 4; ++q) r[0][q] = y[q];
    y[0] = r[0][1];
}
)cu",
               {{"0", "-1"}, {"threadIdx.x", "threadIdx.x - 1"}, {"2", "1"}}});
  c.push_back({"bound-smem-array-minus-one", R"cu(
#define TILE 16
template <int B>
__global__ void k(float* y) {
    __shared__ float red[B];
    __shared__ float tile[TILE][TILE + 1];
    __shared__ float slots[32];
    extern __shared__ float dyn[];
    float local[4];
    local[0] = 0.0f;
    red[0] = tile[0][0] = slots[0] = dyn[0] = local[0];
    y[0] = red[0];
}
template __global__ void k<64>(float*);
)cu",
               {{"B", "B - 1"}, {"TILE", "TILE - 1"}, {"32", "31"}}});
  c.push_back({"bound-smem-bytes-minus-one", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { extern __shared__ float s[]; s[0] = 0.0f; y[0] = s[0]; }
torch::Tensor f(torch::Tensor x) {
    const int threads = 256;
    const size_t smem = threads * sizeof(float);
    const size_t bytes = threads * sizeof(float);
    k<<<1, threads, smem>>>(x.data_ptr<float>());
    k<<<1, 64, sizeof(float) * 64>>>(x.data_ptr<float>());
    TORCH_CHECK(bytes > 0, "host only");
    return x;
}
)cu",
               {{"threads", "(threads - 1)"}, {"64", "63"}}});
  c.push_back({"bound-last-index-off-by-one", R"cu(
__global__ void k(float* y, const float* x, int n, int w) {
    y[0] = x[n - 1];
    y[1] = x[min(w, n - 1)];
    y[2] = x[n - 2] + x[n + 1];
    int last = n - 1;
    y[3] = x[w > 0 ? w - 1 : 0] + last;
}
)cu",
               {{"n - 1", "n"}, {"n - 1", "n"}}});
  c.push_back({"bound-drop-empty-check", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { if (threadIdx.x == 0) return; y[0] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    const int B = x.size(0);
    const int D = x.size(1);
    if (B == 0 || D == 0) return x;
    if (D == 0) { return x; }
    if (B == 1) return x;
    if (D == 0) { cudaDeviceSynchronize(); }
    if (B == 0) return x; else k<<<B, 32>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"B == 0", "false"}, {"D == 0", "false"}, {"D == 0", "false"}}});
  c.push_back({"bound-drop-tail-loop", R"cu(
__global__ void k(const float* x, float* y, long long n, long long n4) {
    const long long t = threadIdx.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (long long i = t; i < n4; i += 32) y[i] = x4[i].x;
    for (long long i = 4 * n4 + t; i < n; i += 32) y[i] = x[i];
    long long j = t;
    for (; j + 96 < n; j += 128) y[j] = x[j];
    for (; j < n; j += 32) y[j] = x[j];
    for (long long a = 0; a < n; ++a) y[a] = 0.0f;
    for (long long b = t; b < n; b += 32) y[b] = 1.0f;
}
)cu",
               {{"i < n", "false"}, {"j < n", "false"}}});
  c.push_back({"bound-out-size-drop-plus-one", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, int H, int K, int s) {
    const int out = (H - K) / s + 1;
    const int mid = H / 2 + 1;
    y[0] = out + mid;
}
torch::Tensor f(torch::Tensor x, int64_t pad) {
    const int H = x.size(2);
    const int K = 3;
    const int H_out = (H + 2 * (int)pad - K) / 2 + 1;
    const int host_only = (H - K) / 2 + 1;
    TORCH_CHECK(host_only > 0, "host only");
    k<<<1, 32>>>(x.data_ptr<float>(), H_out, K, 1);
    return x;
}
)cu",
               {{"(H - K) / s + 1", "(H - K) / s"},
                {"(H + 2 * (int)pad - K) / 2 + 1", "(H + 2 * (int)pad - K) / 2"}}});
  c.push_back({"bound-loop-ge-to-gt", R"cu(
__global__ void k(float* y, int n) {
    for (int t = n - 1; t >= 0; --t) y[t] = 0.0f;
    for (int i = 0; i < n; ++i) y[i] = 0.0f;
    for (int s = 16; s > 0; s >>= 1) y[s] = 0.0f;
    if (n >= 3) y[0] = 1.0f;
}
)cu",
               {{">=", ">"}}});
  c.push_back({"bound-halo-short", R"cu(
template <int K, int TILE>
__global__ void k(float* y, int n) {
    constexpr int IN_T = TILE + K - 1;
    __shared__ float patch[IN_T * IN_T];
    const int tiles = (n + TILE - 1) / TILE;
    const int last = n - 1;
    patch[0] = 0.0f;
    y[0] = patch[0] + tiles + last;
}
template __global__ void k<3, 16>(float*, int);
)cu",
               {{"1", "2"}}});
  c.push_back({"bound-grid-y-minus-one", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[blockIdx.y] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    const int N = x.size(0);
    const dim3 grid((N + 15) / 16, (N + 15) / 16);
    k<<<grid, dim3(16, 16)>>>(x.data_ptr<float>());
    dim3 flat(N);
    k<<<flat, 256>>>(x.data_ptr<float>());
    k<<<dim3(4, 2, 8), 256>>>(x.data_ptr<float>());
    k<<<N, 256>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"(N + 15) / 16", "((N + 15) / 16) - 1"}, {"2", "1"}}});
  c.push_back({"bound-launch-block-minus-warp", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y) { y[threadIdx.x] = 0.0f; }
torch::Tensor f(torch::Tensor x) {
    const int threads = 256;
    k<<<4, threads>>>(x.data_ptr<float>());
    k<<<4, 128>>>(x.data_ptr<float>());
    k<<<1, 32>>>(x.data_ptr<float>());
    k<<<4, dim3(16, 16)>>>(x.data_ptr<float>());
    return x;
}
)cu",
               {{"threads", "threads - 32"}, {"128", "128 - 32"}}});
  c.push_back({"bound-index-widening-dropped", R"cu(
__global__ void k(const float* x, float* y, int D, long long S) {
    const float* row = x + (size_t)blockIdx.x * D;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = row[0] + x[(size_t)D * S] + x[(int)D * D] + x[(long long)i * D];
}
)cu",
               {{"(size_t)blockIdx.x", "blockIdx.x"}, {"(long long)blockIdx.x", "blockIdx.x"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
