#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// One warp per row, WARPS rows per block. The row is walked left to right in 32-element tiles:
// a Hillis-Steele product scan over the lanes with __shfl_up_sync gives each lane the product
// from the tile's start to itself, the carry (product of all earlier tiles) is multiplied in,
// and lane 31's result, broadcast with __shfl_sync, becomes the next tile's carry.
// Lanes past the row's end hold 1.0f, the identity, so a partial last tile needs no special case
// in the scan itself.
template <int WARPS>
__global__ void cumprod_warp_kernel(const float* __restrict__ x, float* __restrict__ y,
                                    int B, int D) {
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (row >= B) return;  // the whole warp leaves together: the full mask stays valid
    const float* xr = x + (size_t)row * D;
    float* yr = y + (size_t)row * D;

    float carry = 1.0f;
    for (int base = 0; base < D; base += 32) {
        const int i = base + lane;
        float v = (i < D) ? xr[i] : 1.0f;
        #pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const float left = __shfl_up_sync(FULL, v, off);
            if (lane >= off) v *= left;
        }
        const float out = carry * v;
        if (i < D) yr[i] = out;
        carry = __shfl_sync(FULL, out, 31);  // product of everything up to this tile's end
    }
}

// ---- host ----
torch::Tensor cumprod_warp(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 2 && dim == 1, "expects [B, D] multiplied along dim 1");

    const int B = (int)x.size(0);
    const int D = (int)x.size(1);
    auto y = torch::empty_like(x);
    if (B == 0 || D == 0) return y;

    constexpr int kWarps = 8;  // 256 threads, 8 rows per block
    const int blocks = (B + kWarps - 1) / kWarps;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    cumprod_warp_kernel<kWarps><<<blocks, kWarps * 32, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), B, D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cumprod_warp_kernel launch failed");
    return y;
}
