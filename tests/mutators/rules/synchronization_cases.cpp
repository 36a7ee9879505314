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
  return c;
}

}  // namespace kaudit::mutators::testing_cases
