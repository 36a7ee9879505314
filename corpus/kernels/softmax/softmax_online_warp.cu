#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>

#define FULL_MASK 0xffffffffu

// Combine two (running max, running sum of exp(x - max)) pairs.
__device__ __forceinline__ void online_merge(float& m, float& s, float m_other, float s_other) {
    const float m_new = fmaxf(m, m_other);
    // When both maxima are equal the scale is exactly 1 (this also covers two empty states).
    const float scale_self = (m == m_new) ? 1.0f : expf(m - m_new);
    const float scale_other = (m_other == m_new) ? 1.0f : expf(m_other - m_new);
    s = s * scale_self + s_other * scale_other;
    m = m_new;
}

// One warp per row. Each lane keeps an online (running-max) softmax state over its strided
// elements, the states are merged with butterfly shuffles, then the row is written in one pass.
__global__ void softmax_online_warp_kernel(const float* __restrict__ x, float* __restrict__ y,
                                           int rows, int D) {
    const int lane = threadIdx.x % warpSize;
    const int warp_in_block = threadIdx.x / warpSize;
    const int warps_per_block = blockDim.x / warpSize;
    const int row = blockIdx.x * warps_per_block + warp_in_block;

    if (row < rows) {  // uniform across the warp: all 32 lanes take the same branch
        const float* xr = x + (size_t)row * D;
        float* yr = y + (size_t)row * D;

        float m = -3.402823466e+38f;
        float s = 0.0f;
        for (int j = lane; j < D; j += warpSize) {
            const float v = xr[j];
            if (v > m) {
                s = s * expf(m - v) + 1.0f;
                m = v;
            } else {
                s += expf(v - m);
            }
        }

        for (int offset = warpSize / 2; offset > 0; offset /= 2) {
            const float m_o = __shfl_xor_sync(FULL_MASK, m, offset);
            const float s_o = __shfl_xor_sync(FULL_MASK, s, offset);
            online_merge(m, s, m_o, s_o);
        }
        // Butterfly merges may round differently per lane: take lane 0's state everywhere.
        m = __shfl_sync(FULL_MASK, m, 0);
        s = __shfl_sync(FULL_MASK, s, 0);

        const float inv = 1.0f / s;
        for (int j = lane; j < D; j += warpSize) {
            yr[j] = expf(xr[j] - m) * inv;
        }
    }
}

// ---- host ----
torch::Tensor softmax_online(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");

    const int rows = (int)x.size(0);
    const int D = (int)x.size(1);
    torch::Tensor y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    const int threads = 128;  // 4 warps, one row each
    const int rows_per_block = threads / 32;
    const int blocks = (rows + rows_per_block - 1) / rows_per_block;
    softmax_online_warp_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, D);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
