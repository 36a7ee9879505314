#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

// One warp per row, four rows per block, three strided passes over the row: the max, the sum of
// exponentials after the max, then the outputs. No shared memory and no block barrier: a warp
// whose row is past the end leaves at once.

#define ROWS_PER_BLOCK 4

__device__ __forceinline__ float warp_max(float v) {
    for (int d = 16; d > 0; d /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

__global__ void logsoftmax_bf16_warp_kernel(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
                                            long long B, long long D) {
    const int lane = threadIdx.x % 32;
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    if (row >= B) return;  // the whole warp: every shuffle below still sees all 32 lanes
    const __nv_bfloat16* xr = x + row * D;
    __nv_bfloat16* yr = y + row * D;

    float m = -FLT_MAX;
    for (long long j = lane; j < D; j += 32) m = fmaxf(m, __bfloat162float(xr[j]));
    m = warp_max(m);

    float s = 0.0f;
    for (long long j = lane; j < D; j += 32) s += __expf(__bfloat162float(xr[j]) - m);
    s = warp_sum(s);
    const float log_sum = logf(s);

    for (long long j = lane; j < D; j += 32) {
        const float shifted = __bfloat162float(xr[j]) - m;
        yr[j] = __float2bfloat16_rn(shifted - log_sum);
    }
}

torch::Tensor logsoftmax_bf16_warp(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2-D CUDA tensor");
    TORCH_CHECK(x.scalar_type() == at::kBFloat16, "x must be bfloat16, got ", x.scalar_type());
    auto xc = x.contiguous();
    const long long B = xc.size(0), D = xc.size(1);
    auto y = torch::empty_like(xc);
    if (B == 0 || D == 0) return y;
    const long long blocks = (B + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    logsoftmax_bf16_warp_kernel<<<(unsigned)blocks, 32 * ROWS_PER_BLOCK>>>(
        reinterpret_cast<const __nv_bfloat16*>(xc.data_ptr<at::BFloat16>()),
        reinterpret_cast<__nv_bfloat16*>(y.data_ptr<at::BFloat16>()), B, D);
    auto err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "logsoftmax_bf16_warp_kernel: ", cudaGetErrorString(err));
    return y;
}
