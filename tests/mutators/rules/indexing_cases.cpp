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
  return c;
}

}  // namespace kaudit::mutators::testing_cases
