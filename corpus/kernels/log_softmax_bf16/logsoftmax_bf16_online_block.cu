#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

// One block per row; every thread keeps a running (max, sum of exp(v - max)) pair over its share
// of the row, so the row is read once for the statistics and once for the output. The pairs are
// merged across the warp with shuffles and across the block through shared memory.

constexpr int kBlock = 256;  // a multiple of 32

struct MaxSum {
    float m;  // running max (-inf while nothing was seen)
    float s;  // sum of exp(v - m)
};

__device__ __forceinline__ void absorb(MaxSum& a, float v) {
    if (v == -INFINITY) return;  // exp(-inf - m) = 0; and -inf - -inf would be NaN while m is -inf
    if (v > a.m) {
        // The old sum is rescaled to the new max; with nothing seen yet it is 0 and stays 0.
        a.s = (a.s == 0.0f ? 0.0f : a.s * expf(a.m - v)) + 1.0f;
        a.m = v;
    } else {
        a.s += expf(v - a.m);
    }
}

// Merging with an empty pair (s == 0) must not evaluate exp(-inf - -inf).
__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
    if (b.s == 0.0f) return a;
    if (a.s == 0.0f) return b;
    const float m = fmaxf(a.m, b.m);
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum a) {
    for (int lane_mask = 16; lane_mask >= 1; lane_mask >>= 1) {
        MaxSum other;
        other.m = __shfl_xor_sync(0xffffffffu, a.m, lane_mask);
        other.s = __shfl_xor_sync(0xffffffffu, a.s, lane_mask);
        a = merge(a, other);
    }
    return a;
}

// `paired` (even D, both tensors 4-byte aligned): the row is read as __nv_bfloat162 pairs, which
// keeps every row aligned since each starts at an even element. Otherwise element by element.
__global__ void logsoftmax_bf16_online_kernel(const __nv_bfloat16* __restrict__ x,
                                              __nv_bfloat16* __restrict__ y, int D, bool paired) {
    __shared__ float warp_m[kBlock / 32];
    __shared__ float warp_s[kBlock / 32];
    __shared__ float row_shift;  // max + log(sum)

    const size_t row_start = (size_t)blockIdx.x * (size_t)D;
    const __nv_bfloat16* xr = x + row_start;
    __nv_bfloat16* yr = y + row_start;

    MaxSum acc = {-INFINITY, 0.0f};
    if (paired) {
        const __nv_bfloat162* x2 = reinterpret_cast<const __nv_bfloat162*>(xr);
        for (int p = threadIdx.x; p < D / 2; p += blockDim.x) {
            const float2 v = __bfloat1622float2(x2[p]);
            absorb(acc, v.x);
            absorb(acc, v.y);
        }
    } else {
        for (int j = threadIdx.x; j < D; j += blockDim.x) absorb(acc, __bfloat162float(xr[j]));
    }

    acc = warp_merge(acc);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) {
        warp_m[warp] = acc.m;
        warp_s[warp] = acc.s;
    }
    __syncthreads();
    if (warp == 0) {
        MaxSum w = {-INFINITY, 0.0f};
        if (lane < (int)(blockDim.x >> 5)) w = {warp_m[lane], warp_s[lane]};
        w = warp_merge(w);
        if (lane == 0) row_shift = w.m + logf(w.s);
    }
    __syncthreads();
    const float shift = row_shift;

    if (paired) {
        const __nv_bfloat162* x2 = reinterpret_cast<const __nv_bfloat162*>(xr);
        __nv_bfloat162* y2 = reinterpret_cast<__nv_bfloat162*>(yr);
        for (int p = threadIdx.x; p < D / 2; p += blockDim.x) {
            const float2 v = __bfloat1622float2(x2[p]);
            y2[p] = __floats2bfloat162_rn(v.x - shift, v.y - shift);
        }
    } else {
        for (int j = threadIdx.x; j < D; j += blockDim.x)
            yr[j] = __float2bfloat16_rn(__bfloat162float(xr[j]) - shift);
    }
}

torch::Tensor logsoftmax_bf16_online(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kBFloat16, "x must be bfloat16");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D [B, D]");
    torch::Tensor xc = x.contiguous();
    const int64_t rows = xc.size(0);
    const int64_t D = xc.size(1);
    TORCH_CHECK(D <= 2147483647, "rows longer than 2^31 - 1 elements are not supported");
    TORCH_CHECK(rows <= 2147483647, "more than 2^31 - 1 rows are not supported");
    torch::Tensor y = torch::empty_like(xc);
    if (rows == 0 || D == 0) return y;

    const __nv_bfloat16* xp = reinterpret_cast<const __nv_bfloat16*>(xc.data_ptr<at::BFloat16>());
    __nv_bfloat16* yp = reinterpret_cast<__nv_bfloat16*>(y.data_ptr<at::BFloat16>());
    const bool paired = D % 2 == 0 && (reinterpret_cast<uintptr_t>(xp) & 3u) == 0 &&
                        (reinterpret_cast<uintptr_t>(yp) & 3u) == 0;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    logsoftmax_bf16_online_kernel<<<(unsigned int)rows, kBlock, 0, stream>>>(xp, yp, (int)D, paired);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
