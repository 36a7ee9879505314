#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <ATen/cuda/CUDAContext.h>

// Chan et al.'s parallel combination of Welford states (count, mean, sum of squared deviations
// from the mean): folds (nb, mb, qb) into (na, ma, qa). All float32, whatever the storage type.
__device__ __forceinline__ void welford_merge(int& na, float& ma, float& qa, int nb, float mb, float qb) {
    const int n = na + nb;
    if (n == 0) return;
    const float delta = mb - ma;
    const float frac_b = (float)nb / (float)n;
    ma = ma + delta * frac_b;
    qa = qa + qb + delta * delta * (float)na * frac_b;
    na = n;
}

// One warp per row. Each lane runs Welford's update over its strided columns (scalar __half
// loads widened to float, float32 mean and M2), the 32 states are combined with an xor
// butterfly, and lane 0's result is broadcast so every lane normalises with identical statistics.
__global__ void layernorm_fp16_welford_kernel(const __half* __restrict__ x,
                                              const __half* __restrict__ weight,
                                              const __half* __restrict__ bias,
                                              __half* __restrict__ y,
                                              int rows, int D, float eps) {
    const unsigned int mask = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;  // whole warps leave together; nothing below synchronises the block

    const __half* xr = x + (size_t)row * D;
    __half* yr = y + (size_t)row * D;

    int count = 0;
    float mean = 0.0f;
    float m2 = 0.0f;
    for (int c = lane; c < D; c += 32) {
        const float v = __half2float(xr[c]);
        ++count;
        const float d_old = v - mean;
        mean += d_old / (float)count;
        m2 += d_old * (v - mean);
    }

    for (int lane_mask = 16; lane_mask >= 1; lane_mask >>= 1) {
        const int count_o = __shfl_xor_sync(mask, count, lane_mask);
        const float mean_o = __shfl_xor_sync(mask, mean, lane_mask);
        const float m2_o = __shfl_xor_sync(mask, m2, lane_mask);
        welford_merge(count, mean, m2, count_o, mean_o, m2_o);
    }
    // Merging a with b and b with a can round differently: use lane 0's statistics everywhere.
    const float row_mean = __shfl_sync(mask, mean, 0);
    const float row_m2 = __shfl_sync(mask, m2, 0);
    const float var = fmaxf(row_m2 / (float)D, 0.0f);  // biased variance
    const float inv_std = rsqrtf(var + eps);

    for (int c = lane; c < D; c += 32) {
        const float v = __half2float(xr[c]);
        const float out = (v - row_mean) * inv_std * __half2float(weight[c]) + __half2float(bias[c]);
        yr[c] = __float2half_rn(out);
    }
}

// ---- host ----
torch::Tensor layernorm_fp16_welford(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(weight.is_cuda() && bias.is_cuda(), "weight and bias must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(),
                "x, weight and bias must be contiguous");
    TORCH_CHECK(x.scalar_type() == at::kHalf && weight.scalar_type() == at::kHalf &&
                    bias.scalar_type() == at::kHalf,
                "x, weight and bias must be float16");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    const int rows = (int)x.size(0);
    const int D = (int)x.size(1);
    TORCH_CHECK(weight.numel() == D && bias.numel() == D, "weight and bias must have D elements");

    auto y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    const int warps_per_block = 4;
    const dim3 block(warps_per_block * 32);
    const dim3 grid((rows + warps_per_block - 1) / warps_per_block);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    layernorm_fp16_welford_kernel<<<grid, block, 0, stream>>>(
        reinterpret_cast<const __half*>(x.data_ptr<at::Half>()),
        reinterpret_cast<const __half*>(weight.data_ptr<at::Half>()),
        reinterpret_cast<const __half*>(bias.data_ptr<at::Half>()),
        reinterpret_cast<__half*>(y.data_ptr<at::Half>()), rows, D, static_cast<float>(eps));
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "layernorm_fp16_welford_kernel launch: ", cudaGetErrorString(err));
    return y;
}
