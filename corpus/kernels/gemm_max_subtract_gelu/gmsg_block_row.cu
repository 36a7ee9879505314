#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// out[b, 0] = gelu(m_b - mean(m_b)), m_b = max_n (bias[n] + dot(x[b, :], w[n, :])).
//
// One block per row b. The block walks the N output features BR_THREADS at a time (thread t
// owns features t, t + BR_THREADS, ...). For each pass the x row is streamed through shared
// memory in chunks of BR_KCHUNK floats, so every thread reads it from shared memory instead of
// each re-reading it from global memory; the chunk loop runs the same number of times in every
// thread, so its barriers are uniform. Each thread keeps the running max of its features; a
// shared-memory tree folds the block's maxima, and thread 0 finishes the row: the max is a
// [B, 1] column, so its mean over dim 1 is that one value, the difference is 0, and exact GELU
// of it is written.
#define BR_THREADS 256
#define BR_KCHUNK 512

__global__ void gmsg_block_row_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ out,
                                      int K, int N) {
    __shared__ float xs[BR_KCHUNK];
    __shared__ float red[BR_THREADS];

    const int b = blockIdx.x;
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)b * K;

    float m = -INFINITY;  // a thread without features leaves the max unchanged
    for (int n0 = 0; n0 < N; n0 += BR_THREADS) {
        const int n = n0 + tid;
        float acc = 0.0f;
        for (int k0 = 0; k0 < K; k0 += BR_KCHUNK) {
            const int len = min(BR_KCHUNK, K - k0);
            for (int k = tid; k < len; k += BR_THREADS) xs[k] = xr[k0 + k];
            __syncthreads();  // chunk staged
            if (n < N) {
                const float* wr = w + (size_t)n * K + k0;
                for (int k = 0; k < len; ++k) acc += xs[k] * wr[k];
            }
            __syncthreads();  // chunk consumed before the next one overwrites it
        }
        if (n < N) m = fmaxf(m, acc + bias[n]);
    }

    red[tid] = m;
    __syncthreads();
    for (int s = BR_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }

    if (tid == 0) {
        const float rmax = red[0];
        const float mean = rmax;  // mean over dim 1 of the kept [B, 1] column: a single value
        const float v = rmax - mean;
        out[b] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

// ---- host ----
torch::Tensor gmsg_block_row_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, int64_t max_dim) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "all inputs must be CUDA tensors");
    TORCH_CHECK(x.is_contiguous() && weight.is_contiguous() && bias.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "float32 only");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && weight.size(1) == x.size(1), "x [B, K], weight [N, K]");
    TORCH_CHECK(bias.numel() == weight.size(0), "bias must have N elements");
    TORCH_CHECK(max_dim == 1, "only the max over the feature dimension (max_dim = 1) is implemented");
    TORCH_CHECK(weight.size(0) >= 1, "max over an empty dimension");

    const int B = (int)x.size(0);
    const int K = (int)x.size(1);
    const int N = (int)weight.size(0);
    auto out = torch::empty({B, 1}, x.options());
    if (B == 0) return out;

    gmsg_block_row_kernel<<<B, BR_THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(), K, N);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
