#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Welford state: count, mean, sum of squared deviations.
struct WelfordState {
    float n;
    float mean;
    float m2;
};

__device__ __forceinline__ WelfordState welford_combine(WelfordState a, WelfordState b) {
    if (b.n == 0.0f) return a;
    if (a.n == 0.0f) return b;
    WelfordState r;
    r.n = a.n + b.n;
    const float delta = b.mean - a.mean;
    const float w = b.n / r.n;
    r.mean = a.mean + delta * w;
    r.m2 = a.m2 + b.m2 + delta * delta * a.n * w;
    return r;
}

// One warp per row: lanes accumulate Welford states over strided columns, the states are
// folded into lane 0 with __shfl_down_sync and broadcast back.
__global__ void layernorm_welford_warp_kernel(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              const float* __restrict__ beta,
                                              float* __restrict__ y,
                                              int rows, int D, float eps) {
    const unsigned int full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) {
        return;  // the whole warp leaves together (row is warp-uniform, no barrier below)
    }
    const float* xr = x + (size_t)row * D;
    float* yr = y + (size_t)row * D;

    WelfordState st = {0.0f, 0.0f, 0.0f};
    for (int j = lane; j < D; j += 32) {
        const float v = xr[j];
        st.n += 1.0f;
        const float delta = v - st.mean;
        st.mean += delta / st.n;
        st.m2 += delta * (v - st.mean);
    }

    for (int offset = 16; offset > 0; offset >>= 1) {
        WelfordState other;
        other.n = __shfl_down_sync(full, st.n, offset);
        other.mean = __shfl_down_sync(full, st.mean, offset);
        other.m2 = __shfl_down_sync(full, st.m2, offset);
        st = welford_combine(st, other);
    }
    const float mean = __shfl_sync(full, st.mean, 0);
    const float m2 = __shfl_sync(full, st.m2, 0);
    const float var = fmaxf(m2 / (float)D, 0.0f);  // biased variance, like nn.LayerNorm
    const float rstd = rsqrtf(var + eps);

    for (int j = lane; j < D; j += 32) {
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}

// ---- host ----
torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "all tensors must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(weight.is_contiguous() && bias.is_contiguous(), "weight and bias must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be [B, D]");
    const int rows = x.size(0);
    const int D = x.size(1);
    TORCH_CHECK(weight.numel() == D && bias.numel() == D, "weight/bias must have D elements");

    auto y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    const int warps_per_block = 8;
    const dim3 block(warps_per_block * 32);
    const dim3 grid((rows + warps_per_block - 1) / warps_per_block);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    layernorm_welford_warp_kernel<<<grid, block, 0, stream>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        rows, D, static_cast<float>(eps));
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "layernorm kernel launch failed");
    return y;
}
