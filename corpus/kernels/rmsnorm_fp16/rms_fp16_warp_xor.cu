#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define RW_POS 8       // positions per warp
#define RW_GROUPS 4    // feature groups per warp: RW_POS * RW_GROUPS == 32 lanes
#define RW_WARPS 4     // warps per block

// x is [B, F, S] with S = D1 * D2; the statistics run over F (stride S). A warp owns 8 adjacent
// positions and splits F four ways: lane = g * 8 + p takes position p and features g, g + 4, ...
// (each load instruction covers 4 features x 8 adjacent halves). The four float32 partial sums
// of squares of a position live in lanes p, p + 8, p + 16, p + 24; an xor butterfly over lane
// bits 4 and 3 gives every one of them the total, so each lane rescales its own features
// without shared memory or a block barrier. Lanes past S stay in the warp for the shuffles.
__global__ void rms_warp_xor_kernel(const __half* __restrict__ x, __half* __restrict__ y,
                                    int F, long long S, float eps) {
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int p = lane % RW_POS;
    const int g = lane / RW_POS;
    const long long s = (long long)blockIdx.x * (RW_WARPS * RW_POS) + warp * RW_POS + p;
    const bool active = s < S;
    const size_t base = (size_t)blockIdx.y * F * S + s;

    float acc = 0.0f;
    if (active) {
        for (int f = g; f < F; f += RW_GROUPS) {
            const float v = __half2float(x[base + (size_t)f * S]);
            acc = fmaf(v, v, acc);
        }
    }
    for (int offset = 16; offset >= RW_POS; offset >>= 1) {
        acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    }
    const float inv = rsqrtf(acc / (float)F + eps);

    if (active) {
        for (int f = g; f < F; f += RW_GROUPS) {
            const size_t off = base + (size_t)f * S;
            y[off] = __float2half_rn(__half2float(x[off]) * inv);
        }
    }
}

// ---- host ----
torch::Tensor rmsnorm_fp16_warp(torch::Tensor x, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kHalf, "x must be float16");
    TORCH_CHECK(x.dim() == 4, "x must be [B, F, D1, D2]");

    const int B = (int)x.size(0);
    const int F = (int)x.size(1);
    const long long S = x.size(2) * x.size(3);
    TORCH_CHECK(B <= 65535, "batch exceeds gridDim.y");
    torch::Tensor y = torch::empty_like(x);
    if (B == 0 || F == 0 || S == 0) return y;

    const int per_block = RW_WARPS * RW_POS;
    dim3 block(RW_WARPS * 32);
    dim3 grid((unsigned int)((S + per_block - 1) / per_block), B);
    rms_warp_xor_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __half*>(x.data_ptr<at::Half>()),
        reinterpret_cast<__half*>(y.data_ptr<at::Half>()), F, S, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
