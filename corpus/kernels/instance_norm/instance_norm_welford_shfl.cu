#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Running (count, mean, M2) of one thread's elements.
__device__ __forceinline__ void welford_push(float v, float& n, float& mean, float& m2) {
    n += 1.0f;
    const float d = v - mean;
    mean += d / n;
    m2 += d * (v - mean);
}

// Chan et al.'s merge of (nb, meanb, m2b) into (n, mean, m2). Either side may be empty: with
// n == 0 the result is b's state, with nb == 0 it is unchanged.
__device__ __forceinline__ void welford_merge(float& n, float& mean, float& m2,
                                              float nb, float meanb, float m2b) {
    const float nt = n + nb;
    if (nt == 0.0f) {
        return;
    }
    const float delta = meanb - mean;
    const float wb = nb / nt;
    mean += delta * wb;
    m2 += m2b + delta * delta * n * wb;
    n = nt;
}

// Tree over the 32 lanes of a warp with shuffle-down; lane 0 ends with the warp's state.
__device__ __forceinline__ void warp_welford(float& n, float& mean, float& m2) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float nb = __shfl_down_sync(0xffffffffu, n, off);
        const float meanb = __shfl_down_sync(0xffffffffu, mean, off);
        const float m2b = __shfl_down_sync(0xffffffffu, m2, off);
        welford_merge(n, mean, m2, nb, meanb, m2b);
    }
}

// One block per (n, c) plane, a single read pass for the statistics (Welford), float4 loads and
// stores when every plane starts 16-byte aligned (vec: HW % 4 == 0 and aligned buffers).
__global__ void instance_norm_welford_kernel(const float* __restrict__ x, float* __restrict__ y,
                                             int HW, float eps, bool vec) {
    __shared__ float w_n[kWarps];
    __shared__ float w_mean[kWarps];
    __shared__ float w_m2[kWarps];
    __shared__ float s_stats[2];

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const size_t base = (size_t)blockIdx.x * HW;
    const float* xp = x + base;
    float* yp = y + base;

    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xp);
        const int hw4 = HW >> 2;
        for (int k = tid; k < hw4; k += kThreads) {
            const float4 v = x4[k];
            welford_push(v.x, n, mean, m2);
            welford_push(v.y, n, mean, m2);
            welford_push(v.z, n, mean, m2);
            welford_push(v.w, n, mean, m2);
        }
    } else {
        for (int i = tid; i < HW; i += kThreads) {
            welford_push(xp[i], n, mean, m2);
        }
    }

    warp_welford(n, mean, m2);
    if (lane == 0) {
        w_n[warp] = n;
        w_mean[warp] = mean;
        w_m2[warp] = m2;
    }
    __syncthreads();

    if (warp == 0) {
        // Lanes past the warp count bring empty states.
        n = lane < kWarps ? w_n[lane] : 0.0f;
        mean = lane < kWarps ? w_mean[lane] : 0.0f;
        m2 = lane < kWarps ? w_m2[lane] : 0.0f;
        warp_welford(n, mean, m2);
        if (lane == 0) {
            // n == HW here; biased variance, clamped against a tiny negative from rounding.
            const float var = fmaxf(m2 / (float)HW, 0.0f);
            s_stats[0] = mean;
            s_stats[1] = rsqrtf(var + eps);
        }
    }
    __syncthreads();
    const float mu = s_stats[0];
    const float rstd = s_stats[1];

    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xp);
        float4* y4 = reinterpret_cast<float4*>(yp);
        const int hw4 = HW >> 2;
        for (int k = tid; k < hw4; k += kThreads) {
            float4 v = x4[k];
            v.x = (v.x - mu) * rstd;
            v.y = (v.y - mu) * rstd;
            v.z = (v.z - mu) * rstd;
            v.w = (v.w - mu) * rstd;
            y4[k] = v;
        }
    } else {
        for (int i = tid; i < HW; i += kThreads) {
            yp[i] = (xp[i] - mu) * rstd;
        }
    }
}

// ---- host ----
torch::Tensor instance_norm_welford(torch::Tensor x, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.dim() == 4, "x must be [N, C, H, W]");

    const int64_t planes = x.size(0) * x.size(1);
    const int64_t HW = x.size(2) * x.size(3);
    TORCH_CHECK(HW < ((int64_t)1 << 31), "plane too large for 32-bit indexing");
    auto y = torch::empty_like(x);
    if (planes == 0 || HW == 0) {
        return y;
    }

    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    // Plane p starts at base + p*HW floats: 16-byte aligned for all p iff the bases are and HW % 4 == 0.
    const bool vec = (HW % 4 == 0) && (reinterpret_cast<uintptr_t>(xp) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(yp) % 16 == 0);

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    instance_norm_welford_kernel<<<(unsigned int)planes, kThreads, 0, stream>>>(
        xp, yp, (int)HW, (float)eps, vec);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "instance_norm_welford_kernel launch failed");
    return y;
}
