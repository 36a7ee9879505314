#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

#define WARPS_PER_BLOCK 4

// One warp per row, warps striding over rows. Each row is read with float4 between a scalar
// head (up to the row's first 16-byte boundary) and a scalar tail, so odd D still vectorises.
// __shfl_down_sync folds the lanes' |x| sums into lane 0, __shfl_sync broadcasts D / sum.
__device__ __forceinline__ float warp_sum_to_lane0(float v) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

__global__ void l1norm_warp_kernel(const float* __restrict__ x, float* __restrict__ y,
                                   int B, int D, bool aligned) {
    const int lane = threadIdx.x & 31;
    const int warp = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);
    const int nwarps = gridDim.x * WARPS_PER_BLOCK;

    for (int row = warp; row < B; row += nwarps) {  // row is warp-uniform
        const size_t off = (size_t)row * D;
        const float* xr = x + off;
        float* yr = y + off;
        // Elements before the first 16-byte boundary of this row (buffers are 16-byte aligned
        // when `aligned`); without alignment the whole row is the scalar head.
        const int head = aligned ? min(D, (int)((4 - (off & 3)) & 3)) : D;
        const int n4 = (D - head) >> 2;
        const int tail0 = head + 4 * n4;
        const float4* xr4 = reinterpret_cast<const float4*>(xr + head);

        float s = 0.0f;
        for (int j = lane; j < head; j += 32) {
            s += fabsf(xr[j]);
        }
        for (int k = lane; k < n4; k += 32) {
            const float4 v = xr4[k];
            s += (fabsf(v.x) + fabsf(v.y)) + (fabsf(v.z) + fabsf(v.w));
        }
        for (int j = tail0 + lane; j < D; j += 32) {
            s += fabsf(xr[j]);
        }
        s = warp_sum_to_lane0(s);
        const float inv_mean = __shfl_sync(0xffffffffu, (float)D / s, 0);

        for (int j = lane; j < head; j += 32) {
            yr[j] = xr[j] * inv_mean;
        }
        float4* yr4 = reinterpret_cast<float4*>(yr + head);
        for (int k = lane; k < n4; k += 32) {
            float4 v = xr4[k];
            v.x *= inv_mean;
            v.y *= inv_mean;
            v.z *= inv_mean;
            v.w *= inv_mean;
            yr4[k] = v;
        }
        for (int j = tail0 + lane; j < D; j += 32) {
            yr[j] = xr[j] * inv_mean;
        }
    }
}

// ---- host ----
torch::Tensor l1norm_warp_rows(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    TORCH_CHECK(x.size(0) < ((int64_t)1 << 31) && x.size(1) < ((int64_t)1 << 31),
                "B and D must fit in int");

    const int B = (int)x.size(0);
    const int D = (int)x.size(1);
    auto y = torch::empty_like(x);
    if (B == 0 || D == 0) {
        return y;
    }
    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const bool aligned = (reinterpret_cast<uintptr_t>(xp) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(yp) % 16 == 0);

    int blocks = (B + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    if (blocks > 2048) {
        blocks = 2048;  // warps stride over the remaining rows
    }
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    l1norm_warp_kernel<<<blocks, 32 * WARPS_PER_BLOCK, 0, stream>>>(xp, yp, B, D, aligned);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "l1norm_warp_kernel: ", cudaGetErrorString(err));
    return y;
}
