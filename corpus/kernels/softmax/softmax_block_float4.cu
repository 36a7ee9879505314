#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

#define NEG_FLT_MAX (-3.402823466e+38f)

// Block-wide all-reduce: xor-butterfly inside each warp, one shared slot per warp, then every
// warp reduces the slots again so all threads end up with the same value. blockDim.x must be
// a multiple of warpSize (and at most 32 warps).
template <bool IS_MAX>
__device__ __forceinline__ float block_allreduce(float v, float* slots) {
    const int lane = threadIdx.x % warpSize;
    const int wid = threadIdx.x / warpSize;
    const int nwarps = blockDim.x / warpSize;
    for (int off = warpSize / 2; off > 0; off >>= 1) {
        const float o = __shfl_xor_sync(0xffffffff, v, off);
        v = IS_MAX ? fmaxf(v, o) : v + o;
    }
    if (lane == 0) slots[wid] = v;
    __syncthreads();
    v = (lane < nwarps) ? slots[lane] : (IS_MAX ? NEG_FLT_MAX : 0.0f);
    for (int off = warpSize / 2; off > 0; off >>= 1) {
        const float o = __shfl_xor_sync(0xffffffff, v, off);
        v = IS_MAX ? fmaxf(v, o) : v + o;
    }
    __syncthreads();  // slots can be reused by the next call
    return v;
}

// One block per row. VEC: the row is read as float4 (requires D % 4 == 0 and 16-byte aligned
// rows), otherwise element by element.
template <bool VEC>
__global__ void softmax_vec_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    __shared__ float slots[32];
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;
    const int D4 = D / 4;

    float m = NEG_FLT_MAX;
    if (VEC) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int j = threadIdx.x; j < D4; j += blockDim.x) {
            const float4 v = x4[j];
            m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
        }
    } else {
        for (int j = threadIdx.x; j < D; j += blockDim.x) m = fmaxf(m, xr[j]);
    }
    const float row_max = block_allreduce<true>(m, slots);

    float s = 0.0f;
    if (VEC) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int j = threadIdx.x; j < D4; j += blockDim.x) {
            const float4 v = x4[j];
            s += expf(v.x - row_max) + expf(v.y - row_max) + expf(v.z - row_max) + expf(v.w - row_max);
        }
    } else {
        for (int j = threadIdx.x; j < D; j += blockDim.x) s += expf(xr[j] - row_max);
    }
    const float inv = 1.0f / block_allreduce<false>(s, slots);

    if (VEC) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* y4 = reinterpret_cast<float4*>(yr);
        for (int j = threadIdx.x; j < D4; j += blockDim.x) {
            const float4 v = x4[j];
            float4 o;
            o.x = expf(v.x - row_max) * inv;
            o.y = expf(v.y - row_max) * inv;
            o.z = expf(v.z - row_max) * inv;
            o.w = expf(v.w - row_max) * inv;
            y4[j] = o;
        }
    } else {
        for (int j = threadIdx.x; j < D; j += blockDim.x) yr[j] = expf(xr[j] - row_max) * inv;
    }
}

// ---- host ----
torch::Tensor softmax_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    const int B = x.size(0);
    const int D = x.size(1);
    auto y = torch::empty_like(x);
    if (B == 0 || D == 0) return y;

    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const bool vec = (D % 4 == 0) && (reinterpret_cast<uintptr_t>(xp) % 16 == 0) &&
                     (reinterpret_cast<uintptr_t>(yp) % 16 == 0);
    const int threads = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (vec) {
        softmax_vec_kernel<true><<<B, threads, 0, stream>>>(xp, yp, D);
    } else {
        softmax_vec_kernel<false><<<B, threads, 0, stream>>>(xp, yp, D);
    }
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "softmax_vec_kernel launch failed");
    return y;
}
