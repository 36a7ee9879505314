#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

#define FROB_THREADS 256
#define FROB_MAX_BLOCKS 1024

// Kernel 1: grid-stride sum of squares, reduced per block in shared memory, one partial per
// block (no atomics: the result does not depend on the schedule).
__global__ void frob_partial_kernel(const float* __restrict__ x, float* __restrict__ partial,
                                    long long n) {
    __shared__ float buf[FROB_THREADS];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * FROB_THREADS + tid; i < n;
         i += (long long)gridDim.x * FROB_THREADS) {
        const float v = x[i];
        acc += v * v;
    }
    buf[tid] = acc;
    __syncthreads();
    for (int s = FROB_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            buf[tid] += buf[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = buf[0];
    }
}

// Kernel 2: every block first sums the num_partials partials itself, in the same fixed order,
// so all blocks agree on the norm without a third launch; then it scales its grid-stride share.
__global__ void frob_scale_kernel(const float* __restrict__ x, const float* __restrict__ partial,
                                  int num_partials, float* __restrict__ y, long long n) {
    __shared__ float buf[FROB_THREADS];
    __shared__ float norm_s;
    const int tid = threadIdx.x;

    float acc = 0.0f;
    for (int i = tid; i < num_partials; i += FROB_THREADS) {
        acc += partial[i];
    }
    buf[tid] = acc;
    __syncthreads();
    for (int s = FROB_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            buf[tid] += buf[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        norm_s = sqrtf(buf[0]);
    }
    __syncthreads();
    const float norm = norm_s;

    for (long long i = (long long)blockIdx.x * FROB_THREADS + tid; i < n;
         i += (long long)gridDim.x * FROB_THREADS) {
        y[i] = x[i] / norm;
    }
}

// ---- host ----
torch::Tensor frobenius_normalize(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");

    auto y = torch::empty_like(x);
    const long long n = x.numel();
    if (n == 0) {
        return y;
    }
    long long blocks = (n + FROB_THREADS - 1) / FROB_THREADS;
    if (blocks > FROB_MAX_BLOCKS) {
        blocks = FROB_MAX_BLOCKS;
    }
    auto partial = torch::empty({blocks}, x.options());

    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    frob_partial_kernel<<<(unsigned int)blocks, FROB_THREADS, 0, stream>>>(
        x.data_ptr<float>(), partial.data_ptr<float>(), n);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "frob_partial_kernel launch failed");
    frob_scale_kernel<<<(unsigned int)blocks, FROB_THREADS, 0, stream>>>(
        x.data_ptr<float>(), partial.data_ptr<float>(), (int)blocks, y.data_ptr<float>(), n);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "frob_scale_kernel launch failed");
    return y;
}
