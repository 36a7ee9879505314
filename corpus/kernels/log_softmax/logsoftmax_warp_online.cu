#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

#define LSM_FULL_MASK 0xffffffffu

// Merge (m_o, s_o) into (m, s), where s is a sum of exp(x - m). The state with the smaller max
// is rescaled by exp(its max - new max); equal maxima need no expf (and two empty lanes,
// both at the sentinel, stay empty instead of computing exp(0) = 1 for nothing).
__device__ __forceinline__ void lse_merge(float& m, float& s, float m_o, float s_o) {
    if (m_o > m) {
        s = s * expf(m - m_o) + s_o;
        m = m_o;
    } else if (m_o < m) {
        s += s_o * expf(m_o - m);
    } else {
        s += s_o;
    }
}

// One warp per row, one read pass for the statistics: each lane keeps a running max and a sum
// rescaled whenever the max grows, the 32 states meet in a butterfly (__shfl_xor_sync), and
// a second pass writes x - (max + log(sum)).
__global__ void log_softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y,
                                        int rows, int D) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // the same for all 32 lanes of a warp, so shuffles stay full

    const float* xr = x + (size_t)row * D;
    float* yr = y + (size_t)row * D;

    float m = -3.402823466e+38f;
    float s = 0.0f;
    for (int j = lane; j < D; j += 32) {
        const float v = xr[j];
        if (v > m) {
            s = s * expf(m - v) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }

    #pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        const float m_o = __shfl_xor_sync(LSM_FULL_MASK, m, mask);
        const float s_o = __shfl_xor_sync(LSM_FULL_MASK, s, mask);
        lse_merge(m, s, m_o, s_o);
    }
    // The butterfly may round differently per lane: use lane 0's result everywhere, so a row
    // has one normaliser.
    const float lse = __shfl_sync(LSM_FULL_MASK, m + logf(s), 0);

    for (int j = lane; j < D; j += 32) yr[j] = xr[j] - lse;
}

// ---- host ----
torch::Tensor log_softmax_warp(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    const int rows = (int)x.size(0);
    const int D = (int)x.size(1);
    auto y = torch::empty({rows, D}, x.options());
    if (rows == 0 || D == 0) return y;

    const int threads = 256;  // 8 warps, one row each
    const int rows_per_block = threads / 32;
    const int blocks = (rows + rows_per_block - 1) / rows_per_block;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    log_softmax_warp_kernel<<<blocks, threads, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "log_softmax_warp_kernel launch failed");
    return y;
}
