#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <ATen/cuda/CUDAContext.h>

// A finite "minus infinity": with it an empty state (max = kNoMax, sum = 0) merges without
// producing inf - inf = NaN.
#define kNoMax (-3.402823466e+38f)

// Fold the running (max, sum) state (mo, so) into (m, s); sums are rescaled to the larger max.
__device__ __forceinline__ void softmax_state_merge(float& m, float& s, float mo, float so) {
    const float mn = fmaxf(m, mo);
    s = s * expf(m - mn) + so * expf(mo - mn);
    m = mn;
}

// One warp per row, online softmax: every lane walks its strided elements once, keeping a
// running max and a float32 sum of exp(x - running max), rescaling the sum whenever the max
// grows. Lane states are folded into lane 0 with __shfl_down_sync, broadcast, and a second
// pass writes the probabilities (rounded to half once).
__global__ void softmax_online_warp_fp16_kernel(const __half* __restrict__ x, __half* __restrict__ y,
                                                int rows, int D) {
    const unsigned int full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int warps_per_block = blockDim.x >> 5;
    const int row = blockIdx.x * warps_per_block + (threadIdx.x >> 5);
    if (row >= rows) return;  // warp-uniform: all lanes of a warp share the row

    const __half* xr = x + (size_t)row * D;
    __half* yr = y + (size_t)row * D;

    float m = kNoMax;
    float s = 0.0f;
    for (int j = lane; j < D; j += 32) {
        const float v = __half2float(xr[j]);
        const float mn = fmaxf(m, v);
        s = s * expf(m - mn) + expf(v - mn);
        m = mn;
    }

    for (int offset = 16; offset > 0; offset >>= 1) {
        const float mo = __shfl_down_sync(full, m, offset);
        const float so = __shfl_down_sync(full, s, offset);
        softmax_state_merge(m, s, mo, so);
    }
    const float row_max = __shfl_sync(full, m, 0);
    const float row_sum = __shfl_sync(full, s, 0);
    const float inv_sum = 1.0f / row_sum;

    for (int j = lane; j < D; j += 32) {
        const float v = __half2float(xr[j]);
        yr[j] = __float2half_rn(expf(v - row_max) * inv_sum);
    }
}

// ---- host ----
torch::Tensor softmax_fp16_online(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == at::ScalarType::Half, "x must be float16");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    const int rows = (int)x.size(0);
    const int D = (int)x.size(1);
    auto y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    const int warps_per_block = 8;
    const int threads = warps_per_block * 32;
    const int blocks = (rows + warps_per_block - 1) / warps_per_block;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    softmax_online_warp_fp16_kernel<<<blocks, threads, 0, stream>>>(
        reinterpret_cast<const __half*>(x.data_ptr<at::Half>()),
        reinterpret_cast<__half*>(y.data_ptr<at::Half>()), rows, D);
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "softmax_online_warp_fp16_kernel: ", cudaGetErrorString(err));
    return y;
}
