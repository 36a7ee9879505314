#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Two kernels. (1) z = x W^T + b, one thread per output, written straight into the output
// buffer. (2) One block per (row, group): the group's C = N / G values are reduced twice in
// shared memory (mean first, then the mean squared deviation, which avoids the cancellation of
// E[z^2] - E[z]^2), then normalised in place with the per-feature affine and clamped.
#define GN_THREADS 128  // a power of two: the tree halves it

__global__ void ggh_gemm_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                const float* __restrict__ bias, float* __restrict__ y,
                                int B, int K, int N) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (b >= B || n >= N) return;
    const float* xr = x + (size_t)b * K;
    const float* wr = w + (size_t)n * K;
    float acc = bias[n];
    for (int k = 0; k < K; ++k) {
        acc += xr[k] * wr[k];
    }
    y[(size_t)b * N + n] = acc;
}

// Sum of the block's `v` over its GN_THREADS threads; every thread gets the total back.
__device__ float ggh_block_sum(float v, float* red) {
    const int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int s = GN_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    const float total = red[0];
    __syncthreads();  // everyone has read red[0] before the buffer is reused
    return total;
}

__global__ void ggh_groupnorm_hardtanh_kernel(float* __restrict__ y, const float* __restrict__ gamma,
                                              const float* __restrict__ beta, int N, int G, float eps,
                                              float lo, float hi) {
    __shared__ float red[GN_THREADS];

    const int b = blockIdx.x / G;
    const int g = blockIdx.x - b * G;
    const int C = N / G;
    float* seg = y + (size_t)b * N + (size_t)g * C;  // this (row, group)'s C contiguous values
    const float* gseg = gamma + (size_t)g * C;
    const float* bseg = beta + (size_t)g * C;

    float s = 0.0f;
    for (int c = threadIdx.x; c < C; c += GN_THREADS) s += seg[c];
    const float mean = ggh_block_sum(s, red) / (float)C;

    float q = 0.0f;
    for (int c = threadIdx.x; c < C; c += GN_THREADS) {
        const float d = seg[c] - mean;
        q += d * d;
    }
    const float var = ggh_block_sum(q, red) / (float)C;  // biased, as GroupNorm uses
    const float rstd = rsqrtf(var + eps);

    for (int c = threadIdx.x; c < C; c += GN_THREADS) {
        float v = (seg[c] - mean) * rstd * gseg[c] + bseg[c];
        seg[c] = fminf(fmaxf(v, lo), hi);
    }
}

// ---- host ----
torch::Tensor ggh_gemm_then_norm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                         torch::Tensor gn_weight, torch::Tensor gn_bias, int64_t num_groups,
                                         double eps, double hardtanh_min, double hardtanh_max) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda() && gn_weight.is_cuda() && gn_bias.is_cuda(),
                "all inputs must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous() &&
                gn_weight.is_contiguous() && gn_bias.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    const int N = (int)weight.size(0);
    TORCH_CHECK(bias.numel() == N && gn_weight.numel() == N && gn_bias.numel() == N, "bias and affine must have N elements");
    TORCH_CHECK(num_groups >= 1 && N % num_groups == 0, "out_features must be a multiple of num_groups");

    const int B = (int)x.size(0);
    const int K = (int)x.size(1);
    const int G = (int)num_groups;
    auto y = torch::empty({B, N}, x.options());
    if (B == 0 || N == 0) return y;

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const dim3 block(32, 8);
    const dim3 grid((N + block.x - 1) / block.x, (B + block.y - 1) / block.y);
    TORCH_CHECK(grid.y <= 65535, "batch too large for the grid");
    ggh_gemm_kernel<<<grid, block, 0, stream>>>(x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
                                                y.data_ptr<float>(), B, K, N);
    C10_CUDA_KERNEL_LAUNCH_CHECK();

    const long long segments = (long long)B * G;
    TORCH_CHECK(segments <= 2147483647LL, "too many (row, group) segments");
    ggh_groupnorm_hardtanh_kernel<<<(unsigned)segments, GN_THREADS, 0, stream>>>(
        y.data_ptr<float>(), gn_weight.data_ptr<float>(), gn_bias.data_ptr<float>(), N, G, (float)eps,
        (float)hardtanh_min, (float)hardtanh_max);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
