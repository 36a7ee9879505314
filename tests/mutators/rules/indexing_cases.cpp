// Rule cases of the indexing family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> indexing_cases() {
  std::vector<RuleCase> c;
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
  c.push_back({"index-lane-warp-swap", R"cu(
__global__ void k(float* y, int n) {
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int wid = tid >> 5;
    const int l2 = threadIdx.x % warpSize;
    const int w2 = threadIdx.x / 32;
    const int other = n % 32;
    const int g = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    y[lane + wid + l2 + w2 + other + g] = 0.0f;
}
)cu",
               {{"tid & 31", "tid >> 5"}, {"tid >> 5", "(tid & 31)"}, {"%", "/"}, {"/", "%"}}});
  const std::string global_ids = R"cu(
__global__ void k(float* y, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int r = 16 * blockIdx.y + threadIdx.y;
    const float* row = x + blockIdx.x * n;
    int s = threadIdx.x + n * 2;
    y[i + j + r + s] = row[0];
}
)cu";
  c.push_back({"index-drop-block-offset", global_ids,
               {{"blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x"},
                {"(long long)blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x"},
                {"16 * blockIdx.y + threadIdx.y", "threadIdx.y"}}});
  c.push_back({"index-block-offset-unscaled", global_ids,
               {{"blockIdx.x * blockDim.x", "blockIdx.x"},
                {"(long long)blockIdx.x * blockDim.x", "(long long)blockIdx.x"},
                {"16 * blockIdx.y", "blockIdx.y"}}});
  c.push_back({"index-drop-row-offset", R"cu(
__global__ void k(float* y, const float* x, int D) {
    const float* row = x + (size_t)blockIdx.x * D;
    float* out = y + blockIdx.x * D + threadIdx.x;
    const float* same = x;
    const float4* v = reinterpret_cast<const float4*>(x);
    int i = D + 1;
    out[0] = row[i] + same[0] + v[0].x;
}
)cu",
               {{"x + (size_t)blockIdx.x * D", "x"}, {"y + blockIdx.x * D + threadIdx.x", "y"}}});
  c.push_back({"index-subscript-drop-row", R"cu(
__global__ void k(float* c, const float* a, int N) {
    int row = blockIdx.y, col = threadIdx.x;
    c[row * N + col] = a[(size_t)row * N + col];
    c[row * N + 1] = 0.0f;
    c[row + col] = 0.0f;
}
)cu",
               {{"row * N + col", "col"}, {"(size_t)row * N + col", "col"}}});
  c.push_back({"index-stride-wrong-dim", R"cu(
__global__ void k(float* y, const float* x, int H, int W, long long S) {
    int r = threadIdx.y, c = threadIdx.x;
    y[r * W + c] = x[r * H + c];
    y[r * S] = 0.0f;
    const int T = 8;
    y[r * T + c] = x[c];
}
)cu",
               {{"W", "H"}, {"H", "W"}, {"S", "W"}}});
  c.push_back({"index-vector-lane-swap", R"cu(
struct P { float x; };
__global__ void k(float4* y, const float4* x, float3* t, int2* p, P* q) {
    float4 v = x[0];
    v.x = v.y;
    t[0].z = 1.0f;
    y[0] = v;
    p->y = 0;
    q->x = 1.0f;
}
)cu",
               {{"x", "y"}, {"y", "x"}, {"y", "x"}}});
  c.push_back({"index-size-dim-swap", std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, int B, int D) {}
torch::Tensor f(torch::Tensor x) {
    TORCH_CHECK(x.size(0) > 0, "checks are not launch arithmetic");
    const int B = x.size(0);
    const int D = x.size(1);
    const int H = x.size(2);
    k<<<B, 256>>>(x.data_ptr<float>(), B, D + H);
    return x;
}
torch::Tensor square(torch::Tensor a) {
    TORCH_CHECK(a.size(0) == a.size(1), "square only: size(0) <-> size(1) would be equivalent");
    const int N = a.size(0);
    k<<<N, 256>>>(a.data_ptr<float>(), N, N);
    return a;
}
)cu",
               {{"0", "1"}, {"1", "0"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
