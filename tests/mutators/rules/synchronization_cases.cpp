// Rule cases of the synchronization family (see rule_case.h).
#include "rule_case.h"

namespace kaudit::mutators::testing_cases {

std::vector<RuleCase> synchronization_cases() {
  std::vector<RuleCase> c;
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
  const std::string shuffles = R"cu(
__device__ float r(float v) {
    v += __shfl_down_sync(0xffffffff, v, 1);
    v += __shfl_up_sync(0xffffffff, v, 1);
    v += __shfl_xor_sync(0xffffffff, v, 1);
    return v + __shfl_sync(0xffffffff, v, 0);
}
)cu";
  c.push_back({"sync-shfl-direction-swap", shuffles,
               {{"__shfl_down_sync", "__shfl_up_sync"}, {"__shfl_up_sync", "__shfl_down_sync"}}});
  c.push_back({"sync-shfl-xor-to-down", shuffles, {{"__shfl_xor_sync", "__shfl_down_sync"}}});
  c.push_back({"sync-atomic-add-to-exch", R"cu(
__global__ void k(float* acc, int* cnt, double* d, float v) {
    atomicAdd(acc, v);
    int old = atomicAdd(cnt, 1);
    atomicAdd(d, 1.0);
    acc[old] = 0.0f;
}
)cu",
               {{"atomicAdd", "atomicExch"}, {"atomicAdd", "atomicExch"}}});
  c.push_back({"sync-barrier-into-branch", R"cu(
__global__ void k(float* y, int n) {
    __shared__ float s[64];
    const int tid = threadIdx.x;
    s[tid] = y[tid];
    __syncthreads();
    if (tid < 32) s[tid] += s[tid + 32];
    __syncthreads();
    if (tid < 16) {
        s[tid] += s[tid + 16];
    }
    __syncthreads();
    if (n > 4) y[0] = 1.0f;
    __syncthreads();
    if (tid >= n) return;
    __syncthreads();
    y[tid] = s[0];
}
)cu",
               {{"if (tid < 32) s[tid] += s[tid + 32];\n    __syncthreads();",
                 "if (tid < 32) { s[tid] += s[tid + 32]; __syncthreads(); }"},
                {"if (tid < 16) {\n        s[tid] += s[tid + 16];\n    }\n    __syncthreads();",
                 "if (tid < 16) {\n        s[tid] += s[tid + 16];\n    __syncthreads(); }"}}});
  c.push_back({"sync-skip-last-reduction-barrier", R"cu(
__global__ void k(float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = y[threadIdx.x];
    __syncthreads();
    for (int stride = 32; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    const float total = s[0];
    for (int o = 1; o < 64; o <<= 1) {
        __syncthreads();
    }
    for (int h = 8; h > 0; h /= 2) __syncthreads();
    for (int t = 32; t > 0; t >>= 1) {
        if (threadIdx.x < t) s[threadIdx.x] += s[threadIdx.x + t];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[0] = s[0] + total;
    for (int u = 32; u > 0; u >>= 1) {
        __syncthreads();
    }
}
)cu",
               {{"__syncthreads()", "if (stride > 1) __syncthreads()"}}});
  c.push_back({"sync-remove-threadfence", R"cu(
__global__ void k(float* y, int* flag) {
    y[blockIdx.x] = 1.0f;
    __threadfence();
    atomicAdd(flag, 1);
    __threadfence_block();
    __threadfence_system();
}
)cu",
               {{"__threadfence()", "(void)0"}, {"__threadfence_block()", "(void)0"}}});
  return c;
}

}  // namespace kaudit::mutators::testing_cases
