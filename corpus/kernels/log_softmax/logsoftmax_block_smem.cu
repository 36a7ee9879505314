#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

// Lowest finite float: the identity of max for any finite input.
#define LSM_NEG_BIG (-3.402823466e+38f)

// In-place tree over red[0, n): n is a power of two and every thread of the block calls it,
// so each level's barrier is reached by all threads.
__device__ __forceinline__ void block_tree_max(float* red, int tid, int n) {
    for (int s = n / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
}

__device__ __forceinline__ void block_tree_sum(float* red, int tid, int n) {
    for (int s = n / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
}

// One block per row. Pass 1: row max. Pass 2: sum of exp(x - max). Then each output is
// (x - max) - log(sum): subtracting the max first keeps expf finite for large inputs.
// The reduction buffer is dynamic shared memory sized by the launch (blockDim.x floats).
__global__ void log_softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, int D) {
    extern __shared__ float red[];
    const int tid = threadIdx.x;
    const int nthreads = blockDim.x;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    float m = LSM_NEG_BIG;
    for (int j = tid; j < D; j += nthreads) m = fmaxf(m, xr[j]);
    red[tid] = m;
    __syncthreads();
    block_tree_max(red, tid, nthreads);
    const float row_max = red[0];
    __syncthreads();  // all threads have read red[0] before pass 2 overwrites it

    float s = 0.0f;
    for (int j = tid; j < D; j += nthreads) s += expf(xr[j] - row_max);
    red[tid] = s;
    __syncthreads();
    block_tree_sum(red, tid, nthreads);
    const float log_sum = logf(red[0]);

    for (int j = tid; j < D; j += nthreads) yr[j] = (xr[j] - row_max) - log_sum;
}

// ---- host ----
torch::Tensor log_softmax_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D [B, D]");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    const int rows = (int)x.size(0);
    const int D = (int)x.size(1);
    auto y = torch::empty_like(x);
    if (rows == 0 || D == 0) return y;

    // Power of two (the tree halves it); fewer threads for short rows so that most do work.
    int threads = 32;
    while (threads < 512 && threads < D) threads <<= 1;
    const size_t smem = (size_t)threads * sizeof(float);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    log_softmax_block_kernel<<<rows, threads, smem, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), D);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "log_softmax_block_kernel launch failed");
    return y;
}
