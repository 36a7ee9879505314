#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Numerically symmetric sigmoid: e = exp(-|v|) is in (0, 1] and never overflows;
// v >= 0 gives 1 / (1 + e), v < 0 gives e / (1 + e) (= 1 - sigmoid(|v|) without the
// cancellation that subtraction would cause).
__device__ __forceinline__ float stable_sigmoid(float v) {
    const float e = expf(-fabsf(v));
    const float r = 1.0f / (1.0f + e);
    return v >= 0.0f ? r : e * r;
}

// A block covers a tile of BLOCK * ITEMS elements; thread t handles t, t + BLOCK, ...
// so each of the ITEMS steps is a coalesced access of BLOCK consecutive floats. Full
// tiles skip the per-item bounds test; only the last, partial tile checks each index.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) sigmoid_tile_kernel(const float* __restrict__ x,
                                                             float* __restrict__ y, long long n) {
    const long long tile_start = (long long)blockIdx.x * (BLOCK * ITEMS);
    const long long first = tile_start + threadIdx.x;
    if (tile_start + BLOCK * ITEMS <= n) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = first + k * BLOCK;
            y[i] = stable_sigmoid(x[i]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = first + k * BLOCK;
            if (i < n) {
                y[i] = stable_sigmoid(x[i]);
            }
        }
    }
}

// ---- host ----
torch::Tensor sigmoid_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    auto y = torch::empty_like(x);
    const long long n = x.numel();
    if (n == 0) {
        return y;
    }
    constexpr int kBlock = 256;
    constexpr int kItems = 4;
    const long long tile = (long long)kBlock * kItems;
    const long long blocks = (n + tile - 1) / tile;
    TORCH_CHECK(blocks <= 2147483647LL, "x too large for a 1-D grid");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sigmoid_tile_kernel<kBlock, kItems><<<(unsigned int)blocks, kBlock, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "sigmoid_tile_kernel launch failed: ", cudaGetErrorString(err));
    return y;
}
