#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define TILE_S 32
#define SPLIT_F 8

// Block = TILE_S x SPLIT_F threads over a tile of 32 consecutive positions s of one batch b.
// Threads along y split the F features; partial sums of squares are reduced through shared
// memory, then every thread rescales its own features.
__global__ void rmsnorm_tile_kernel(const float* __restrict__ x, float* __restrict__ y,
                                    int F, int S, float eps) {
    __shared__ float ssq[SPLIT_F][TILE_S];
    __shared__ float scale_s[TILE_S];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int s = blockIdx.x * TILE_S + tx;
    const size_t batch_off = (size_t)blockIdx.y * F * S;
    const bool active = s < S;

    float acc = 0.0f;
    if (active) {
        for (int f = ty; f < F; f += SPLIT_F) {
            const float v = x[batch_off + (size_t)f * S + s];
            acc = fmaf(v, v, acc);
        }
    }
    ssq[ty][tx] = acc;
    __syncthreads();

    #pragma unroll
    for (int half = SPLIT_F / 2; half > 0; half >>= 1) {
        if (ty < half) ssq[ty][tx] += ssq[ty + half][tx];
        __syncthreads();
    }

    if (ty == 0) {
        scale_s[tx] = rsqrtf(ssq[0][tx] / (float)F + eps);
    }
    __syncthreads();

    if (active) {
        const float sc = scale_s[tx];
        for (int f = ty; f < F; f += SPLIT_F) {
            const size_t off = batch_off + (size_t)f * S + s;
            y[off] = x[off] * sc;
        }
    }
}

// ---- host ----
torch::Tensor rms_norm(torch::Tensor x, float eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 4, "x must be [B, F, D1, D2]");

    const int B = x.size(0);
    const int F = x.size(1);
    const int S = x.size(2) * x.size(3);
    TORCH_CHECK(B <= 65535, "batch exceeds gridDim.y");
    torch::Tensor y = torch::empty_like(x);
    if (B == 0 || S == 0 || F == 0) return y;

    dim3 block(TILE_S, SPLIT_F);
    dim3 grid((S + TILE_S - 1) / TILE_S, B);
    auto stream = at::cuda::getCurrentCUDAStream();
    rmsnorm_tile_kernel<<<grid, block, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), F, S, eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
