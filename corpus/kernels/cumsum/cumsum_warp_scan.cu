#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>

// One block per row, THREADS-element chunks. Inside a chunk: inclusive warp scans with
// __shfl_up_sync, the warp totals are scanned by the first warp through shared memory,
// and a running carry links consecutive chunks.
template <int THREADS>
__global__ void cumsum_warp_scan_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    constexpr int WARPS = THREADS / 32;
    __shared__ float warp_total[WARPS];

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int wid = tid >> 5;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    float carry = 0.0f;
    for (int base = 0; base < D; base += THREADS) {
        const int i = base + tid;
        float v = (i < D) ? xr[i] : 0.0f;

        #pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const float up = __shfl_up_sync(0xffffffff, v, off);
            if (lane >= off) v += up;
        }
        if (lane == 31) warp_total[wid] = v;
        __syncthreads();

        if (wid == 0) {
            float t = (lane < WARPS) ? warp_total[lane] : 0.0f;
            #pragma unroll
            for (int off = 1; off < 32; off <<= 1) {
                const float up = __shfl_up_sync(0xffffffff, t, off);
                if (lane >= off) t += up;
            }
            if (lane < WARPS) warp_total[lane] = t;  // inclusive scan of the warp totals
        }
        __syncthreads();

        const float before = (wid > 0) ? warp_total[wid - 1] : 0.0f;
        if (i < D) yr[i] = carry + (before + v);
        carry += warp_total[WARPS - 1];
        __syncthreads();  // warp_total is rewritten by the next chunk
    }
}

// ---- host ----
torch::Tensor cumsum_warp(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    TORCH_CHECK(dim == 1, "scan along dim 1 only");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int B = xc.size(0);
    const int D = xc.size(1);
    if (B == 0 || D == 0) return y;
    cumsum_warp_scan_kernel<256><<<B, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), D);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
