#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Suffix sums: y[i] = x[i] + x[i+1] + ... + x[D-1].
// One warp per row, WARPS rows per block. The row is walked in 32-element tiles from its right
// end to its left; inside a tile a suffix scan with __shfl_down_sync (lane l adds lane l+off)
// gives each lane the sum from itself to the tile's end, and a carry holds everything to the
// right of the tile. Lane 0's scanned value is the tile total, broadcast with __shfl_sync.
template <int WARPS>
__global__ void cumsum_reverse_warp_kernel(const float* __restrict__ x, float* __restrict__ y,
                                           int B, int D) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (row >= B) return;  // warp-uniform, so the full shuffle mask stays valid
    const float* xr = x + (size_t)row * D;
    float* yr = y + (size_t)row * D;

    float carry = 0.0f;
    // Tiles aligned to multiples of 32; only the rightmost one can be partial (zero-padded).
    for (int base = ((D - 1) / 32) * 32; base >= 0; base -= 32) {
        const int i = base + lane;
        float v = (i < D) ? xr[i] : 0.0f;
        #pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const float down = __shfl_down_sync(0xffffffff, v, off);
            if (lane + off < 32) v += down;  // lanes near the end have no partner
        }
        if (i < D) yr[i] = carry + v;
        carry += __shfl_sync(0xffffffff, v, 0);
    }
}

// ---- host ----
torch::Tensor cumsum_reverse_warp(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2 && (dim == 1 || dim == -1), "expects [B, D] scanned along dim 1");

    const int B = x.size(0);
    const int D = x.size(1);
    auto y = torch::empty_like(x);
    if (B == 0 || D == 0) return y;

    constexpr int kWarps = 4;
    const int blocks = (B + kWarps - 1) / kWarps;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cumsum_reverse_warp_kernel<kWarps><<<blocks, kWarps * 32, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), B, D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "cumsum_reverse_warp_kernel: ", cudaGetErrorString(err));
    return y;
}
